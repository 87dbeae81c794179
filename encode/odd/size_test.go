package odd

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// randomNumeric is n rows of f numeric columns (some values zero) and k
// classes.
func randomNumeric(seed uint64, n, f, k int) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 3))
	d := &model.Dataset{Name: "num"}
	for c := range k {
		d.Classes = append(d.Classes, string(rune('a'+c)))
	}
	for j := range f {
		d.Features = append(d.Features, model.Feature{Name: string(rune('p' + j)), Kind: model.Numeric, Values: make([]float64, n)})
	}
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(7))
		}
		d.Labels = append(d.Labels, r.IntN(k))
	}
	return d
}

// TestEstimateMatchesTheModel: the estimate, computed before building,
// counts the columns exactly, the rows up to the error cuts, and bounds
// the non-zeros from above within 40 % (the zero feature values).
func TestEstimateMatchesTheModel(t *testing.T) {
	for _, c := range []struct {
		name string
		d    *model.Dataset
		o    Options
	}{
		{"tree depth 1", randomNumeric(1, 30, 3, 2), Options{Skeleton: TreeSkeleton(1), Tree: true}},
		{"tree depth 3 cuts", randomNumeric(2, 40, 4, 3), Options{Skeleton: TreeSkeleton(3), Tree: true, FirstLayerOrder: true, ErrorCuts: true, PairCut: true}},
		{"diagram 1-2-3", randomNumeric(3, 25, 3, 3), Options{Skeleton: []int{1, 2, 3}, FirstLayerOrder: true, ErrorCuts: true}},
		{"diagram 1-2-2 count cut", randomNumeric(6, 25, 3, 3), Options{Skeleton: []int{1, 2, 2}, FirstLayerOrder: true, ErrorCuts: true, PairCut: true, CountCut: true}},
		{"diagram 1-3-3 oblique", randomNumeric(4, 20, 2, 2), Options{Skeleton: []int{1, 3, 3}, Multivariate: true}},
		{"one class", randomNumeric(5, 10, 2, 1), Options{Skeleton: TreeSkeleton(2), Tree: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Estimate(c.d, c.o, false)
			if err != nil {
				t.Fatal(err)
			}
			e, err := Encode(context.Background(), c.d, c.o)
			if err != nil {
				t.Fatal(err)
			}
			cols, rows, nz := int64(len(e.Model.Columns)), int64(len(e.Model.Rows)), int64(e.Model.NumNonzeros())
			if s.Variables != cols {
				t.Errorf("estimated %d columns, built %d", s.Variables, cols)
			}
			if s.Constraints < rows-5 || s.Constraints > rows+5 {
				t.Errorf("estimated %d rows, built %d", s.Constraints, rows)
			}
			if s.NonZeros < nz || float64(s.NonZeros) > 1.4*float64(nz) {
				t.Errorf("estimated %d non-zeros, built %d", s.NonZeros, nz)
			}
			solving, _ := Estimate(c.d, c.o, true)
			if s.Bytes <= 0 || solving.Bytes <= s.Bytes {
				t.Errorf("bytes %d to build, %d to solve", s.Bytes, solving.Bytes)
			}
		})
	}
}

// TestEstimateRefusesWhatCannotBeIndexed: a skeleton whose MILP cannot
// be represented is refused by the estimate alone, at once.
func TestEstimateRefusesWhatCannotBeIndexed(t *testing.T) {
	d := randomNumeric(6, 200, 3, 2)
	for _, depth := range []int{18, 40, 62} {
		if _, err := Estimate(d, Options{Skeleton: TreeSkeleton(min(depth, 62)), Tree: true}, true); !errors.Is(err, ErrInput) {
			t.Errorf("depth %d: %v, want an input error", depth, err)
		}
	}
	if _, err := Estimate(d, Options{Skeleton: []int{1, 100000}}, true); !errors.Is(err, ErrInput) {
		t.Errorf("skeleton 1,100000: %v, want an input error", err)
	}
}

// TestSolveRefusesOverTheCap: a job whose MILP is estimated above the
// budget's cap is refused before anything is built, naming the estimate
// and the cap; under the cap the estimate is accounted and released.
func TestSolveRefusesOverTheCap(t *testing.T) {
	d := randomNumeric(7, 300, 4, 2)
	job, err := backend.NewJob(TreeBackend{}.Info(), d, model.Problem{MaxDepth: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	job.Budget = backend.NewBudget(20 << 20)
	_, err = TreeBackend{}.Solve(context.Background(), job)
	if !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "memory cap of 20.0 MiB") || !strings.Contains(err.Error(), "non-zeros") {
		t.Fatalf("depth 6 on 300 rows under 20 MiB: %v, want a refusal naming the estimate and the cap", err)
	}
	if job.Budget.Peak() != 0 {
		t.Fatalf("the refused MILP reserved %d bytes", job.Budget.Peak())
	}
	var buf strings.Builder
	if err := (TreeBackend{}).Export(context.Background(), &buf, job); !errors.Is(err, backend.ErrInvalid) {
		t.Fatalf("export over the cap: %v", err)
	}
	size, err := TreeBackend{}.Size(job)
	if err != nil || size.Bytes <= 20<<20 {
		t.Fatalf("Size: %+v %v", size, err)
	}
	// Under the cap the export accounts the estimate while it builds.
	job.Budget = backend.NewBudget(4 << 30)
	if err := (TreeBackend{}).Export(context.Background(), &buf, job); err != nil {
		t.Fatal(err)
	}
	if job.Budget.Peak() == 0 || job.Budget.Used() != 0 {
		t.Fatalf("export accounted peak %d, still used %d", job.Budget.Peak(), job.Budget.Used())
	}
}

// TestEncodeStopsWithTheContext: building a large MILP ends soon after
// its context.
func TestEncodeStopsWithTheContext(t *testing.T) {
	d := randomNumeric(8, 50, 3, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Encode(ctx, d, Options{Skeleton: TreeSkeleton(8), Tree: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
