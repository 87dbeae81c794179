//go:build unix

package satodt_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/encode/maxsat/maxsattest"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/model"
)

func voteJob(t *testing.T, depth int, opts map[string]string) (*model.Dataset, *backend.Job) {
	t.Helper()
	d, err := model.ReadFile("../../testdata/vote.txt", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := backend.NewJob(satodt.Backend{}.Info(), d, model.Problem{MaxDepth: depth}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d, job
}

// TestExternalMaxSATSolvers runs the formula on clasp (WCNF) and
// minisat+ (OPB) when installed: each finds dl85's optimum and claims
// it, a claim the result records apart from odtkit's own bound.
func TestExternalMaxSATSolvers(t *testing.T) {
	d, _ := voteJob(t, 2, nil)
	for _, c := range []struct {
		bin, cmd, format string
		depth            int
	}{
		{"clasp", "clasp {in}", "wcnf", 2},
		{"minisat+", "minisat+ {in}", "opb", 1},
	} {
		ref := solve(t, dl85.Backend{}, d, model.Problem{MaxDepth: c.depth}, nil)
		if _, err := exec.LookPath(c.bin); err != nil {
			t.Logf("%s not installed (apt-get install %s): skipped", c.bin, c.bin)
			continue
		}
		job, err := backend.NewJob(satodt.Backend{}.Info(), d, model.Problem{MaxDepth: c.depth}, map[string]string{"maxsat-solver": "external:" + c.cmd, "format": c.format})
		if err != nil {
			t.Fatal(err)
		}
		res, err := satodt.Backend{}.Solve(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		if res.Objective != ref.Objective || res.ClaimedBound == nil || *res.ClaimedBound != ref.Objective || !strings.Contains(res.ClaimedBy, c.bin) || res.LowerBound >= ref.Objective {
			t.Errorf("%s: objective %v, claimed bound %v by %q, lower bound %v; dl85 %v", c.bin, res.Objective, res.ClaimedBound, res.ClaimedBy, res.LowerBound, ref.Objective)
		}
	}
}

// TestExternalDIMACSSolver: the incremental search on minisat (re-run
// for every bound, the bound's assumption as a unit clause) proves
// dl85's optimum.
func TestExternalDIMACSSolver(t *testing.T) {
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat not installed (apt-get install minisat)")
	}
	d, err := model.ReadFile("../../testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := model.Problem{MaxDepth: 2}
	ref := solve(t, dl85.Backend{}, d, p, nil)
	res := solve(t, satodt.Backend{}, d, p, map[string]string{"sat-solver": "external:minisat {in} {out}"})
	if res.Objective != ref.Objective {
		t.Errorf("sat-odt on minisat: %v, dl85 %v", res.Objective, ref.Objective)
	}
}

// TestExternalMaxSATClaims: a solver whose model breaks a hard clause,
// or whose cost line is not its model's cost, is an error, never a
// result; an unknown command is refused before any work.
func TestExternalMaxSATClaims(t *testing.T) {
	for name, body := range map[string]string{
		"falsifies hard clause":        "echo 's OPTIMUM FOUND'; echo 'o 0'; echo v $(seq -s ' ' -f '-%g' 1 5000) 0\n",
		"gives no value to variable 2": "echo 's OPTIMUM FOUND'; echo 'o 0'; echo 'v -1 0'\n",
		"formula unsatisfiable":        "echo 's UNSATISFIABLE'\n",
	} {
		_, job := voteJob(t, 1, map[string]string{"maxsat-solver": "external:" + maxsattest.Script(t, body)})
		res, err := satodt.Backend{}.Solve(context.Background(), job)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: result %+v, error %v", name, res, err)
		}
	}
	if _, err := exec.LookPath("clasp"); err == nil {
		// clasp's true optimum with a lying cost line.
		_, job := voteJob(t, 1, map[string]string{"maxsat-solver": "external:" + maxsattest.Script(t, "clasp \"$1\" | sed 's/^o .*/o 0/'\n")})
		res, err := satodt.Backend{}.Solve(context.Background(), job)
		if err == nil || !strings.Contains(err.Error(), "claims cost 0") {
			t.Errorf("a wrong cost line: result %+v, error %v", res, err)
		}
	}
	if _, err := backend.NewJob(satodt.Backend{}.Info(), &model.Dataset{}, model.Problem{MaxDepth: 1}, map[string]string{"maxsat-solver": "clasp"}); err == nil {
		t.Error("maxsat-solver=clasp (no external:) accepted")
	}
}

// TestExternalMaxSATMalformed: a malformed maxsat-solver option in a
// job made without backend.NewJob is refused, not ignored.
func TestExternalMaxSATMalformed(t *testing.T) {
	d, job := voteJob(t, 2, nil)
	maxsattest.Malformed(t, satodt.Backend{}, d, job.Problem)
}

// TestExternalMaxSATStopped: a solver still running at the time limit
// is killed, its temporary files are removed, and the result is the
// incumbent, unproven, soon after the deadline.
func TestExternalMaxSATStopped(t *testing.T) {
	d, _ := voteJob(t, 2, nil)
	maxsattest.Stopped(t, func(ctx context.Context, spec string) (*model.Result, error) {
		_, job := voteJob(t, 2, map[string]string{"maxsat-solver": spec})
		return satodt.Backend{}.Solve(ctx, job)
	}, func(g *model.Graph) float64 { return g.WeightedErrors(d) })
}
