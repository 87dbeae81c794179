package satodd

import (
	"context"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Decode reads a MaxSAT or PB solver's answer for the exported formula
// and verifies it like sat-odt's decode: every variable assigned, hard
// clauses satisfied, a cost line equal to the model's cost, and at a
// claimed optimum the model's cost equal to its diagram's. The claimed
// optimum is the result's claimed bound, not a proof.
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	p, f, costs, err := formula(ctx, job)
	if err != nil {
		return nil, err
	}
	a, err := sat.ParseAnswer(r, f.CNF.NumVars)
	if err != nil {
		return nil, backend.Answer(backend.Invalidf("solver output: %w", err))
	}
	res, err = answerResult(job, p, f, costs, a)
	if err != nil {
		if a.Status == sat.OptUnsatisfiable {
			// A wrong claim, not a malformed file: the solver failed.
			return nil, backend.Answer(err)
		}
		return nil, backend.Answer(backend.Invalid(err)) // the answer file is the bad input
	}
	return res, nil
}

// answerResult verifies a solver's answer for the formula f and turns
// it into a result: the model satisfies the hard clauses, a claimed
// cost is its soft literals' cost, and at a claimed optimum that cost is
// its diagram's (a model whose soft literals overcount is not optimal).
func answerResult(job *backend.Job, p *satjob.Prepared, f *Encoding, costs Costs, a *sat.Answer) (*model.Result, error) {
	res := &model.Result{Stats: map[string]any{"solver_status": string(a.Status), "cost_error": costs.Error, "cost_node": costs.Node,
		"variables": f.CNF.NumVars, "clauses": f.CNF.NumClauses()}}
	if a.Status == sat.OptUnsatisfiable {
		return nil, fmt.Errorf("%w: the solver claims the formula unsatisfiable, but the root stump satisfies it", sat.ErrOutput)
	}
	if a.Model == nil {
		res.Stop = model.StopNone // read to its end: no model
		return res, nil
	}
	val, cost, err := maxsat.Check(a, f.CNF, f.Soft, "were the skeleton and alpha the same as for the export?")
	if err != nil {
		return nil, err
	}
	g, err := f.Decode(p, val)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sat.ErrOutput, err)
	}
	d := job.Data
	res.Model, res.Errors, res.Objective = g, g.Errors(d), job.Problem.Evaluate(d, g)
	res.Stop = model.StopNone
	res.LowerBound = min(objectiveOf(p.Floor*costs.Error, costs, totalWeight(d)), res.Objective)
	if a.Status == sat.OptOptimum {
		if int64(costs.Cost(d, g)) != cost {
			return nil, fmt.Errorf("%w: the solver claims an optimum of cost %d, but its diagram costs %d: the model is not optimal", sat.ErrOutput, cost, costs.Cost(d, g))
		}
		// The solver's word: a claimed bound, not odtkit's proof.
		res.Claim(res.Objective, maxsat.Claimant(a))
	}
	return res, nil
}

// Decode reads the diagram of an assignment: the active nodes reachable
// from the root, their first true test and their arcs.
func (f *Encoding) Decode(p *satjob.Prepared, val func(sat.Lit) bool) (*model.Graph, error) {
	d := p.View.Data
	b := model.NewBuilder(d, model.KindDiagram)
	id := make([]int, f.NumNodes)
	leaf := make([]int, f.Classes)
	for k := range leaf {
		leaf[k] = -1
	}
	for l := len(f.Layers) - 1; l >= 0; l-- {
		var next []int
		if l+1 < len(f.Layers) {
			next = f.Layers[l+1]
		}
		for _, u := range f.Layers[l] {
			id[u] = -1
			if !val(f.A.Lit(u)) {
				continue
			}
			t := -1
			for i := range p.Tests {
				if val(f.F.Lit(u, i)) {
					t = i
					break
				}
			}
			if t < 0 {
				return nil, fmt.Errorf("satodd: active node %d tests nothing", u)
			}
			var side [2]int
			for s := range 2 {
				side[s] = -1
				for i, a := range f.Arc[s][u] {
					if !val(a) {
						continue
					}
					if i < len(next) {
						side[s] = id[next[i]]
					} else {
						k := i - len(next)
						if leaf[k] < 0 {
							leaf[k] = b.Leaf(k)
						}
						side[s] = leaf[k]
					}
					break
				}
				if side[s] < 0 {
					return nil, fmt.Errorf("satodd: active node %d has no arc to an active target on side %d", u, s)
				}
			}
			id[u] = b.Split(p.View.Tests[p.Tests[t]], side[0], side[1])
		}
	}
	g := b.Graph(id[0])
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("satodd: %w", err)
	}
	return g, nil
}
