package flowoct_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/model"
)

var benders = map[string]string{"formulation": "benders"}

// TestBendersAgreesWithFlowAndDL85: on generated data (binary and
// numeric features, two and three classes, with and without weights,
// and the general form of a node limit and a leaf cost) the Benders cut
// loop proves the optimum of the flow form and of dl85.
func TestBendersAgreesWithFlowAndDL85(t *testing.T) {
	needHiGHS(t)
	cases := []struct {
		n, f, k          int
		numeric, weights bool
		p                model.Problem
	}{
		{24, 4, 2, false, false, model.Problem{MaxDepth: 1}},
		{24, 4, 2, false, false, model.Problem{MaxDepth: 2}},
		{20, 3, 3, true, false, model.Problem{MaxDepth: 2}},
		{22, 4, 2, false, true, model.Problem{MaxDepth: 2}},
		{18, 3, 3, true, true, model.Problem{MaxDepth: 2}},
		{16, 3, 2, true, false, model.Problem{MaxDepth: 3}},
		{20, 3, 2, true, false, model.Problem{MaxDepth: 2, MaxNodes: 1}},
		{20, 3, 3, false, true, model.Problem{MaxDepth: 2, LeafCost: 0.05}},
	}
	for i, c := range cases {
		d := randomData(uint64(100+i), c.n, c.f, c.k, c.numeric, c.weights)
		b := solve(t, d, c.p, "milp-flowoct", benders)
		flow := solve(t, d, c.p, "milp-flowoct", nil)
		dl := solve(t, d, c.p, "dl85", nil)
		if math.Abs(b.Objective-dl.Objective) > 1e-9 || math.Abs(flow.Objective-dl.Objective) > 1e-9 {
			t.Errorf("%s %+v: benders %v, flow %v, dl85 %v", d.Name, c.p, b.Objective, flow.Objective, dl.Objective)
		}
		if b.Stats["formulation"] != "benders" || b.Stats["benders_rounds"].(int) < 1 {
			t.Errorf("%s: the Benders loop did not run: %v", d.Name, b.Stats)
		}
		if b.LowerBound != b.Objective {
			t.Errorf("%s: proven optimum %v with bound %v", d.Name, b.Objective, b.LowerBound)
		}
	}
}

// TestMinCutIsThePathCut: at the point of a tree, the minimum cut of a
// group and class has capacity 1 when the group's leaf predicts the
// class and 0 otherwise (the cut of the group's path), so the cuts a
// point claiming every group correct violates are exactly the
// misclassified groups and classes.
func TestMinCutIsThePathCut(t *testing.T) {
	for i, o := range []flowoct.Options{
		{Depth: 2, Benders: true},
		{Depth: 3, Benders: true},
		{Depth: 2, Benders: true, MaxInternal: 2},
	} {
		d := randomData(uint64(120+i), 30, 4, 3, true, i == 1)
		e, err := flowoct.Encode(context.Background(), model.Binarize(d), o)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(i), 7))
		for range 20 {
			tr := randomTree(r, e, o)
			x, ok := e.Point(tr)
			if !ok {
				t.Fatalf("no point for %+v", tr)
			}
			// Claim every group and class correct.
			claim := append([]float64(nil), x...)
			for _, col := range groupColumns(e) {
				claim[col] = 1
			}
			violated, err := e.Violated(context.Background(), claim, 1e-9)
			if err != nil {
				t.Fatal(err)
			}
			wrong := float64(len(violated))
			// Pairs (group, class) misclassified by the tree: count them
			// from the point (a pair is correct when its g is 1).
			want := 0.0
			for _, col := range groupColumns(e) {
				if x[col] < 0.5 {
					want++
				}
			}
			if wrong != want {
				t.Errorf("options %+v tree %+v: %v cuts violated, %v pairs misclassified", o, tr, wrong, want)
			}
			if err := e.Model.CheckPoint(x, 1e-9); err != nil {
				t.Errorf("the point of a tree breaks the master: %v", err)
			}
			// Every cut is valid: a cut made at one tree's point (or at
			// the claim) holds at any other tree's point.
			other, _ := e.Point(randomTree(r, e, o))
			cx, err := e.AllCuts(context.Background(), x)
			if err != nil {
				t.Fatal(err)
			}
			cc, err := e.AllCuts(context.Background(), claim)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range append(cx, cc...) {
				for _, at := range [][]float64{x, other} {
					s := 0.0
					for k, col := range cut.Index {
						s += cut.Value[k] * at[col]
					}
					if s > cut.Upper+1e-9 {
						t.Fatalf("options %+v: a cut is violated at a tree's point: %v > %v", o, s, cut.Upper)
					}
				}
			}
		}
	}
}

// groupColumns are the master's g columns (named g_G_C).
func groupColumns(e *flowoct.Encoding) []int {
	var cols []int
	for j, c := range e.Model.Columns {
		if len(c.Name) > 2 && c.Name[:2] == "g_" {
			cols = append(cols, j)
		}
	}
	return cols
}

// randomTree is a random tree of the encoding's shape: every internal
// node tests (the plain form) or, in the general form, may predict.
func randomTree(r *rand.Rand, e *flowoct.Encoding, o flowoct.Options) flowoct.Tree {
	nInt := 1<<o.Depth - 1
	t := flowoct.Tree{Test: make([]int, nInt), Class: make([]int, 2*nInt+1)}
	k := len(e.View.Class)
	var grow func(n int)
	grow = func(n int) {
		if n < nInt && (o.MaxInternal == 0 || r.IntN(2) == 0) {
			t.Test[n] = r.IntN(e.NumTests())
			grow(2*n + 1)
			grow(2*n + 2)
			return
		}
		t.Class[n] = r.IntN(k)
	}
	for n := range t.Test {
		t.Test[n] = -1
	}
	for n := range t.Class {
		t.Class[n] = -1
	}
	grow(0)
	if o.MaxInternal > 0 {
		internal := 0
		for _, x := range t.Test {
			if x >= 0 {
				internal++
			}
		}
		if internal > o.MaxInternal {
			// Too many tests for the cap: a leaf.
			for n := range t.Test {
				t.Test[n] = -1
			}
			for n := range t.Class {
				t.Class[n] = -1
			}
			t.Class[0] = r.IntN(k)
		}
	}
	return t
}

// TestBendersTimeLimitAndCancel: stopped by a deadline or a
// cancellation, the Benders loop returns its best tree, re-evaluated,
// with a bound that is a true lower bound (at most dl85's optimum).
func TestBendersTimeLimitAndCancel(t *testing.T) {
	needHiGHS(t)
	d := randomData(140, 300, 10, 3, true, true)
	p := model.Problem{MaxDepth: 3}
	opt := solve(t, d, p, "dl85", nil).Objective
	for _, how := range []string{"deadline", "cancel"} {
		ctx, cancel := context.WithCancel(context.Background())
		if how == "deadline" {
			ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
		} else {
			time.AfterFunc(2*time.Second, cancel)
		}
		begin := time.Now()
		res, err := odtkit.Solve(ctx, d, p, odtkit.Settings{Backend: "milp-flowoct", Options: benders, Threads: 1})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if took := time.Since(begin); took > 6*time.Second {
			t.Errorf("%s: returned after %v", how, took)
		}
		if res.Model == nil {
			t.Fatalf("%s: no model (%s)", how, res.Status)
		}
		if got := p.Evaluate(d, res.Model); math.Abs(got-res.Objective) > 1e-9 {
			t.Errorf("%s: objective %v, the model's %v", how, res.Objective, got)
		}
		if res.LowerBound > opt+1e-9 || res.Objective < opt-1e-9 {
			t.Errorf("%s: bound %v, objective %v around the optimum %v", how, res.LowerBound, res.Objective, opt)
		}
		if res.Optimal && res.Objective != opt {
			t.Errorf("%s: claims the optimum %v, dl85 %v", how, res.Objective, opt)
		}
		t.Logf("%s: %s, objective %v, bound %v, optimum %v", how, res.Status, res.Objective, res.LowerBound, opt)
	}
}

// TestBendersConformance runs the backend conformance suite with the
// Benders formulation.
func TestBendersConformance(t *testing.T) {
	needHiGHS(t)
	c := backendtest.Config{Verify: odtkit.Verify, Options: benders, Brute: 6, Rows: 12, Objective: model.MinError}
	if testing.Short() {
		c.Brute = 3
	}
	b, _ := odtkit.DefaultRegistry().Get("milp-flowoct")
	backendtest.Run(t, b, c)
}

// TestMinSupportAgreesWithDL85: with a minimum leaf support of 2 and 3
// rows, both forms prove dl85's optimum and every leaf of their tree
// holds at least that many rows.
func TestMinSupportAgreesWithDL85(t *testing.T) {
	needHiGHS(t)
	i := 0
	for _, ms := range []int{2, 3} {
		for _, c := range []struct {
			n, f, k          int
			numeric, weights bool
			depth            int
		}{
			{20, 4, 2, false, false, 2},
			{18, 3, 3, true, true, 2},
			{16, 3, 2, true, false, 3},
			{14, 4, 2, false, true, 1},
		} {
			i++
			d := randomData(uint64(160+i), c.n, c.f, c.k, c.numeric, c.weights)
			p := model.Problem{MaxDepth: c.depth, MinSupport: ms}
			dl := solve(t, d, p, "dl85", nil)
			for _, opts := range []map[string]string{nil, benders} {
				res := solve(t, d, p, "milp-flowoct", opts)
				if math.Abs(res.Objective-dl.Objective) > 1e-9 {
					t.Errorf("%s depth %d min support %d %v: milp-flowoct %v, dl85 %v", d.Name, c.depth, ms, opts, res.Objective, dl.Objective)
				}
				count := map[int]int{}
				for r := range d.Rows() {
					count[res.Model.Leaf(d, r)]++
				}
				for leaf, n := range count {
					if n < ms {
						t.Errorf("%s min support %d %v: leaf %d holds %d rows", d.Name, ms, opts, leaf, n)
					}
				}
			}
		}
	}
}
