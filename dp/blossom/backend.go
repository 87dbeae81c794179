package blossom

import (
	"context"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/sparse"
	"github.com/odtkit/odtkit/dp/internal/view"
	"github.com/odtkit/odtkit/model"
)

// Backend is Blossom (Solve) behind odtkit's solver contract, registered
// as "blossom". The zero value is ready to use.
type Backend struct{}

// switches are Blossom's on/off options: each names the Config field
// that turns its part off.
func switches(c *Config) []struct {
	param backend.Param
	off   *bool
} {
	return []struct {
		param backend.Param
		off   *bool
	}{
		{backend.BoolParam("lower-bound", true, "fail early with the ancestor lower bound (sum of optimal sibling errors)"), &c.NoLowerBound},
		{backend.BoolParam("depth2", true, "solve branches with two levels left at once from pairwise counts (false: only the last level, as in the paper)"), &c.NoDepth2},
		{backend.BoolParam("merge-rows", true, "merge identical rows into weighted rows and cancel inconsistent ones"), &c.NoMergeRows},
		{backend.BoolParam("drop-redundant", true, "drop constant tests and tests equal or complementary to another"), &c.NoDropRedundant},
		{backend.BoolParam("drop-uninformative", true, "on each branch, drop the tests that take one value on all its rows"), &c.NoDropUninformative},
		{backend.BoolParam("cart-seed", true, "report the greedy (cart) tree first and return it if a stopped search found nothing better"), &c.NoCARTSeed},
	}
}

// Info describes the "blossom" backend. It takes whole-number row
// weights (rows are merged into integer counts) and has neither a
// minimum leaf support nor a node limit.
func (Backend) Info() backend.Info {
	params := []backend.Param{
		backend.EnumParam("order", string(OrderGini), []string{string(OrderGini), string(OrderError), string(OrderIndex)},
			"feature order on a branch: gini, error (the paper's no-heuristic variant) or index"),
	}
	for _, s := range switches(&Config{}) {
		params = append(params, s.param)
	}
	params = append(params,
		backend.FloatParam(OptGap, 0, "stop once the tree is within this fraction of its error of the optimum: a test of the root is given up once its solved branches show it cannot beat the tree by more (status gap; 0 = prove optimality)").AtLeast(0).AtMost(1),
		backend.FloatParam(OptAbsGap, 0, "stop once the tree is within this much (weighted) error of the optimum, as gap does (status gap)").AtLeast(0))
	return backend.Info{
		Name:        "blossom",
		Family:      backend.FamilyDP,
		Description: "Blossom: anytime exact depth-bounded search with memory linear in the tree size (Demirović, Hebrard & Jean)",
		Paper:       "Demirović, Hebrard & Jean, A Simple and Efficient Anytime Algorithm for Computing Optimal Decision Trees, ICML 2023",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{Weights: backend.WholeWeights, LeafCost: true, MaxNodes: true, Threads: true},
		Params:      params,
	}
}

// Solve runs Blossom on the job's binary view.
func (b Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	if sparse.Wanted(job.Problem) {
		if o.Config.RelGap > 0 || o.Config.AbsGap > 0 {
			return nil, sparse.Unsupported(OptGap, OptAbsGap)
		}
		return sparse.SolveJob(ctx, job) // leaf cost or node limit
	}
	s := o.Config
	s.OnBound = job.Bound
	return view.Solve(ctx, job, func(v *model.BinaryView) (*model.Result, error) {
		r, err := Solve(ctx, v, s, job.Report)
		if err != nil {
			return view.Early(ctx, job, err)
		}
		res := &model.Result{Model: r.Model, Errors: r.Errors, Objective: r.Objective, LowerBound: r.LowerBound, Stats: r.Stats}
		if r.Optimal {
			res.LowerBound, res.Proved = res.Objective, true
		}
		if r.Gap && r.Cause == nil {
			res.Stop = model.StopGap
		}
		view.Stopped(res, r.Cause)
		view.Honest(v, res)
		return res, nil
	})
}
