package odd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

func countBinaries(e *Encoding) (lambda, other int) {
	for _, c := range e.Model.Columns {
		if !c.Integer {
			continue
		}
		if strings.HasPrefix(c.Name, "lambda_") {
			lambda++
		} else {
			other++
		}
	}
	return lambda, other
}

func TestBinariesPerRowAreExactlyLambda(t *testing.T) {
	for _, o := range []Options{
		{Skeleton: []int{1, 2, 2}},
		{Skeleton: []int{1, 2, 3, 3}, Multivariate: true},
		{Skeleton: TreeSkeleton(3), Tree: true},
	} {
		var others []int
		for _, n := range []int{10, 25, 60} {
			d := randomBinary(1, n, 4, 3)
			e, err := Encode(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			lambda, other := countBinaries(e)
			if lambda != n*len(o.Skeleton) {
				t.Fatalf("%v, n=%d: %d λ binaries, want n·D = %d", o.Skeleton, n, lambda, n*len(o.Skeleton))
			}
			if err := e.Model.Validate(); err != nil {
				t.Fatal(err)
			}
			others = append(others, other)
		}
		if others[0] != others[1] || others[1] != others[2] {
			t.Fatalf("%v: non-λ binaries depend on n: %v", o.Skeleton, others)
		}
	}
}

func rowsWithPrefix(e *Encoding, p string) int {
	k := 0
	for _, r := range e.Model.Rows {
		if strings.HasPrefix(r.Name, p) {
			k++
		}
	}
	return k
}

func TestExtensionsAddTheirConstraints(t *testing.T) {
	d := randomBinary(2, 30, 4, 2)
	base := Options{Skeleton: []int{1, 2, 2}}
	e0, err := Encode(context.Background(), d, base)
	if err != nil {
		t.Fatal(err)
	}
	V := 5
	check := func(name string, o Options, prefix string, want int) {
		t.Helper()
		e, err := Encode(context.Background(), d, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsWithPrefix(e, prefix); got != want {
			t.Errorf("%s: %d rows %s*, want %d", name, got, prefix, want)
		}
		if got := rowsWithPrefix(e0, prefix); got != 0 {
			t.Errorf("%s: the base model has %d rows %s*", name, got, prefix)
		}
	}
	o := base
	o.MinFlow = 5
	check("stability", o, "c20_", V-1) // every node but the root
	o = base
	o.MaxActive = 2
	check("parsimony", o, "parsimony", 1)
	o = base
	o.Fair = &Fairness{Column: 3, Positive: 1, Xi: 0.8}
	check("fairness", o, "c19_", 2)
	// The fairness column is not a split column any more.
	ef, _ := Encode(context.Background(), d, o)
	if len(ef.cols) != len(e0.cols)-1 || len(ef.A[0]) != 3 {
		t.Errorf("fairness column still among the split columns")
	}
	// Univariate splits: one e binary per node and column, 15–16 rows.
	if got, want := rowsWithPrefix(e0, "c15_"), V; got != want {
		t.Errorf("univariate: %d rows (15), want %d", got, want)
	}
	o = base
	o.Multivariate = true
	em, _ := Encode(context.Background(), d, o)
	if rowsWithPrefix(em, "c15_")+rowsWithPrefix(em, "c16") != 0 {
		t.Errorf("multivariate model has univariate rows")
	}
	_, ou := countBinaries(e0)
	_, om := countBinaries(em)
	if ou-om != V*4 {
		t.Errorf("univariate adds %d binaries, want nodes × columns = %d", ou-om, V*4)
	}
	// Symmetry breaking: (11) per node and negative arc, (12) in layer 2.
	o = base
	o.NoSymmetryBreaking = true
	en, _ := Encode(context.Background(), d, o)
	if rowsWithPrefix(en, "c11_")+rowsWithPrefix(en, "c12_") != 0 || rowsWithPrefix(e0, "c12_") != 1 || rowsWithPrefix(e0, "c11_") == 0 {
		t.Errorf("symmetry rows: with %d/%d, without %d/%d", rowsWithPrefix(e0, "c11_"), rowsWithPrefix(e0, "c12_"), rowsWithPrefix(en, "c11_"), rowsWithPrefix(en, "c12_"))
	}
	// Tree: only arcs to the two children slots (and terminals).
	et, _ := Encode(context.Background(), d, Options{Skeleton: TreeSkeleton(3), Tree: true})
	for _, c := range et.Model.Columns {
		var s byte
		var u, v int
		if n, _ := fmt.Sscanf(c.Name, "y%c_%d_%d", &s, &u, &v); n == 3 && v < et.nInt {
			layer := et.layerOf[u]
			k := u - et.layer[layer][0]
			want := et.layer[layer+1][2*k]
			if s == '+' {
				want++
			}
			if v != want {
				t.Errorf("tree arc %s", c.Name)
			}
		}
	}
}

func TestEncodeRejectsBadInput(t *testing.T) {
	d := randomBinary(1, 10, 3, 2)
	cat := &model.Dataset{Name: "c", Features: []model.Feature{{Name: "colour", Kind: model.Categorical, Values: []float64{0, 1, 2}, Levels: []string{"r", "g", "b"}}},
		Labels: []int{0, 1, 0}, Classes: []string{"a", "b"}}
	cases := []struct {
		d    *model.Dataset
		o    Options
		want string
	}{
		{d, Options{}, "skeleton"},
		{d, Options{Skeleton: []int{2}}, "skeleton"},
		{d, Options{Skeleton: []int{1, 0}}, "width 0"},
		{d, Options{Skeleton: []int{1, 3}, Tree: true}, "1-2-4"},
		{d, Options{Skeleton: []int{1}, Alpha: -1}, "alpha"},
		{d, Options{Skeleton: []int{1}, Fair: &Fairness{Column: 7}}, "fairness column"},
		{d, Options{Skeleton: []int{1}, Fair: &Fairness{Column: 0, Positive: 5}}, "positive class"},
		{cat, Options{Skeleton: []int{1}, Multivariate: true}, "categorical"},
		{cat, Options{Skeleton: []int{1}, Fair: &Fairness{Column: 0}}, "0/1"},
	}
	for _, c := range cases {
		_, err := Encode(context.Background(), c.d, c.o)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Encode(context.Background(), %+v) = %v, want an error about %q", c.o, err, c.want)
		}
	}
	// Categorical features are one-hot for univariate splits.
	e, err := Encode(context.Background(), cat, Options{Skeleton: []int{1}})
	if err != nil || len(e.cols) != 3 {
		t.Fatalf("categorical one-hot: %v, %d columns", err, len(e.cols))
	}
}

// The heuristic's diagram, written as a MILP point, satisfies every row
// of the model (symmetry breaking included) with the same objective: an
// independent check of the encoding.
func TestHeuristicPointIsFeasible(t *testing.T) {
	checked := 0
	for seed := range uint64(12) {
		d := randomBinary(seed, 30+int(seed), 5, 2+int(seed%3))
		for _, o := range []Options{
			{Skeleton: []int{1, 2, 2}, Alpha: 0.01},
			{Skeleton: []int{1, 2, 3, 3}, Alpha: 0.1},
			{Skeleton: []int{1, 2, 2}, Multivariate: true},
			{Skeleton: TreeSkeleton(3), Tree: true, Alpha: 0.02},
			{Skeleton: []int{1, 2, 2}, MinFlow: 3, MaxActive: 4},
			{Skeleton: []int{1, 2}, Fair: &Fairness{Column: 4, Positive: 1, Xi: 0.5}},
			{Skeleton: []int{1, 2, 3, 3}, Alpha: 0.1, ErrorCuts: true, FirstLayerOrder: true, PairCut: true, CountCut: true},
			{Skeleton: TreeSkeleton(3), Tree: true, Alpha: 0.02, ErrorCuts: true, FirstLayerOrder: true, PairCut: true, CountCut: true},
		} {
			e, err := Encode(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			inc := e.Heuristic(context.Background(), 5, seed)
			if inc == nil {
				continue // side constraints not met by the heuristic
			}
			if err := e.Model.CheckPoint(inc.X, 1e-9); err != nil {
				t.Fatalf("seed %d %+v: heuristic point: %v\n%s", seed, o, err, inc.Graph.Text())
			}
			if got := e.Model.Objective(inc.X); math.Abs(got-inc.Objective) > 1e-9 {
				t.Fatalf("seed %d %+v: point objective %v, diagram objective %v", seed, o, got, inc.Objective)
			}
			checked++
		}
	}
	if checked < 80 {
		t.Fatalf("only %d of 96 heuristic diagrams met their side constraints", checked)
	}
}

// errorFloors and pairFloor against direct counts: the floor is the
// minority weight of each group of identical rows, the stump bound the
// fewest errors of a depth-1 tree, the pair bound those of a tree of two
// internal nodes (exhaustive search over the 0/1 features).
func TestErrorFloors(t *testing.T) {
	for seed := range uint64(8) {
		d := randomBinary(seed, 20+3*int(seed), 3+int(seed%3), 2+int(seed%2))
		e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}})
		if err != nil {
			t.Fatal(err)
		}
		floor, stump := e.errorFloors()
		groups := map[string][]int{}
		for i := range d.Rows() {
			k := fmt.Sprint(e.x[i])
			if groups[k] == nil {
				groups[k] = make([]int, d.NumClasses())
			}
			groups[k][d.Labels[i]]++
		}
		wantFloor := 0
		for _, g := range groups {
			sum, top := 0, 0
			for _, c := range g {
				sum, top = sum+c, max(top, c)
			}
			wantFloor += sum - top
		}
		n := float64(d.Rows())
		if math.Abs(floor*n-float64(wantFloor)) > 1e-9 {
			t.Fatalf("seed %d: floor %v rows, want %d", seed, floor*n, wantFloor)
		}
		if want := bestTreeErrors(d, allRows(d), 1); math.Abs(stump*n-float64(want)) > 1e-9 {
			t.Fatalf("seed %d: stump bound %v rows, exhaustive depth-1 tree %d", seed, stump*n, want)
		}
		// Two internal nodes: a root split with a leaf on one side and a
		// depth-1 tree on the other.
		rows := allRows(d)
		wantPair := bestTreeErrors(d, rows, 0)
		for f := range d.Features {
			lo, hi := splitRows(d, rows, f)
			wantPair = min(wantPair, bestTreeErrors(d, lo, 0)+bestTreeErrors(d, hi, 1), bestTreeErrors(d, lo, 1)+bestTreeErrors(d, hi, 0))
		}
		if pair, ok := e.pairFloor(context.Background()); !ok || math.Abs(pair*n-float64(wantPair)) > 1e-9 {
			t.Fatalf("seed %d: pair bound %v rows (%v), exhaustive search %d", seed, pair*n, ok, wantPair)
		}
		// An ended context stops the scan (it may take seconds at its cap)
		// and the encoding with it.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, ok := e.pairFloor(ctx); ok {
			t.Fatalf("seed %d: the pair scan ignored a cancelled context", seed)
		}
		if _, err := Encode(ctx, d, Options{Skeleton: []int{1, 2}}); !errors.Is(err, context.Canceled) {
			t.Fatalf("seed %d: Encode after cancel: %v", seed, err)
		}
	}
}

// cutoffBelow against enumeration of every objective value k·w + s·c.
func TestCutoffBelow(t *testing.T) {
	d := randomBinary(3, 30, 4, 2)
	for _, alpha := range []float64{0, 0.01, 0.3, 1} {
		e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2, 2}, Alpha: alpha})
		if err != nil {
			t.Fatal(err)
		}
		n, c := float64(d.Rows()), e.NodeCost()
		for k0 := range 10 {
			for s0 := range e.InternalNodes() {
				obj := float64(k0)/n + float64(s0)*c
				cut, ok := e.cutoffBelow(obj)
				below := math.Inf(-1) // the largest value below obj
				for k := range d.Rows() + 1 {
					for s := range e.InternalNodes() {
						if v := float64(k)/n + float64(s)*c; v < obj-1e-9 {
							below = max(below, v)
						}
					}
				}
				if !ok {
					if !math.IsInf(below, -1) && obj-below >= 3e-4 {
						t.Fatalf("alpha %v obj %v: no cutoff, the largest value below is %v", alpha, obj, below)
					}
					continue
				}
				if cut >= obj || cut < below+1e-5 || cut > below+2e-4 {
					t.Fatalf("alpha %v obj %v (k %d, s %d): cutoff %v, the largest value below is %v", alpha, obj, k0, s0, cut, below)
				}
			}
		}
	}
	e, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}, RowCost: make([]float64, d.Rows())})
	e.Opts.RowCost[1] = 2
	if _, ok := e.cutoffBelow(1); ok {
		t.Fatal("a lattice cutoff with unequal row costs")
	}
}
