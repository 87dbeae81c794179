package cart

import (
	"context"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/view"
	"github.com/odtkit/odtkit/model"
)

// Backend is the greedy tree (Grow) behind odtkit's solver contract,
// registered as "cart". The zero value is ready to use.
type Backend struct{}

// Info describes the "cart" backend: neither exact nor anytime; it
// honours the minimum leaf support, any positive row weights, and, as a
// heuristic, a leaf cost and a node limit (see Config).
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "cart",
		Family:      backend.FamilyHeuristic,
		Description: "greedy top-down tree (Gini impurity), the baseline and first incumbent of the exact solvers",
		Paper:       "Breiman, Friedman, Olshen & Stone, Classification and Regression Trees, 1984",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Caps:        backend.Caps{MinSupport: true, Weights: backend.AnyWeights, LeafCost: true, MaxNodes: true},
		Params: []backend.Param{
			backend.IntParam("min-leaf", 1, "least number of rows in a leaf (the problem's min support when larger)").AtLeast(1),
		},
	}
}

// Solve grows the greedy tree and reports it as the one incumbent (it
// takes time linear in the tests and rows per level, so ctx is not
// consulted). Data
// with fewer rows than the minimum support is infeasible (not even a
// leaf satisfies it).
func (b Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	if n := job.Data.Rows(); n < job.Problem.MinSupport {
		return &model.Result{Infeasible: true, Stats: map[string]any{
			"reason": "fewer rows than the minimum support: no tree satisfies it"}}, nil
	}
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	return view.Solve(ctx, job, func(v *model.BinaryView) (*model.Result, error) {
		p := job.Problem
		g, werr := Grow(ctx, v, p.MaxDepth, Config{MinLeaf: max(o.MinLeaf, p.MinSupport),
			LeafCost: p.LeafCost, MaxNodes: p.MaxNodes})
		if p.LeafCost > 0 {
			werr = p.Evaluate(job.Data, g)
		}
		job.Report.Report(werr, g)
		// Grown to the end, unless ctx stopped it: a heuristic's tree.
		return &model.Result{Model: g, Errors: g.Errors(job.Data), Objective: werr, LowerBound: 0,
			Stop: model.Ended(ctx, false), Stats: map[string]any{"binary_tests": v.NumTests()}}, nil
	})
}
