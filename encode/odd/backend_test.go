package odd_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/encode/odd"
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

func TestMILPBackends(t *testing.T) {
	d := milpRandomData(1, 30, 4)
	rows := odd.AllRows(d)
	ctx := context.Background()
	tree, errT := odtkit.Solve(ctx, d, model.Problem{MaxDepth: 2}, odtkit.Settings{Backend: "milp-odt"})
	diag, errD := odtkit.Solve(ctx, d, model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}, Alpha: 0.05}, odtkit.Settings{Backend: "milp-odd"})
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
	if want := odd.BestTreeErrors(d, rows, 2); !tree.Optimal || tree.Errors != want || tree.Model.Kind != model.KindTree {
		t.Fatalf("milp-odt: %d errors (optimal %v), exhaustive search %d", tree.Errors, tree.Optimal, want)
	}
	if !diag.Optimal || diag.Model.Kind != model.KindDiagram {
		t.Fatalf("milp-odd: %+v", diag)
	}
	// Same skeleton as a tree: the diagram is never worse.
	tr, err := odtkit.Solve(ctx, d, model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}, Alpha: 0.05}, odtkit.Settings{Backend: "milp-odt"})
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
	res, err := odtkit.Solve(context.Background(), d, model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2, 2}, Alpha: 0.01},
		odtkit.Settings{Backend: "milp-odd", TimeLimit: 2 * time.Second})
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

func TestMILPBadRequests(t *testing.T) {
	d := milpRandomData(1, 10, 3)
	cases := []struct {
		backend string
		p       model.Problem
		opts    map[string]string
		want    string
	}{
		{"milp-odt", model.Problem{MaxDepth: 2, MinSupport: 3}, nil, "minimum leaf support"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"gap": "-1"}, "gap"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"epsilon": "0"}, "epsilon"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"restarts": "-1"}, "restarts"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"fair-ratio": "0"}, "fair-ratio"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}, MaxNodes: 3}, nil, "node limit"},
		{"milp-odt", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 3}}, nil, "1-2-4"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"splits": "diagonal"}, "splits"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"fair-column": "nope"}, "fair-column"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"highs": "presolve"}, "highs"},
		{"milp-odt", model.Problem{MaxDepth: 1}, map[string]string{"highs": "presolve=off,=1"}, "highs"},
		{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"formulation": "published", "count-cut": "true"}, "count-cut"},
	}
	if milp.HiGHSEnabled {
		// Only HiGHS knows its option names and ranges.
		cases = append(cases, struct {
			backend string
			p       model.Problem
			opts    map[string]string
			want    string
		}{"milp-odd", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}}, map[string]string{"highs": "no_such_option=1"}, "no_such_option"})
	}
	for _, c := range cases {
		_, err := odtkit.Solve(context.Background(), d, c.p, odtkit.Settings{Backend: c.backend, Options: c.opts})
		if !errors.Is(err, odtkit.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v %v: %v, want an error about %q", c.backend, c.p, c.opts, err, c.want)
		}
	}
}

func TestMILPSharedEchocardiogram(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS not compiled in (-tags highs)")
	}
	path := filepath.Join(shared.Dir(t, "data/uci54/echocardiogram.csv"), "data", "uci54", "echocardiogram.csv")
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2, 2}, Alpha: 0.01}
	res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "milp-odd", TimeLimit: time.Minute})
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

// The tree special case reaches the exhaustive search's fewest training
// errors at the same depth on small binary data (≤ 60 rows).
func TestMILPTreeMatchesBruteForce(t *testing.T) {
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
		p := model.Problem{Objective: model.MinError, MaxDepth: c.depth, MinSupport: 1}
		want := odd.BestTreeErrors(c.d, odd.AllRows(c.d), c.depth)
		got, err := odtkit.Solve(ctx, c.d, p, odtkit.Settings{Backend: "milp-odt", Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s depth %d: %d errors, milp-odt %.2fs (heuristic %.2fs)", c.d.Name, c.depth, got.Errors, got.Seconds, got.Stats["heuristic_seconds"])
		if !got.Optimal || got.Errors != want || got.Model.Kind != model.KindTree {
			t.Fatalf("%s depth %d: milp-odt %d errors (optimal %v), exhaustive search %d", c.d.Name, c.depth, got.Errors, got.Optimal, want)
		}
	}
}

// milpLong reports whether the long MILP tests run (ODTKIT_LONG=1, not -short).
func milpLong() bool { return shared.Long() }

// TestMILPCancelLatency: a cancel during the HiGHS phase returns the
// best model within the contract's second (generous bound: 2 s), with
// status cancelled.
func TestMILPCancelLatency(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS not compiled in (-tags highs)")
	}
	d := milpRandomData(2, 200, 8)
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	time.AfterFunc(1500*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	res, err := odtkit.Solve(ctx, d, model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2, 2}, Alpha: 0.01},
		odtkit.Settings{Backend: "milp-odd", Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Optimal {
		t.Skip("solved before the cancel")
	}
	lat := time.Since(cancelled)
	if lat > 2*time.Second || res.Status != model.StatusCancelled || res.Model == nil {
		t.Fatalf("returned %v after the cancel with status %s, model %v", lat, res.Status, res.Model != nil)
	}
	t.Logf("returned %v after the cancel: objective %v, bound %v", lat, res.Objective, res.LowerBound)
}

// TestMILPTreeDepthZero: at depth 0 milp-odt returns the majority leaf,
// proven optimal, without a MILP (so also without HiGHS).
func TestMILPTreeDepthZero(t *testing.T) {
	d := milpRandomData(3, 25, 3)
	res, err := odtkit.Solve(context.Background(), d, model.Problem{Objective: model.MinError, MaxDepth: 0}, odtkit.Settings{Backend: "milp-odt"})
	if err != nil {
		t.Fatal(err)
	}
	if want := odd.BestTreeErrors(d, odd.AllRows(d), 0); !res.Optimal || res.Errors != want || res.Model.Size() != 1 {
		t.Fatalf("depth 0: optimal %v, %d errors (want %d), %d nodes", res.Optimal, res.Errors, want, res.Model.Size())
	}
}

// The backend's strengthening options leave the proven optimum alone:
// each one, and all together, against the plain model on small random
// problems (the lattice cutoff can only turn a proof of the heuristic's
// diagram into an earlier one).
func TestMILPStrengtheningOptionsKeepTheOptimum(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("needs -tags highs")
	}
	configs := []map[string]string{
		{"error-cuts": "false", "sym-layer1": "false", "pair-cut": "false", "count-cut": "false", "lattice-cutoff": "false"},
		{"error-cuts": "true"},
		{"sym-layer1": "true"},
		{"lattice-cutoff": "true"},
		{"error-cuts": "true", "sym-layer1": "true", "pair-cut": "true"},
		{"error-cuts": "true", "sym-layer1": "true", "pair-cut": "true", "lattice-cutoff": "true", "highs": "mip_heuristic_effort=0.2"},
		{"error-cuts": "true", "count-cut": "true", "sym-layer1": "false", "pair-cut": "false"},
		{"formulation": "published", "error-cuts": "false"},
	}
	problems := []model.Problem{
		{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2, 2}, Alpha: 0.05},
		{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}, Alpha: 0.5},
		{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2, 2}, Alpha: 0.01},
	}
	for seed := range uint64(2) {
		d := milpRandomData(40+seed, 12, 3)
		for _, p := range problems {
			var want float64
			for k, opts := range configs {
				opts["restarts"] = "20"
				res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "milp-odd", Options: opts, Seed: int64(seed)})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Optimal {
					t.Fatalf("seed %d %v %v: not proven (%s)", seed, p.Skeleton, opts, res.Status)
				}
				if k == 0 {
					want = res.Objective
				} else if math.Abs(res.Objective-want) > 1e-9 {
					t.Fatalf("seed %d skeleton %v alpha %v: %v proves %v, the plain model %v", seed, p.Skeleton, p.Alpha, opts, res.Objective, want)
				}
			}
		}
	}
}

// TestMILPIrisAgreesWithSAT: on iris, skeleton 1,2, α 0.01, the default
// formulation proves its optimum (the bounds of count-cut meet the
// heuristic's diagram), and it is sat-odd's, proved by the other family.
func TestMILPIrisAgreesWithSAT(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS not compiled in (-tags highs)")
	}
	d, err := model.ReadFile("../../testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}, Alpha: 0.01}
	var objs []float64
	opts := map[string]map[string]string{"milp-odd": {"restarts": "50"}}
	for _, b := range []string{"milp-odd", "sat-odd"} {
		res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: b, TimeLimit: 5 * time.Minute, Threads: 1, Options: opts[b]})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Optimal {
			t.Fatalf("%s: %s, objective %v, bound %v", b, res.Status, res.Objective, res.LowerBound)
		}
		t.Logf("%s: %v proved in %.1fs", b, res.Objective, res.Seconds)
		objs = append(objs, res.Objective)
	}
	if math.Abs(objs[0]-objs[1]) > 1e-9 {
		t.Fatalf("milp-odd proves %v, sat-odd %v", objs[0], objs[1])
	}
}

// TestHugeAlpha: every alpha the problem accepts (up to 1e300) solves
// with the default cuts as it does without them: the cut rows whose node
// coefficient would pass a solver's range are left out and named in the
// stats, and the optimum is the best diagram with the root alone.
func TestHugeAlpha(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS not compiled in (-tags highs)")
	}
	d, err := model.ReadFile("../../testdata/soybean-small-s1.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range [][]int{{1, 2}, {1, 2, 2}} {
		for _, alpha := range []float64{1e10, 1e20, 1e300} {
			p := model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: sk, Alpha: alpha}
			res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "milp-odd", TimeLimit: time.Minute})
			if err != nil {
				t.Fatalf("skeleton %v alpha %g: %v", sk, alpha, err)
			}
			plain, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "milp-odd", TimeLimit: time.Minute,
				Options: map[string]string{"diagram-cut": "false", "count-cut": "false"}})
			if err != nil {
				t.Fatalf("skeleton %v alpha %g without cuts: %v", sk, alpha, err)
			}
			if !res.Optimal || !plain.Optimal || res.Objective != plain.Objective || res.Model.InternalNodes() != 1 {
				t.Errorf("skeleton %v alpha %g: %v (optimal %v, %d nodes), without cuts %v (optimal %v)", sk, alpha,
					res.Objective, res.Optimal, res.Model.InternalNodes(), plain.Objective, plain.Optimal)
			}
			if left, _ := res.Stats["cuts_left_out"].(string); !strings.Contains(left, "cut_") {
				t.Errorf("skeleton %v alpha %g: no cut named as left out (stats %v)", sk, alpha, res.Stats["cuts_left_out"])
			}
		}
	}
}
