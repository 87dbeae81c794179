package odtkit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// milpRandomData is n rows of f random 0/1 features and a noisy label.
func milpRandomData(seed uint64, n, f int) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 5))
	d := &model.Dataset{Name: fmt.Sprint("rnd", seed), Classes: []string{"a", "b"}}
	for j := range f {
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprint("f", j), Kind: model.Numeric, Values: make([]float64, n)})
	}
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(2))
		}
		l := int(d.Features[0].Values[i]) & int(d.Features[1].Values[i])
		if r.IntN(5) == 0 {
			l = 1 - l
		}
		d.Labels = append(d.Labels, l)
	}
	return d
}

// milpBestTree is an exhaustive search for the fewest errors of a tree of
// depth ≤ depth over 0/1 features.
func milpBestTree(d *model.Dataset, rows []int, depth int) int {
	ones := 0
	for _, r := range rows {
		ones += d.Labels[r]
	}
	best := min(ones, len(rows)-ones)
	if depth == 0 || best == 0 {
		return best
	}
	for f := range d.Features {
		var lo, hi []int
		for _, r := range rows {
			if d.Features[f].Values[r] > 0.5 {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if len(lo) > 0 && len(hi) > 0 {
			best = min(best, milpBestTree(d, lo, depth-1)+milpBestTree(d, hi, depth-1))
		}
	}
	return best
}

func TestMILPBackends(t *testing.T) {
	d := milpRandomData(1, 30, 4)
	rows := make([]int, d.Rows())
	for i := range rows {
		rows[i] = i
	}
	ctx := context.Background()
	tree, errT := Solve(ctx, d, model.Problem{MaxDepth: 2}, Settings{Backend: "milp-odt"})
	diag, errD := Solve(ctx, d, model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}, Alpha: 0.05}, Settings{Backend: "milp-odd"})
	if !milp.HiGHSEnabled {
		for _, err := range []error{errT, errD} {
			if !errors.Is(err, milp.ErrNotEnabled) || !strings.Contains(err.Error(), "-tags highs") {
				t.Fatalf("without HiGHS: %v, want an error saying how to enable it", err)
			}
		}
		return
	}
	if errT != nil || errD != nil {
		t.Fatal(errT, errD)
	}
	if want := milpBestTree(d, rows, 2); !tree.Optimal || tree.Errors != want || tree.Model.Kind != model.KindTree {
		t.Fatalf("milp-odt: %d errors (optimal %v), exhaustive search %d", tree.Errors, tree.Optimal, want)
	}
	if !diag.Optimal || diag.Model.Kind != model.KindDiagram {
		t.Fatalf("milp-odd: %+v", diag)
	}
	// Same skeleton as a tree: the diagram is never worse.
	tr, err := Solve(ctx, d, model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}, Alpha: 0.05}, Settings{Backend: "milp-odt"})
	if err != nil {
		t.Fatal(err)
	}
	if diag.Objective > tr.Objective+1e-9 {
		t.Fatalf("diagram %v worse than tree %v", diag.Objective, tr.Objective)
	}
}

func TestMILPTimeLimitReturnsTheHeuristic(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS not compiled in (-tags highs)")
	}
	d := milpRandomData(2, 200, 8)
	res, err := Solve(context.Background(), d, model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2, 2}, Alpha: 0.01},
		Settings{Backend: "milp-odd", TimeLimit: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model == nil || len(res.Incumbents) == 0 {
		t.Fatalf("no incumbent after the time limit: %+v", res)
	}
	if h, ok := res.Stats["heuristic_objective"].(float64); !ok || res.Objective > h+1e-12 {
		t.Fatalf("objective %v worse than the heuristic's %v", res.Objective, res.Stats["heuristic_objective"])
	}
	if res.LowerBound < 0 || res.LowerBound > res.Objective+1e-12 {
		t.Fatalf("lower bound %v outside [0, objective %v]", res.LowerBound, res.Objective)
	}
	// Stopped by HiGHS's own time limit (set just short of the deadline)
	// or by the deadline: either way a time-limit stop, not "feasible".
	if !res.Optimal && res.Status != model.StatusTimeLimit {
		t.Fatalf("status %s (HiGHS: %v, time limit %v)", res.Status, res.Stats["milp_solver_status"], res.Stats["milp_time_limit"])
	}
	if res.Optimal && (res.Status != model.StatusOptimal || res.LowerBound != res.Objective) {
		t.Fatalf("optimal with status %s and bound %v", res.Status, res.LowerBound)
	}
	t.Logf("%s: objective %v, bound %v, HiGHS %v", res.Status, res.Objective, res.LowerBound, res.Stats["milp_solver_status"])
}

// When the best diagram counts as proven optimal.
func TestMILPProven(t *testing.T) {
	opt := &milp.Solution{Status: milp.StatusOptimal, Objective: 0.25}
	cases := []struct {
		name                  string
		sol                   *milp.Solution
		hasCutoff, consistent bool
		best                  float64
		want                  bool
	}{
		{"cutoff proven infeasible: the heuristic's diagram is optimal", &milp.Solution{Status: milp.StatusInfeasible}, true, false, 0.3, true},
		{"infeasible without a cutoff proves nothing about a diagram", &milp.Solution{Status: milp.StatusInfeasible}, false, false, 0.3, false},
		{"optimal, decoded to the same objective", opt, true, true, 0.25, true},
		{"optimal, but the decoded diagram differs (misrouted row)", opt, true, false, 0.25, false},
		{"optimal, best diagram worse than the optimum", opt, true, true, 0.3, false},
		{"time limit with a solution", &milp.Solution{Status: milp.StatusFeasible, Objective: 0.25, TimeLimit: true}, true, true, 0.25, false},
		{"time limit, nothing beyond the cutoff yet", &milp.Solution{Status: milp.StatusNoSolution, TimeLimit: true}, true, false, 0.3, false},
	}
	for _, c := range cases {
		if got := milpProven(c.sol, c.hasCutoff, c.consistent, c.best); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The status of every way a MILP run can end, independent of timing.
func TestMILPStatusMapping(t *testing.T) {
	live := context.Background()
	expired, cancel := context.WithDeadline(live, time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(live)
	cancel2()
	cases := []struct {
		name     string
		ctx      context.Context
		sol      milp.Solution
		hasModel bool
		optimal  bool
		want     model.Status
	}{
		{"proven", live, milp.Solution{Status: milp.StatusOptimal}, true, true, model.StatusOptimal},
		{"cutoff proven infeasible", live, milp.Solution{Status: milp.StatusInfeasible}, true, true, model.StatusOptimal},
		{"HiGHS time limit before the deadline", live, milp.Solution{Status: milp.StatusFeasible, TimeLimit: true}, true, false, model.StatusTimeLimit},
		{"HiGHS time limit, nothing beyond the cutoff", live, milp.Solution{Status: milp.StatusNoSolution, TimeLimit: true}, true, false, model.StatusTimeLimit},
		{"deadline passed", expired, milp.Solution{Status: milp.StatusFeasible}, true, false, model.StatusTimeLimit},
		{"deadline passed, solver abandoned", expired, milp.Solution{Status: milp.StatusNoSolution}, true, false, model.StatusTimeLimit},
		{"cancelled", cancelled, milp.Solution{Status: milp.StatusNoSolution}, true, false, model.StatusCancelled},
		{"stopped at the gap", live, milp.Solution{Status: milp.StatusFeasible}, true, false, model.StatusFeasible},
		{"optimal MILP but decoded worse", live, milp.Solution{Status: milp.StatusOptimal}, true, false, model.StatusFeasible},
		{"infeasible", live, milp.Solution{Status: milp.StatusInfeasible}, false, false, model.StatusInfeasible},
		{"nothing found in time", live, milp.Solution{Status: milp.StatusNoSolution, TimeLimit: true}, false, false, model.StatusNoSolution},
	}
	for _, c := range cases {
		if got := milpStatus(c.ctx, &c.sol, c.hasModel, c.optimal); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestMILPBadRequests(t *testing.T) {
	d := milpRandomData(1, 10, 3)
	cases := []struct {
		backend string
		p       model.Problem
		opts    Options
		want    string
	}{
		{"milp-odt", model.Problem{MaxDepth: 2, MinSupport: 3}, nil, "minimum leaf support"},
		{"milp-odt", model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 3}}, nil, "1-2-4"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}}, Options{"splits": "diagonal"}, "splits"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}}, Options{"fair-column": "nope"}, "fair-column"},
	}
	for _, c := range cases {
		_, err := Solve(context.Background(), d, c.p, Settings{Backend: c.backend, Options: c.opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v %v: %v, want an error about %q", c.backend, c.p, c.opts, err, c.want)
		}
	}
}

func TestMILPSharedEchocardiogram(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS not compiled in (-tags highs)")
	}
	path := "../shared/data/uci54/echocardiogram.csv"
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Skip("echocardiogram: ../shared not present")
	}
	p := model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2, 2}, Alpha: 0.01}
	res, err := Solve(context.Background(), d, p, Settings{Backend: "milp-odd", TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err) // includes verification of the diagram on the data
	}
	h, _ := res.Stats["heuristic_objective"].(float64)
	if res.Objective > h+1e-12 {
		t.Fatalf("objective %v worse than the heuristic's %v", res.Objective, h)
	}
	// Independent check: 0.0025 = no error with two internal nodes is
	// optimal only if no single threshold separates the classes.
	if res.Optimal && res.Errors == 0 && res.Model.InternalNodes() == 2 {
		for f, ft := range d.Features {
			for _, thr := range ft.Values {
				var side [2]map[int]bool
				side[0], side[1] = map[int]bool{}, map[int]bool{}
				for r, v := range ft.Values {
					if v <= thr {
						side[0][d.Labels[r]] = true
					} else {
						side[1][d.Labels[r]] = true
					}
				}
				if len(side[0]) <= 1 && len(side[1]) <= 1 {
					t.Fatalf("feature %d at %v separates the classes: one node suffices", f, thr)
				}
			}
		}
	}
	t.Logf("echocardiogram: objective %v (heuristic %v), optimal %v, %d errors, %.1fs", res.Objective, h, res.Optimal, res.Errors, res.Seconds)
}

// milpRandomMulticlass is n rows of f random 0/1 features and k classes
// depending on two of them, with noise.
func milpRandomMulticlass(seed uint64, n, f, k int) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 17))
	d := &model.Dataset{Name: fmt.Sprint("mc", seed)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprint("f", j), Kind: model.Numeric, Values: make([]float64, n)})
	}
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(2))
		}
		l := (2*int(d.Features[0].Values[i]) + int(d.Features[2].Values[i])) % k
		if r.IntN(4) == 0 {
			l = r.IntN(k)
		}
		d.Labels = append(d.Labels, l)
	}
	return d
}

// The tree special case with α = 0 reaches DL8.5's training errors at the
// same depth on small binary data (≤ 60 rows).
func TestMILPTreeMatchesDL85(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS not compiled in (-tags highs)")
	}
	cases := []struct {
		d     *model.Dataset
		depth int
	}{
		{milpRandomData(11, 60, 5), 1},
		{milpRandomData(12, 30, 5), 2},
		{milpRandomMulticlass(14, 50, 4, 3), 1},
		{milpRandomMulticlass(15, 36, 4, 3), 2},
		{milpRandomMulticlass(16, 30, 5, 2), 2},
	}
	if milpLong() {
		// About a minute more: 60 rows at depth 2, depth 3.
		cases = append(cases, struct {
			d     *model.Dataset
			depth int
		}{milpRandomData(12, 60, 5), 2}, struct {
			d     *model.Dataset
			depth int
		}{milpRandomData(13, 24, 4), 3})
	}
	ctx := context.Background()
	for _, c := range cases {
		p := model.Problem{MaxDepth: c.depth, MinSupport: 1}
		ref, err := Solve(ctx, c.d, p, Settings{Backend: "dl85"})
		if err != nil || !ref.Optimal {
			t.Fatalf("%s depth %d: dl85: %v %+v", c.d.Name, c.depth, err, ref)
		}
		got, err := Solve(ctx, c.d, p, Settings{Backend: "milp-odt", Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s depth %d: %d errors, milp-odt %.2fs (heuristic %.2fs)", c.d.Name, c.depth, got.Errors, got.Seconds, got.Stats["heuristic_seconds"])
		if !got.Optimal || got.Errors != ref.Errors || got.Model.Kind != model.KindTree {
			t.Fatalf("%s depth %d: milp-odt %d errors (optimal %v), DL8.5 %d", c.d.Name, c.depth, got.Errors, got.Optimal, ref.Errors)
		}
	}
}

// milpLong reports whether the long MILP tests run (ODTKIT_LONG=1, not -short).
func milpLong() bool { return shared.Long() }
