//go:build unix

package maxsat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/maxsat/maxsattest"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// info is a backend that takes the package's options.
var info = backend.Info{Name: "test", Objectives: []model.Objective{model.MinError}, Params: maxsat.Params()}

// leafRun is a run on data of four rows (classes 0 0 0 1) whose
// incumbent is the leaf of class 1 (three errors) and whose Verify
// answers with the leaf of class 0 (one error), optimal when the solver
// says OPTIMUM FOUND, or with the incumbent itself when worse is set.
func leafRun(t *testing.T, body string, worse bool) (*backend.Job, maxsat.Run) {
	t.Helper()
	d := &model.Dataset{Name: "four", Classes: []string{"a", "b"}, Labels: []int{0, 0, 0, 1},
		Features: []model.Feature{{Name: "x", Values: []float64{0, 1, 0, 1}}}}
	job, err := backend.NewJob(info, d, model.Problem{MaxDepth: 1}, map[string]string{"format": "wcnf"})
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(k int) *model.Graph { b := model.NewBuilder(d, model.KindTree); return b.Graph(b.Leaf(k)) }
	inc := leaf(1)
	c := &sat.CNF{}
	x := c.NewVar()
	c.Add(x)
	path := maxsattest.Script(t, body)
	return job, maxsat.Run{
		Argv: []string{path, "{in}"}, CNF: c, Soft: []sat.WeightedLit{{Lit: x, Weight: 1}},
		Verify: func(a *sat.Answer) (*model.Result, error) {
			res := &model.Result{Status: model.StatusFeasible, Stats: map[string]any{"solver_status": string(a.Status)}}
			if a.Model == nil {
				res.Status = model.StatusNoSolution
				return res, nil
			}
			res.Model = leaf(0)
			if worse {
				res.Model = leaf(1)
			}
			res.Errors = res.Model.Errors(d)
			res.Objective = float64(res.Errors)
			if a.Status == sat.OptOptimum {
				res.Claim(res.Objective, maxsat.Claimant(a))
			}
			return res, nil
		},
		Incumbent: inc, Objective: 3, LowerBound: 0,
	}
}

// TestSolveClaims: a claimed optimum is the result with its claimed
// bound, named by the solver's command, never proven optimal; a claimed
// optimum worse than the incumbent is an error; a solver that gives no model
// leaves the incumbent, unproven, with its stderr in the statistics; an
// answer that is no solver's answer is an error quoting it.
func TestSolveClaims(t *testing.T) {
	job, r := leafRun(t, "echo 's OPTIMUM FOUND'; echo 'v 1'\n", false)
	res, err := maxsat.Solve(context.Background(), job, r)
	if err != nil || res.Optimal || res.Objective != 1 || res.LowerBound != 0 || res.ClaimedBound == nil || *res.ClaimedBound != 1 || !strings.Contains(res.ClaimedBy, "solver.sh") {
		t.Errorf("a claimed optimum: %+v, %v", res, err)
	}

	job, r = leafRun(t, "echo 's OPTIMUM FOUND'; echo 'v 1'\n", true)
	r.Incumbent, r.Objective = res.Model, 1 // known: one error; the claim has three
	res, err = maxsat.Solve(context.Background(), job, r)
	if err == nil || !strings.Contains(err.Error(), "claims an optimum of objective 3, but a known model has 1") {
		t.Errorf("an optimum worse than a known model: %+v, %v", res, err)
	}

	job, r = leafRun(t, "echo 's UNKNOWN'; echo 'cannot read the file' >&2\n", false)
	res, err = maxsat.Solve(context.Background(), job, r)
	if err != nil || res.Optimal || res.Model != r.Incumbent || !strings.Contains(res.Stats["solver_stderr"].(string), "cannot read") {
		t.Errorf("no model: %+v, %v", res, err)
	}

	job, r = leafRun(t, "echo 'hello'\n", false)
	res, err = maxsat.Solve(context.Background(), job, r)
	if err == nil || !strings.Contains(err.Error(), "hello") {
		t.Errorf("not an answer: %+v, %v", res, err)
	}
}

// TestCommand: the empty specification is the in-process search; an
// external command is split into words; anything else is refused.
func TestCommand(t *testing.T) {
	if argv, err := maxsat.Command(" "); argv != nil || err != nil {
		t.Errorf("empty: %v, %v", argv, err)
	}
	if argv, err := maxsat.Command(`external:clasp {in} '--time-limit=5'`); err != nil || strings.Join(argv, "|") != "clasp|{in}|--time-limit=5" {
		t.Errorf("external: %q, %v", argv, err)
	}
	for _, bad := range []string{"clasp", "external:", `external:"clasp`} {
		if _, err := maxsat.Command(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
