//go:build unix

package satodd_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat/maxsattest"
	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/encode/satodd"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

func runWith(t *testing.T, d *model.Dataset, p model.Problem, opts map[string]string) *model.Result {
	t.Helper()
	job, err := backend.NewJob(satodd.Backend{}.Info(), d, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := satodd.Backend{}.Solve(ctx, job)
	if err != nil {
		t.Fatalf("%s with %v: %v", d.Name, opts, err)
	}
	if res.Model == nil {
		t.Fatalf("%s with %v: no model", d.Name, opts)
	}
	if o := p.Evaluate(d, res.Model); math.Abs(o-res.Objective) > 1e-9 {
		t.Fatalf("%s with %v: claims %v, its model's objective is %v", d.Name, opts, res.Objective, o)
	}
	return res
}

// TestExternalMaxSATSolvers runs the formula on clasp (classic WCNF; clasp
// 3.3 does not read the 2022 form) and minisat+ (OPB) when installed: each proves the
// in-process optimum, and milp-odd's (with HiGHS; on the rows repeated
// by their weights for weighted data).
func TestExternalMaxSATSolvers(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	problems := []struct {
		d *model.Dataset
		p model.Problem
	}{
		{binaryData(rng, 16, 3, 2), model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}, Alpha: 0.1}},
		{withWeights(rng, binaryData(rng, 12, 3, 3)), model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2, 2}, Alpha: 0.01}},
	}
	solvers := []struct {
		bin, cmd string
		opts     map[string]string
	}{
		{"clasp", "clasp {in}", map[string]string{"format": "wcnf"}},
		{"minisat+", "minisat+ {in}", map[string]string{"format": "opb"}},
	}
	for _, pr := range problems {
		ref := run(t, satodd.Backend{}, pr.d, pr.p)
		if !ref.Optimal {
			t.Fatalf("%s: the in-process search did not prove its optimum", pr.d.Name)
		}
		if milp.HiGHSEnabled {
			m := run(t, odd.DiagramBackend{}, repeated(pr.d), pr.p)
			switch {
			case !m.Optimal:
				t.Logf("%s: milp-odd did not prove its optimum (%v): not compared", pr.d.Name, m.Status)
			case math.Abs(m.Objective-ref.Objective) > 1e-9:
				t.Errorf("%s: sat-odd %v, milp-odd %v", pr.d.Name, ref.Objective, m.Objective)
			}
		}
		for _, s := range solvers {
			if _, err := exec.LookPath(s.bin); err != nil {
				t.Logf("%s not installed (apt-get install %s; scripts/setup.sh installs it): skipped", s.bin, s.bin)
				continue
			}
			opts := map[string]string{"maxsat-solver": "external:" + s.cmd}
			for k, v := range s.opts {
				opts[k] = v
			}
			res := runWith(t, pr.d, pr.p, opts)
			// The solver's optimum is its claim, recorded apart.
			if res.Optimal || res.ClaimedBound == nil || math.Abs(*res.ClaimedBound-ref.Objective) > 1e-9 || !strings.Contains(res.ClaimedBy, s.bin) {
				t.Errorf("%s on %s %v: optimal %v, claimed bound %v by %q", pr.d.Name, s.bin, s.opts, res.Optimal, res.ClaimedBound, res.ClaimedBy)
			}
			if math.Abs(res.Objective-ref.Objective) > 1e-9 {
				t.Errorf("%s on %s %v: %v, in process %v", pr.d.Name, s.bin, s.opts, res.Objective, ref.Objective)
			}
			if res.Stats["maxsat_solver"] != s.cmd {
				t.Errorf("%s on %s: stats name the solver %q", pr.d.Name, s.bin, res.Stats["maxsat_solver"])
			}
		}
	}
}

func externalJob(t *testing.T, spec string) (*model.Dataset, model.Problem, *backend.Job) {
	t.Helper()
	rng := rand.New(rand.NewPCG(43, 44))
	d := binaryData(rng, 16, 3, 2)
	p := model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}, Alpha: 0.1}
	job, err := backend.NewJob(satodd.Backend{}.Info(), d, p, map[string]string{"maxsat-solver": "external:" + spec})
	if err != nil {
		t.Fatal(err)
	}
	return d, p, job
}

// TestExternalMaxSATClaims: a model that breaks a hard clause, a claim
// of unsatisfiability, a cost line that is not the model's cost, and a
// claimed optimum whose soft literals overcount its diagram's cost are
// errors, never results; an unknown solver specification is refused
// before any work.
func TestExternalMaxSATClaims(t *testing.T) {
	for name, body := range map[string]string{
		"falsifies hard clause":        "echo 's OPTIMUM FOUND'; echo 'o 0'; echo v $(seq -s ' ' -f '-%g' 1 5000) 0\n",
		"gives no value to variable 2": "echo 's OPTIMUM FOUND'; echo 'o 0'; echo 'v -1 0'\n",
		"formula unsatisfiable":        "echo 's UNSATISFIABLE'\n",
	} {
		_, _, job := externalJob(t, maxsattest.Script(t, body))
		res, err := satodd.Backend{}.Solve(context.Background(), job)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: result %+v, error %v", name, res, err)
		}
	}
	if _, err := exec.LookPath("clasp"); err != nil {
		t.Log("clasp not installed (apt-get install clasp): the claims on a real answer are not checked")
	} else {
		// clasp's true optimum with a lying cost line.
		_, _, job := externalJob(t, maxsattest.Script(t, "clasp \"$1\" | sed 's/^o .*/o 0/'\n"))
		res, err := satodd.Backend{}.Solve(context.Background(), job)
		if err == nil || !strings.Contains(err.Error(), "claims cost 0") {
			t.Errorf("a wrong cost line: result %+v, error %v", res, err)
		}
		// clasp's optimum with every error literal made true and no cost
		// line: the hard clauses hold, the claimed optimum is not one.
		d, p, _ := externalJob(t, "true")
		var sed []string
		for _, v := range errorVars(t, d, p) {
			sed = append(sed, fmt.Sprintf("-e 's/ -%d\\( \\|$\\)/ %d\\1/g'", v, v))
		}
		_, _, job = externalJob(t, maxsattest.Script(t, "clasp \"$1\" | grep -v '^o ' | sed "+strings.Join(sed, " ")+"\n"))
		res, err = satodd.Backend{}.Solve(context.Background(), job)
		if err == nil || !strings.Contains(err.Error(), "not optimal") {
			t.Errorf("an overcounting model claimed optimal: result %+v, error %v", res, err)
		}
	}
	if _, err := backend.NewJob(satodd.Backend{}.Info(), &model.Dataset{}, model.Problem{Objective: model.DiagramError, Skeleton: []int{1}}, map[string]string{"maxsat-solver": "clasp"}); err == nil {
		t.Error("maxsat-solver=clasp (no external:) accepted")
	}
}

// errorVars are the variables of the formula's error literals (the
// soft literals weighted by a multiple of the error cost, once the node
// literals are left out).
func errorVars(t *testing.T, d *model.Dataset, p model.Problem) []int {
	t.Helper()
	pr, err := satjob.Prepare(context.Background(), model.Binarize(d))
	if err != nil {
		t.Fatal(err)
	}
	costs, err := satodd.ScaledCosts(d.Rows(), p.Skeleton, p.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	f, err := satodd.Encode(context.Background(), pr, p.Skeleton, costs)
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[int]bool{}
	for u := 1; u < f.NumNodes; u++ {
		nodes[f.A.Lit(u).Var()] = true
	}
	var out []int
	for _, s := range f.Soft {
		if !nodes[s.Lit.Var()] {
			out = append(out, s.Lit.Var())
		}
	}
	if len(out) == 0 {
		t.Fatal("no error literal")
	}
	return out
}

// TestExternalMaxSATMalformed: a malformed maxsat-solver option in a
// job made without backend.NewJob is refused, not ignored.
func TestExternalMaxSATMalformed(t *testing.T) {
	d, p, _ := externalJob(t, "true")
	maxsattest.Malformed(t, satodd.Backend{}, d, p)
}

// TestExternalMaxSATStopped: a solver still running at the time limit
// is killed, its temporary files are removed, and the result is the
// stump, unproven, soon after the deadline.
func TestExternalMaxSATStopped(t *testing.T) {
	maxsattest.Stopped(t, func(ctx context.Context, spec string) (*model.Result, error) {
		_, _, job := externalJob(t, spec[len("external:"):])
		return satodd.Backend{}.Solve(ctx, job)
	}, func(g *model.Graph) float64 {
		d, p, _ := externalJob(t, "true")
		return p.Evaluate(d, g)
	})
}
