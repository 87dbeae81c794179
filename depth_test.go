package odtkit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// depthData is a small dataset with few distinct tests (binary columns
// and one numeric column of three values), so that its useful depth is
// small: noisy labels keep the optimum falling for a few levels.
func depthData(rng *rand.Rand, rows int) *model.Dataset {
	d := &model.Dataset{Name: "depth", Classes: []string{"a", "b", "c"}}
	for f := range 3 {
		vals := make([]float64, rows)
		for r := range vals {
			vals[r] = float64(rng.IntN(2))
		}
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprintf("b%d", f), Values: vals})
	}
	num := make([]float64, rows)
	for r := range num {
		num[r] = float64(rng.IntN(3)) / 2
	}
	d.Features = append(d.Features, model.Feature{Name: "x", Values: num})
	for r := range rows {
		l := int(d.Features[0].Values[r]) ^ int(d.Features[1].Values[r]) + int(2*num[r])/2
		if rng.IntN(5) == 0 {
			l = rng.IntN(3)
		}
		d.Labels = append(d.Labels, min(l, 2))
	}
	return d
}

// The optimum is non-increasing in the depth and the same at every depth
// from the useful depth (model.Problem.UsefulDepth) up, however large,
// for every DP backend and every form of the error objective (plain,
// leaf cost, node limit, minimum support); the backends agree at every
// depth, and a depth above the useful one says what it searched.
func TestOptimumMonotoneInDepth(t *testing.T) {
	backends := []string{"dl85", "cadl85", "blossom", "contree", "race"}
	rng := rand.New(rand.NewPCG(5, 32))
	solves := map[string]int{}
	var usefuls []int
	defer func() {
		for _, name := range backends {
			if solves[name] == 0 {
				t.Errorf("%s solved nothing", name)
			}
		}
		t.Logf("solves per backend: %v; useful depths: %v", solves, usefuls)
	}()
	for i := range 6 {
		d := depthData(rng, 10+4*i)
		d.Name = fmt.Sprintf("depth-%d", i)
		forms := []model.Problem{
			{},
			{LeafCost: []float64{0.02, 0.05}[i%2]},
			{MaxNodes: 1 + i%3},
			{MinSupport: 2 + i%2},
			{LeafCost: 0.01, MaxNodes: 3},
		}
		for _, form := range forms {
			form.Objective = model.MinError
			big := form
			big.MaxDepth = 100
			useful, why := big.UsefulDepth(d)
			if useful >= 100 || why == "" {
				t.Fatalf("%s %+v: useful depth %d (%q) on %d rows", d.Name, form, useful, why, d.Rows())
			}
			usefuls = append(usefuls, useful)
			depths := []int{}
			for k := 0; k <= useful+2; k++ {
				depths = append(depths, k)
			}
			depths = append(depths, 30, 31, 100)
			agreed := map[int]float64{} // depth → the first backend's optimum
			for _, name := range backends {
				p := form
				p.MaxDepth = 1
				if err := Check(d, p, Settings{Backend: name}); err != nil {
					t.Logf("%s %+v: %v", name, form, err)
					continue // a field the backend does not honour
				}
				prev, atUseful := math.Inf(1), math.NaN()
				for _, k := range depths {
					p.MaxDepth = k
					res, err := Solve(context.Background(), d, p, Settings{Backend: name, TimeLimit: time.Minute, Threads: 2})
					if err != nil {
						t.Fatalf("%s %s %+v: %v", d.Name, name, p, err)
					}
					if !res.Optimal || res.Model == nil {
						t.Fatalf("%s %s %+v: status %s, no proof", d.Name, name, p, res.Status)
					}
					solves[name]++
					obj := res.Objective
					if o, ok := agreed[k]; !ok {
						agreed[k] = obj
					} else if math.Abs(o-obj) > 1e-9 {
						t.Fatalf("%s %s %+v: optimum %v, another backend's %v", d.Name, name, p, obj, o)
					}
					if obj > prev+1e-9 {
						t.Fatalf("%s %s %+v: optimum %v above %v at depth %d", d.Name, name, p, obj, prev, k-1)
					}
					prev = obj
					switch {
					case k == useful:
						atUseful = obj
					case k > useful && math.Abs(obj-atUseful) > 1e-9:
						t.Fatalf("%s %s %+v: optimum %v at depth %d, %v at the useful depth %d (%s)", d.Name, name, p, obj, k, atUseful, useful, why)
					}
					if k > useful && (res.Depth == nil || res.Depth.Used != useful || res.Depth.Requested != k || res.Problem.MaxDepth != k) {
						t.Fatalf("%s %s %+v: depth reduction %+v, problem depth %d; want %d searched", d.Name, name, p, res.Depth, res.Problem.MaxDepth, useful)
					}
					if k <= useful && res.Depth != nil {
						t.Fatalf("%s %s %+v: depth %d reduced to %+v", d.Name, name, p, k, res.Depth)
					}
				}
			}
		}
	}
}

// Each bound of UsefulDepth on hand-made data: the distinct tests, the
// rows over the minimum support, the leaves a leaf cost pays for, the
// node limit; and nothing for other objectives or smaller depths.
func TestUsefulDepth(t *testing.T) {
	d := &model.Dataset{Name: "u", Classes: []string{"a", "b"},
		Features: []model.Feature{
			{Name: "x", Values: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, // 9 thresholds
			{Name: "c", Kind: model.Categorical, Levels: []string{"p", "q", "r"}, // 3 tests
				Values: []float64{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}},
		},
		Labels: []int{0, 0, 0, 1, 1, 1, 1, 1, 1, 1}}
	for _, c := range []struct {
		p    model.Problem
		want int
	}{
		{model.Problem{MaxDepth: 50}, 9},                 // rows − 1 = 9 < 12 tests
		{model.Problem{MaxDepth: 5}, 5},                  // not larger than can matter
		{model.Problem{MaxDepth: 50, MinSupport: 3}, 2},  // ⌊10/3⌋ − 1
		{model.Problem{MaxDepth: 50, MaxNodes: 4}, 4},    // depth ≤ internal nodes
		{model.Problem{MaxDepth: 50, LeafCost: 0.1}, 3},  // one leaf: 0.3 + 0.1, ⌊0.4/0.1⌋ = 4 leaves
		{model.Problem{MaxDepth: 50, LeafCost: 0.35}, 0}, // ⌊0.65/0.35⌋ = 1 leaf
		{model.Problem{Objective: model.MinDepth, MaxDepth: 50}, 50},
	} {
		got, why := c.p.UsefulDepth(d)
		if got != c.want {
			t.Errorf("%+v: useful depth %d (%s), want %d", c.p, got, why, c.want)
		}
	}
	// 40 rows of a wide column: the distinct tests bound it.
	w := &model.Dataset{Name: "w", Classes: []string{"a", "b"},
		Features: []model.Feature{{Name: "b", Values: make([]float64, 40)}, {Name: "y", Values: make([]float64, 40)}}}
	for r := range 40 {
		w.Features[0].Values[r] = float64(r % 2)
		w.Features[1].Values[r] = float64(r % 5)
		w.Labels = append(w.Labels, r%3%2)
	}
	if got, why := (model.Problem{MaxDepth: 30}).UsefulDepth(w); got != 5 {
		t.Errorf("1 + 4 tests: useful depth %d (%s), want 5", got, why)
	}
}

// The status is derived once, from the bound: a model whose bound meets
// its objective is optimal whatever stopped the search; a stop with a
// gap is not optimal even when claimed; a result without a model has no
// errors, no objective and no claim.
func TestStatusFromBound(t *testing.T) {
	d := tiny()
	g := stump(d) // one error
	for _, c := range []struct {
		name    string
		res     *model.Result
		status  model.Status
		optimal bool
	}{
		{"stopped with the bound met", &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 1, Status: model.StatusTimeLimit}, model.StatusOptimal, true},
		{"memory stop with the bound met", &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 1, Status: model.StatusMemory}, model.StatusOptimal, true},
		{"feasible with the bound met", &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 1, Status: model.StatusFeasible}, model.StatusOptimal, true},
		{"no status, bound met", &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 1}, model.StatusOptimal, true},
		{"stopped with a gap, claimed", &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 0.5, Optimal: true, Status: model.StatusTimeLimit}, model.StatusTimeLimit, false},
		{"feasible with a gap", &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 0, Status: model.StatusFeasible}, model.StatusFeasible, false},
		{"no model", &model.Result{Errors: 3, Objective: 2, LowerBound: 1, Optimal: true, Status: model.StatusInfeasible}, model.StatusInfeasible, false},
	} {
		res, err := NewRegistry(fake("b", answer(c.res))).Solve(context.Background(), d, model.Problem{MaxDepth: 2}, Settings{Backend: "b"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Status != c.status || res.Optimal != c.optimal {
			t.Errorf("%s: status %s, optimal %v; want %s, %v", c.name, res.Status, res.Optimal, c.status, c.optimal)
		}
		if res.Optimal && (res.LowerBound != res.Objective || res.RelGap != 0) {
			t.Errorf("%s: optimal with bound %v, gap %v", c.name, res.LowerBound, res.RelGap)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		_, hasErrors := m["errors"]
		_, hasObjective := m["objective"]
		if hasErrors != (res.Model != nil) || hasObjective != (res.Model != nil) {
			t.Errorf("%s: JSON %s", c.name, b)
		}
	}
}
