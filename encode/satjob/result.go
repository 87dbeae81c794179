package satjob

import (
	"context"
	"errors"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// ClaimUnchecked makes the bound of res that rests on n refutations of
// an external SAT solver (spec, its sat-solver option) that solver's
// claim instead of odtkit's proof: res.LowerBound (the objective when
// proved) is claimed, and the bound falls to floor, what holds without
// the refutations. Nothing changes when n is zero.
func ClaimUnchecked(res *model.Result, n int, spec string, floor float64) {
	if n == 0 {
		return
	}
	claimed := res.LowerBound
	res.LowerBound = min(res.LowerBound, floor)
	res.Claim(claimed, "external SAT solver "+strings.TrimPrefix(spec, "external:"))
	res.Stats["unchecked_refutations"] = n
}

// NoteChecked records in res's stats (checked_refutations) the n
// refutations of an external SAT solver whose proofs odtkit checked:
// the bounds resting on them are proven, the solver having only found
// them. Nothing changes when n is zero.
func NoteChecked(res *model.Result, n int) {
	if n > 0 {
		res.Stats["checked_refutations"] = n
	}
}

// ErrNoTree is the error of a search of a consistent tree that ended
// without one, unstopped.
var ErrNoTree = errors.New("no tree found")

// Found puts the tree g a search of a consistent tree (sat-depth,
// sat-size, sat-dt1) found into res, a result of backend name: its
// errors, objective and the lower bound capped by it; when the search
// proved g optimal and was not stopped, the bound is the objective and
// the result gets its certificate (Conclude with cert). Without a tree
// res stays as it is when the search was stopped; otherwise Found
// returns ErrNoTree.
func Found(ctx context.Context, job *backend.Job, name string, res *model.Result, g *model.Graph, optimal, stopped bool, cert *sat.Certifier) error {
	if g == nil {
		if stopped {
			return nil
		}
		return ErrNoTree
	}
	res.Model = g
	res.Errors = g.Errors(job.Data)
	res.Objective = job.Problem.Evaluate(job.Data, g)
	res.LowerBound = min(res.LowerBound, res.Objective)
	if optimal && !stopped {
		res.LowerBound, res.Proved = res.Objective, true
		return Conclude(ctx, job, name, res, cert)
	}
	return nil
}
