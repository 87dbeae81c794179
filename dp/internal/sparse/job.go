package sparse

import (
	"context"
	"fmt"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/view"
	"github.com/odtkit/odtkit/model"
)

// Wanted reports whether a problem needs this dynamic program: a leaf
// cost or a node limit. Without them a backend keeps its own engine.
func Wanted(p model.Problem) bool { return p.LeafCost > 0 || p.MaxNodes > 0 }

// Unsupported is the error of a backend refusing its options named opts
// (set) on a problem its engine leaves to this program (Wanted) or to the
// consistent-tree one: they apply only to its own search of the error.
func Unsupported(opts ...string) error {
	list := opts[len(opts)-1]
	if len(opts) > 1 {
		list = strings.Join(opts[:len(opts)-1], ", ") + " and " + list
	}
	return backend.Invalidf("options %s apply to the error objective without leaf cost or node limit", list)
}

// SolveJob solves a job that Wanted on its binary view and returns the
// result as the DP backends report it: the model's objective by
// Problem.Evaluate, its errors, and a lower bound equal to the objective
// when proven optimal (else the objective of no tree better than one leaf
// of zero error: λ, or 0).
func SolveJob(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return view.Solve(ctx, job, func(v *model.BinaryView) (*model.Result, error) {
		p := job.Problem
		r := Solve(ctx, v, Config{MaxDepth: p.MaxDepth, MinSupport: p.MinSupport, MaxNodes: p.MaxNodes, LeafCost: p.LeafCost,
			Budget: job.Budget, Workers: job.Workers()})
		stats := map[string]any{"engine": "sparse", "branches": r.Branches}
		if r.Tree == nil {
			if !r.Optimal {
				res := &model.Result{Stats: stats}
				view.Stopped(res, r.MemoryStop)
				return res, nil
			}
			stats["reason"] = fmt.Sprintf("no leaf holds the minimum support of %d rows", p.MinSupport)
			return &model.Result{Infeasible: true, Stats: stats}, nil
		}
		obj := p.Evaluate(job.Data, r.Tree)
		res := &model.Result{Model: r.Tree, Errors: r.Tree.Errors(job.Data), Objective: obj,
			LowerBound: p.LeafCost, Stats: stats}
		if r.Optimal {
			res.LowerBound, res.Proved = obj, true
		}
		job.Report.Report(obj, r.Tree)
		view.Honest(v, res)
		if v.Coarse && p.LeafCost > 0 {
			// Honest's bound counts errors; in the sparse objective's units a
			// tree has at least one leaf.
			res.LowerBound = min(p.LeafCost, obj)
		}
		view.Stopped(res, r.MemoryStop)
		return res, nil
	})
}
