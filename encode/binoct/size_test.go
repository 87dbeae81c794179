package binoct

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/model"
)

// randomData is n rows of f numeric columns of up to v values and k
// classes.
func randomData(seed uint64, n, f, v, k int) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 5))
	d := &model.Dataset{Name: "rnd"}
	for c := range k {
		d.Classes = append(d.Classes, string(rune('a'+c)))
	}
	for j := range f {
		d.Features = append(d.Features, model.Feature{Name: string(rune('p' + j)), Kind: model.Numeric, Values: make([]float64, n)})
	}
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(v))
		}
		d.Labels = append(d.Labels, r.IntN(k))
	}
	return d
}

// TestEstimateMatchesTheModel: the estimate, counted before building,
// equals the built MILP's columns, rows and non-zeros; with the
// strengthened inequalities (counted per row, not per group of identical
// rows) it bounds them from above.
func TestEstimateMatchesTheModel(t *testing.T) {
	for _, c := range []struct {
		name string
		d    *model.Dataset
		o    Options
	}{
		{"depth 1", randomData(1, 30, 3, 5, 2), Options{Tree: milpjob.Tree{Depth: 1}}},
		{"depth 2, 3 classes", randomData(2, 40, 4, 7, 3), Options{Tree: milpjob.Tree{Depth: 2}}},
		{"depth 3, 0/1 columns", randomData(3, 40, 4, 2, 3), Options{Tree: milpjob.Tree{Depth: 3}}},
		{"depth 4", randomData(8, 30, 2, 11, 2), Options{Tree: milpjob.Tree{Depth: 4}, BinaryLeaves: true}},
		{"depth 3, extended", randomData(4, 25, 3, 9, 2), Options{Tree: milpjob.Tree{Depth: 3, MinSupport: 2, LeafCost: 0.1, MaxSplits: 3}}},
		{"depth 3, strengthened", randomData(5, 25, 3, 4, 2), Options{Tree: milpjob.Tree{Depth: 3}, Strengthen: true}},
		{"depth 2, strengthened, 0/1 columns", randomData(6, 25, 3, 2, 3), Options{Tree: milpjob.Tree{Depth: 2}, Strengthen: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := Plan(c.d, c.o)
			s := e.Estimate(false)
			if err := e.Build(context.Background()); err != nil {
				t.Fatal(err)
			}
			cols, rows, nz := int64(len(e.Model.Columns)), int64(len(e.Model.Rows)), int64(e.Model.NumNonzeros())
			exact := !c.o.Strengthen
			if exact && (s.Variables != cols || s.Constraints != rows || s.NonZeros != nz) ||
				s.Variables < cols || s.Constraints < rows || s.NonZeros < nz {
				t.Errorf("estimated %v; built %d columns, %d rows, %d non-zeros", s, cols, rows, nz)
			}
			if solving := e.Estimate(true); s.Bytes <= 0 || solving.Bytes <= s.Bytes {
				t.Errorf("bytes %d to build, %d to solve", s.Bytes, solving.Bytes)
			}
		})
	}
}

// TestDeepTreeRefused: a tree too deep to index is refused from its
// estimate alone, which is counted by level (a depth-40 tree has 2^40
// branch nodes: an estimate that visited them would not end).
func TestDeepTreeRefused(t *testing.T) {
	d := randomData(7, 100, 10, 50, 2)
	if s := Plan(d, Options{Tree: milpjob.Tree{Depth: 40}}).Estimate(true); s.Variables < 1<<40 || s.NonZeros < 1<<50 {
		t.Errorf("depth 40: estimated %v", s)
	}
	job, err := backend.NewJob(Backend{}.Info(), d, model.Problem{MaxDepth: 40}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Backend{}).Solve(context.Background(), job); !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "more than a MILP solver can index") {
		t.Fatalf("depth 40: %v, want a refusal", err)
	}
}
