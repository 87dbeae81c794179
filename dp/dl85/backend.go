package dl85

import (
	"context"
	"errors"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/sparse"
	"github.com/odtkit/odtkit/dp/internal/view"
	"github.com/odtkit/odtkit/model"
)

// Backend is DL8.5 (Solve) behind odtkit's solver contract, registered as
// "dl85". The zero value is ready to use.
type Backend struct{}

// AnytimeBackend is CA-DL8.5 (SolveNamed) behind odtkit's solver
// contract, registered as "cadl85". The zero value is ready to use.
type AnytimeBackend struct{}

// commonParams are the options of both backends.
func commonParams() []backend.Param {
	return append([]backend.Param{
		backend.FloatParam("cache-mb", 0, "cap on the cache of solved branches in MiB (0 = half the memory limit, or none); at the cap the deepest branches are evicted, the answer stays exact").AtLeast(0),
		backend.BoolParam("depth2", true, "solve depth-2 subproblems with the specialised pairwise-count step (unweighted data)"),
		backend.BoolParam("dive", true, "at depth 3 and more, start from a first tree made of the highest-gain tests above optimal depth-2 branches (false: from the best single split); the search improves its tree only when a root test's two branches are searched through, which on large data at depth 5-6 can outlast the time limit"),
		backend.EnumParam("order", "gain", []string{"gain", "index"}, "order in which a node tries its tests: gain (information gain) or index"),
		backend.FloatParam(OptGap, 0, "stop once the tree is within this fraction of its error of the proven lower bound (status gap; 0 = prove optimality)").AtLeast(0).AtMost(1),
		backend.FloatParam(OptAbsGap, 0, "stop once the tree is within this much (weighted) error of the proven lower bound (status gap)").AtLeast(0),
		backend.FloatParam(OptBoundGap, 0, "without a gap: first search within this relative gap (every branch stopping within it) for an early proven bound of at least 1 − bound-gap times the tree, then search exactly (0 = off); costs time where the exact search is quick").AtLeast(0).AtMost(1),
		backend.EnumParam(OptGapBranches, "relaxed", []string{"relaxed", "exact"}, "with a gap: relaxed (every branch stops within the relative gap of its own tree) or exact (the root's branches are searched exactly, for trees better than the incumbent by more than the gap); both end within the gap, relaxed usually with the better tree"),
	}, sparse.PerfectParams()...)
}

// caps are the problem fields both backends honour: the minimum leaf
// support, any positive row weights, a leaf cost and a node limit (those
// two by the exact dynamic program of dp/internal/sparse), a depth cap
// for the consistent-tree objectives, and several workers (Job.Workers).
func caps() backend.Caps {
	return backend.Caps{MinSupport: true, Weights: backend.AnyWeights, LeafCost: true, MaxNodes: true, Threads: true, DepthCap: true}
}

// objectives are those of both backends: the error, and the
// consistent-tree objectives by sparse.SolvePerfectJob.
func objectives() []model.Objective {
	return []model.Objective{model.MinError, model.MinDepth, model.MinSize, model.MinNodes}
}

// Info describes the "dl85" backend.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "dl85",
		Family:      backend.FamilyDP,
		Description: "DL8.5: optimal tree of bounded depth by caching branch-and-bound (multiclass, weights, min support)",
		Paper:       "Aglin, Nijssen & Schaus, Learning Optimal Decision Trees Using Caching Branch-and-Bound Search, AAAI 2020",
		Objectives:  objectives(),
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        caps(),
		Params:      commonParams(),
	}
}

// Info describes the "cadl85" backend.
func (AnytimeBackend) Info() backend.Info {
	return backend.Info{
		Name:        "cadl85",
		Family:      backend.FamilyDP,
		Description: "CA-DL8.5: complete anytime DL8.5, restarts under a pruning rule relaxed each time (purity, gain, discrepancy, topk, topk*)",
		Paper:       "Kiossou, Nijssen & Schaus, A Generic Complete Anytime Beam Search for Optimal Decision Tree, AAAI 2026",
		Objectives:  objectives(),
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        caps(),
		Params: append(commonParams(),
			backend.EnumParam("rule", "discrepancy", []string{"purity", "gain", "discrepancy", "topk", "topk*"}, "pruning rule"),
			backend.EnumParam("relax", "monotonic", []string{"monotonic", "exponential", "luby"}, "relaxation schedule: monotonic (+step), exponential (×2, 0 becomes step) or luby (+step×luby(i))"),
			backend.FloatParam("start", 0, "initial threshold (purity 0.5 and at most 1, gain 0 bits, discrepancy 0, topk/topk* k=1)").AtLeast(0).Unset("rule's"),
			backend.FloatParam("step", 0, "relaxation step δ (purity 0.1, gain 0.05, discrepancy 1, topk/topk* 1)").Above(0).Unset("rule's"),
			backend.IntParam("max-restarts", 0, "stop after that many restarts (0 = until proven optimal)").AtLeast(0),
		),
	}
}

// Solve runs DL8.5 on the job's binary view.
func (b Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	if sparse.Perfect(job.Problem) {
		return sparse.SolvePerfectJob(ctx, job) // min-depth, min-size, min-nodes
	}
	if sparse.Wanted(job.Problem) {
		return sparse.SolveJob(ctx, job) // leaf cost or node limit
	}
	return view.Solve(ctx, job, func(v *model.BinaryView) (*model.Result, error) {
		r, err := Solve(ctx, v, o.Config)
		return jobResult(ctx, job, v, r, err)
	})
}

// Solve runs CA-DL8.5 with the job's rule and relaxation.
func (b AnytimeBackend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	if sparse.Perfect(job.Problem) {
		return sparse.SolvePerfectJob(ctx, job) // min-depth, min-size, min-nodes
	}
	if sparse.Wanted(job.Problem) {
		return sparse.SolveJob(ctx, job) // leaf cost or node limit
	}
	s := o.Config
	s.MaxRestarts = o.MaxRestarts
	return view.Solve(ctx, job, func(v *model.BinaryView) (*model.Result, error) {
		r, err := SolveNamed(ctx, v, o.Spec, s)
		return jobResult(ctx, job, v, r, err)
	})
}

// jobResult turns an outcome of Solve or SolveNamed into a result: data
// with fewer rows than the minimum support is infeasible, not an error.
func jobResult(ctx context.Context, job *backend.Job, v *model.BinaryView, r *Result, err error) (*model.Result, error) {
	if errors.Is(err, ErrInfeasible) {
		return &model.Result{Infeasible: true, Stats: map[string]any{"reason": err.Error()}}, nil
	}
	if err != nil {
		return view.Early(ctx, job, err) // stopped before the search had a tree
	}
	res := &model.Result{Model: r.Tree, Errors: r.Tree.Errors(job.Data), Objective: r.Error,
		LowerBound: r.LowerBound, Stats: r.Stats}
	if r.Optimal {
		res.LowerBound, res.Proved = res.Objective, true
	}
	if r.Gap && r.Cause == nil {
		res.Stop = model.StopGap
	}
	view.Stopped(res, r.Cause)
	view.Honest(v, res)
	return res, nil
}
