package flowoct_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// decomposeLevels are the decomposition's settings the tests compare:
// the one MILP, the root enumerated, two levels enumerated.
var decomposeLevels = []string{"0", "1", "2"}

// forms are the formulations the tests compare: the MILP as published,
// the tight one alone, and the tight form decomposed by one and two
// levels.
var forms = []map[string]string{
	{"decompose": "0", "tight": "false"},
	{"decompose": "0"},
	{"decompose": "1"},
	{"decompose": "2"},
}

// TestDecompositionAgreesWithMonolithAndDL85: on generated data (binary
// and numeric, two and three classes, weights, a leaf cost, a minimum
// leaf support, a node limit, depths 2 to 4), the decomposition by root
// test proves the optimum of the one MILP and of dl85, and its tree
// re-evaluates to its objective.
func TestDecompositionAgreesWithMonolithAndDL85(t *testing.T) {
	needHiGHS(t)
	cases := []struct {
		n, f, k          int
		numeric, weights bool
		p                model.Problem
	}{
		{30, 5, 2, false, false, model.Problem{MaxDepth: 2}},
		{30, 4, 3, true, false, model.Problem{MaxDepth: 2}},
		{26, 5, 2, false, true, model.Problem{MaxDepth: 3}},
		{24, 3, 3, true, true, model.Problem{MaxDepth: 3}},
		{20, 4, 2, true, false, model.Problem{MaxDepth: 4}},
		{24, 4, 2, false, false, model.Problem{MaxDepth: 3, LeafCost: 0.03}},
		{22, 3, 3, true, true, model.Problem{MaxDepth: 2, LeafCost: 0.05}},
		{24, 4, 2, true, false, model.Problem{MaxDepth: 3, MinSupport: 3}},
		{20, 4, 3, false, true, model.Problem{MaxDepth: 2, MinSupport: 4}},
		{24, 4, 2, true, false, model.Problem{MaxDepth: 3, MaxNodes: 2}},
	}
	for i, c := range cases {
		d := randomData(uint64(200+i), c.n, c.f, c.k, c.numeric, c.weights)
		dl := solve(t, d, c.p, "dl85", nil)
		for _, o := range forms {
			res := solve(t, d, c.p, "milp-flowoct", o)
			if math.Abs(res.Objective-dl.Objective) > 1e-9 {
				t.Errorf("%s %+v %v: milp-flowoct %v, dl85 %v", d.Name, c.p, o, res.Objective, dl.Objective)
			}
			if got := c.p.Evaluate(d, res.Model); math.Abs(got-res.Objective) > 1e-9 {
				t.Errorf("%s %+v %v: objective %v, the tree's %v", d.Name, c.p, o, res.Objective, got)
			}
			if o["decompose"] != "0" && c.p.MaxNodes == 0 {
				if _, ok := res.Stats["sub_milps"]; !ok {
					t.Errorf("%s %+v %v: no sub_milps in the stats %v", d.Name, c.p, o, res.Stats)
				}
			}
		}
	}
}

// TestDecompositionMinSupportInfeasible: a minimum support that no tree
// meets (more than the rows) is infeasible, as the one MILP says.
func TestDecompositionMinSupportInfeasible(t *testing.T) {
	needHiGHS(t)
	d := randomData(230, 10, 3, 2, false, false)
	p := model.Problem{MaxDepth: 2, MinSupport: 11}
	for _, lv := range decomposeLevels {
		res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "milp-flowoct", Options: map[string]string{"decompose": lv}, Threads: 1})
		if err != nil {
			t.Fatalf("decompose=%s: %v", lv, err)
		}
		if res.Status != model.StatusInfeasible || res.Model != nil {
			t.Errorf("decompose=%s: %s, model %v", lv, res.Status, res.Model != nil)
		}
	}
}

// TestDecompositionStoppedBound: stopped by a deadline or a
// cancellation, the decomposition returns its best tree, re-evaluated,
// with a bound at most dl85's optimum.
func TestDecompositionStoppedBound(t *testing.T) {
	needHiGHS(t)
	d := randomData(240, 400, 12, 3, true, true)
	p := model.Problem{MaxDepth: 3}
	opt := solve(t, d, p, "dl85", nil).Objective
	for _, lv := range []string{"1", "2"} {
		for _, stop := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond} {
			for _, how := range []string{"deadline", "cancel"} {
				name := fmt.Sprintf("decompose=%s %s after %v", lv, how, stop)
				ctx, cancel := context.WithCancel(context.Background())
				if how == "deadline" {
					ctx, cancel = context.WithTimeout(context.Background(), stop)
				} else {
					time.AfterFunc(stop, cancel)
				}
				begin := time.Now()
				res, err := odtkit.Solve(ctx, d, p, odtkit.Settings{Backend: "milp-flowoct", Options: map[string]string{"decompose": lv}, Threads: 1})
				cancel()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if took := time.Since(begin); took > stop+time.Second {
					t.Errorf("%s: returned after %v", name, took)
				}
				if res.Model == nil {
					t.Errorf("%s: no model (%s)", name, res.Status)
					continue
				}
				if got := p.Evaluate(d, res.Model); math.Abs(got-res.Objective) > 1e-9 {
					t.Errorf("%s: objective %v, the model's %v", name, res.Objective, got)
				}
				if res.LowerBound > opt+1e-9 || res.Objective < opt-1e-9 {
					t.Errorf("%s: bound %v, objective %v around the optimum %v", name, res.LowerBound, res.Objective, opt)
				}
				if res.Optimal && math.Abs(res.Objective-opt) > 1e-9 {
					t.Errorf("%s: claims the optimum %v, dl85 %v", name, res.Objective, opt)
				}
				// A run the deadline or the cancel ended says so, even when a
				// sub-MILP's own limit, just short of the deadline, ended first.
				if !res.Optimal && res.Status != model.StatusTimeLimit && res.Status != model.StatusCancelled {
					t.Errorf("%s: status %s for a run ended by its %s", name, res.Status, how)
				}
				t.Logf("%s: %s, objective %v, bound %v, optimum %v", name, res.Status, res.Objective, res.LowerBound, opt)
			}
		}
	}
}

// TestPublishedConformance runs the backend conformance suite with the
// MILP as published (no decomposition, no tight linking).
func TestPublishedConformance(t *testing.T) {
	needHiGHS(t)
	c := backendtest.Config{Verify: odtkit.Verify, Options: forms[0], Brute: 6, Rows: 12, Objective: model.MinError}
	if testing.Short() {
		c.Brute = 3
	}
	b, _ := odtkit.DefaultRegistry().Get("milp-flowoct")
	backendtest.Run(t, b, c)
}

// TestTightDepthOneLPIsTheOptimum: the LP relaxation of the tight
// depth-1 MILP is the optimum (dl85's), where the published MILP's is
// below it.
func TestTightDepthOneLPIsTheOptimum(t *testing.T) {
	needHiGHS(t)
	weaker := 0
	for i := range 6 {
		d := randomData(uint64(250+i), 40, 5, 2+i%2, i%2 == 1, i%3 == 0)
		opt := solve(t, d, model.Problem{MaxDepth: 1}, "dl85", nil).Objective
		for _, tight := range []bool{true, false} {
			e, err := flowoct.Encode(context.Background(), model.Binarize(d), flowoct.Options{Depth: 1, Tight: tight})
			if err != nil {
				t.Fatal(err)
			}
			sol, err := milp.HiGHS().Solve(context.Background(), milp.Relaxation(e.Model), milp.Params{Threads: 1})
			if err != nil || sol.Status != milp.StatusOptimal {
				t.Fatalf("%s: LP %v %v", d.Name, sol, err)
			}
			switch {
			case tight && math.Abs(sol.Objective-opt) > 1e-6:
				t.Errorf("%s: tight LP bound %v, optimum %v", d.Name, sol.Objective, opt)
			case !tight && sol.Objective > opt+1e-6:
				t.Errorf("%s: published LP bound %v above the optimum %v", d.Name, sol.Objective, opt)
			case !tight && sol.Objective < opt-1e-6:
				weaker++
			}
		}
	}
	if weaker == 0 {
		t.Error("the published LP bound met the optimum on every case: the cases do not tell the forms apart")
	}
}

// TestPerfectDecompositionAgreesWithSAT: min-depth and min-size asked
// depth by depth through the decomposition (the default) and through
// the one MILP (decompose=0) equal sat-depth's and sat-size's, on
// generated data with and without fractional row weights.
func TestPerfectDecompositionAgreesWithSAT(t *testing.T) {
	needHiGHS(t)
	for i := range 4 {
		base := consistentData(uint64(270+i), 14+3*i, 5, 2+i%2)
		for _, obj := range []model.Objective{model.MinDepth, model.MinSize} {
			p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
			sat := "sat-depth"
			if obj == model.MinSize {
				sat = "sat-size"
			}
			// The SAT backends take no weights; a tree with no error
			// does not depend on them.
			want := solve(t, base, p, sat, nil).Objective
			d := base
			if i%2 == 1 {
				w := *base
				w.Weights = nil
				for r := range d.Rows() {
					w.Weights = append(w.Weights, 0.5+float64(r%3)/4)
				}
				d = &w
			}
			for _, o := range []map[string]string{nil, {"decompose": "0"}} {
				res := solve(t, d, p, "milp-flowoct", o)
				if res.Objective != want || res.Errors != 0 {
					t.Errorf("%s %s %v: milp-flowoct %v (%d errors), %s %v", d.Name, obj, o, res.Objective, res.Errors, sat, want)
				}
			}
		}
	}
}

// TestPerfectDecompositionMonk1: monk1's minimum depth, proven by the
// decomposition, is sat-depth's.
func TestPerfectDecompositionMonk1(t *testing.T) {
	needHiGHS(t)
	d, err := model.ReadFile(filepath.Join("..", "..", "testdata", "monk1.csv"), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}
	want := solve(t, d, p, "sat-depth", nil).Objective
	res := solve(t, d, p, "milp-flowoct", nil)
	if res.Objective != want || res.Errors != 0 {
		t.Errorf("monk1: milp-flowoct depth %v (%d errors), sat-depth %v", res.Objective, res.Errors, want)
	}
	if _, ok := res.Stats["sub_milps"]; !ok {
		t.Errorf("monk1: no sub_milps in the stats %v", res.Stats)
	}
}

// TestPerfectDecompositionStoppedBound: min-size stopped by a deadline
// returns a tree with no error and a bound at most sat-size's optimum.
func TestPerfectDecompositionStoppedBound(t *testing.T) {
	needHiGHS(t)
	d := consistentData(290, 120, 8, 3)
	p := model.Problem{Objective: model.MinSize, MaxDepth: model.NoDepthLimit}
	want := solve(t, d, p, "sat-size", nil).Objective
	for _, stop := range []time.Duration{200 * time.Millisecond, time.Second} {
		ctx, cancel := context.WithTimeout(context.Background(), stop)
		res, err := odtkit.Solve(ctx, d, p, odtkit.Settings{Backend: "milp-flowoct", Threads: 1})
		cancel()
		if err != nil {
			t.Fatalf("%v: %v", stop, err)
		}
		if res.LowerBound > want {
			t.Errorf("%v: bound %v above the optimum %v", stop, res.LowerBound, want)
		}
		if res.Model != nil && (res.Errors != 0 || res.Objective < want || float64(res.Model.Size()) != res.Objective) {
			t.Errorf("%v: size %v, %d errors, optimum %v", stop, res.Objective, res.Errors, want)
		}
		if res.Optimal && res.Objective != want {
			t.Errorf("%v: claims %v, sat-size %v", stop, res.Objective, want)
		}
		t.Logf("%v: %s, %v ≥ %v, optimum %v", stop, res.Status, res.Objective, res.LowerBound, want)
	}
}

// TestDecompositionAdmitsWhatItSolves: under a memory cap between the
// estimate of the depth-3 MILP and that of the depth-1 subtree MILPs the
// decomposition builds, the decomposed solve (and --check, through
// Size) admits the job and proves dl85's optimum, and the one MILP
// (decompose=0) is refused before it is built. It runs in a process of
// its own: the cap also stops HiGHS when the process's resident memory
// nears it, and what the package's earlier tests left resident would
// count against it.
func TestDecompositionAdmitsWhatItSolves(t *testing.T) {
	needHiGHS(t)
	if os.Getenv("ODTKIT_FLOWOCT_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDecompositionAdmitsWhatItSolves$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "ODTKIT_FLOWOCT_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the test in its own process: %v\n%s", err, out)
		}
		return
	}
	d := randomData(77, 400, 12, 2, true, false)
	p := model.Problem{MaxDepth: 3}
	sizeOf := func(opts map[string]string) int64 {
		job, err := backend.NewJob(flowoct.Backend{}.Info(), d, p, opts)
		if err != nil {
			t.Fatal(err)
		}
		s, err := flowoct.Backend{}.Size(job)
		if err != nil {
			t.Fatal(err)
		}
		return s.Bytes
	}
	whole, sub := sizeOf(map[string]string{"decompose": "0"}), sizeOf(nil)
	if sub >= whole*4/5 {
		t.Fatalf("the decomposed estimate %d is not well below the one MILP's %d", sub, whole)
	}
	mb := int((sub+whole)/2) >> 20
	set := odtkit.Settings{Backend: "milp-flowoct", Threads: 1, MemoryLimitMB: mb}
	if err := odtkit.Check(d, p, set); err != nil {
		t.Fatalf("decomposed, %d MB: %v", mb, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := odtkit.Solve(ctx, d, p, set)
	if err != nil {
		t.Fatalf("decomposed, %d MB: %v", mb, err)
	}
	dl := solve(t, d, p, "dl85", nil)
	if !res.Optimal || math.Abs(res.Objective-dl.Objective) > 1e-9 {
		t.Fatalf("decomposed, %d MB: %s %v, dl85 %v", mb, res.Status, res.Objective, dl.Objective)
	}
	set.Options = map[string]string{"decompose": "0"}
	if _, err := odtkit.Solve(ctx, d, p, set); !errors.Is(err, backend.ErrInvalid) {
		t.Fatalf("one MILP, %d MB (estimate %d MB): want a refusal, got %v", mb, whole>>20, err)
	}
}

// TestDecomposedEstimateFitsItsRuns: a decomposed depth-3 solve is
// estimated from its small subtree MILPs (a depth-1 MILP and the
// process's floor, about 32 MiB), not from a large MILP's HiGHS
// overhead: under the 40 MiB cap its runs need, --check and the solve
// admit it, and the solve proves dl85's optimum.
func TestDecomposedEstimateFitsItsRuns(t *testing.T) {
	d, err := model.ReadFile("../../testdata/monk1.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := model.Problem{MaxDepth: 3}
	job, err := backend.NewJob(flowoct.Backend{}.Info(), d, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := flowoct.Backend{}.Size(job)
	if err != nil {
		t.Fatal(err)
	}
	if s.Bytes > 36<<20 || s.Bytes < 16<<20 {
		t.Errorf("decomposed depth-3 estimate %s, want about 32 MiB (measured peaks 27-30 MB)", backend.MB(s.Bytes))
	}
	set := odtkit.Settings{Backend: "milp-flowoct", Threads: 1, MemoryLimitMB: 40}
	if err := odtkit.Check(d, p, set); err != nil {
		t.Fatalf("--check under 40 MiB: %v", err)
	}
	needHiGHS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := odtkit.Solve(ctx, d, p, set)
	if err != nil {
		t.Fatalf("decomposed under 40 MiB: %v", err)
	}
	if dl := solve(t, d, p, "dl85", nil); !res.Optimal || res.Objective != dl.Objective {
		t.Errorf("decomposed under 40 MiB: %s %v, dl85 %v", res.Status, res.Objective, dl.Objective)
	}
}
