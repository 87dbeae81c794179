package sparse

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/dp/internal/view"
	"github.com/odtkit/odtkit/model"
)

// Perfect reports whether a problem asks for a tree with no training
// error: the min-depth, min-size or min-nodes objective, which
// SolvePerfectJob answers.
func Perfect(p model.Problem) bool {
	return p.Objective.Consistent()
}

// PerfectParams are the options of a DP backend that solves the
// consistent-tree objectives: drop-conflicts, as the SAT backends have
// it.
func PerfectParams() []backend.Param {
	return []backend.Param{
		backend.BoolParam("drop-conflicts", false, "min-depth, min-size, min-nodes: drop rows whose features equal another row's with a different label (keeping each group's majority label) instead of failing"),
	}
}

// DepthCap is the largest depth a consistent-tree problem lets the search
// try, and whether there is one (Problem.DepthLimit: 0 is a single leaf).
func DepthCap(p model.Problem) (int, bool) { return p.DepthLimit() }

// SolvePerfectJob solves a min-depth, min-size or min-nodes job on its
// binary view (SolvePerfect) and reports the result as the SAT backends
// do: the objective is the tree's depth, or its nodes (internal nodes plus
// leaves); rows with identical features and different labels fail with
// model.ErrConflict, or are dropped with the drop-conflicts option
// (Result.DroppedRows); the lower bound is the least depth not refuted,
// or for min-size and min-nodes max(2·that+1, 2·leaves bound−1). A stopped search
// returns the best tree found: the consistent tree of its depth, else a
// greedy tree grown to purity when it is consistent and within the
// limits.
func SolvePerfectJob(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	p := job.Problem
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	keep, dropped, err := job.Data.ConsistentRows(o.DropConflicts)
	if err != nil {
		return nil, backend.Invalid(err)
	}
	return view.Solve(ctx, job, func(v *model.BinaryView) (*model.Result, error) {
		size := p.Objective == model.MinSize
		nodes := p.Objective == model.MinNodes
		depthCap, capped := DepthCap(p)
		// last is the best tree reported: incumbents strictly improve.
		var last *model.Graph
		cfg := PerfectConfig{Size: size, Nodes: nodes, MaxDepth: depthCap, LeafOnly: capped && depthCap == 0, MaxNodes: p.MaxNodes, MinSupport: p.MinSupport,
			Keep: keep, Budget: job.Budget, Report: func(g *model.Graph) {
				obj := p.Evaluate(job.Data, g)
				if last == nil || obj < p.Evaluate(job.Data, last) {
					last = g
					job.Report.Report(obj, g)
				}
			}}
		// A greedy tree grown to purity is a first incumbent when it is
		// consistent and within the limits (not a proof of anything).
		if dropped == 0 {
			if g, werr := cart.Grow(ctx, v, -1, cart.Config{MinLeaf: p.MinSupport}); werr == 0 && ctx.Err() == nil &&
				(depthCap == 0 || g.Depth() <= depthCap) && (p.MaxNodes <= 0 || g.InternalNodes() <= p.MaxNodes) {
				cfg.Report(g)
			}
		}
		r := SolvePerfect(ctx, v, cfg)
		stats := map[string]any{"engine": "consistent-tree search", "branches": r.Branches}
		res := &model.Result{DroppedRows: dropped, Stats: stats, LowerBound: float64(r.DepthLB)}
		if size || nodes {
			res.LowerBound = float64(max(2*r.DepthLB+1, 2*r.LeavesLB-1))
		}
		if v.Coarse {
			// Refutations on a coarse view refute nothing on the data.
			r.Optimal, r.Infeasible, res.LowerBound = false, false, 0
			stats["binary_view"] = fmt.Sprintf("coarse: %d of %d tests (the exact view does not fit the memory cap)", len(v.Tests), v.FullTests)
		}
		if r.Infeasible {
			res.Infeasible = true
			stats["reason"] = "no tree with no training error within the depth, node and support limits"
			return res, nil
		}
		g := r.Tree
		if g == nil || !r.Optimal && last != nil && p.Evaluate(job.Data, last) < p.Evaluate(job.Data, g) {
			g = last
		}
		if g == nil {
			view.Stopped(res, r.MemoryStop)
			return res, nil
		}
		res.Model = g
		res.Errors = g.Errors(job.Data)
		res.Objective = p.Evaluate(job.Data, g)
		if r.Optimal {
			res.LowerBound, res.Proved = res.Objective, true
		}
		res.LowerBound = min(res.LowerBound, res.Objective)
		view.Stopped(res, r.MemoryStop)
		return res, nil
	})
}
