package contree

import (
	"context"
	"errors"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/contree"
	"github.com/odtkit/odtkit/dp/internal/sparse"
	"github.com/odtkit/odtkit/dp/internal/view"
	"github.com/odtkit/odtkit/model"
)

// Backend is ConTree (Solve) behind odtkit's solver contract, registered
// as "contree". The zero value is ready to use.
type Backend struct{}

// Info describes the "contree" backend. It takes whole-number row weights
// (rows are repeated) and has neither a minimum leaf support nor a node
// limit.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:   "contree",
		Family: backend.FamilyDP,
		Description: "ConTree: optimal depth-limited tree by dynamic programming and branch-and-bound " +
			"directly on numeric thresholds (categorical columns as one 0/1 test per level; integer row weights only)",
		Paper:      "Brita, van der Linden & Demirović, Optimal Classification Trees for Continuous Feature Data Using Dynamic Programming with Branch-and-Bound, AAAI 2025",
		Objectives: []model.Objective{model.MinError},
		Input:      "numeric",
		Exact:      true,
		Anytime:    true,
		Caps: backend.Caps{Weights: backend.WholeWeights, MaxRepeatedRows: contree.MaxRows - 1, MaxClasses: contree.MaxClasses, LeafCost: true, MaxNodes: true,
			Threads: true},
		Params: []backend.Param{
			backend.IntParam("max-gap", 0, "errors the tree may make above the optimum (0 = exact)").AtLeast(0),
			backend.EnumParam("eta", "max", []string{"max", "min"}, "η of the right upper bound: max (the paper's text, faster here) or min (its Algorithm 1)"),
			backend.BoolParam("cache", true, "cache solved subproblems by row set and depth"),
			backend.EnumParam("root", "best-first", []string{"best-first", "depth-first"}, "order of the root's search (depth 3 and more): best-first (least lower bound first; the bound rises as it searches) or depth-first (feature after feature)"),
			backend.FloatParam(OptGap, 0, "stop once the tree is within this fraction of its errors of the proven lower bound (status gap; 0 = prove optimality); searches with one worker").AtLeast(0).AtMost(1),
			backend.FloatParam(OptAbsGap, 0, "stop once the tree is within this many (weighted) errors of the proven lower bound (status gap); searches with one worker").AtLeast(0),
			backend.IntParam(OptBoundProbes, 0, "depth 4 and more: probes per root feature (on average) of the bound phase before the exact search (each probe splits the root's piece of least bound at its middle, each side searched for a lower bound only: the bound rises early, the result stays exact); searches with one worker, 0 = none").AtLeast(0).AtMost(1000),
			backend.IntParam(OptBoundWork, DefaultBoundWork, "depth-two calls (about) per side of a bound-phase probe (twice as many at each new probe of the same threshold)").AtLeast(1),
		},
	}
}

// Solve runs ConTree on the job's data. Data it cannot take (too many
// classes or rows) is refused with backend.ErrInvalid. With max-gap > 0 a
// finished search is not a proof of optimality: its status is feasible.
func (b Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	if sparse.Wanted(job.Problem) {
		if err := noGap(o); err != nil {
			return nil, err
		}
		return sparse.SolveJob(ctx, job) // leaf cost or node limit
	}
	s := o.Config
	gap := s.MaxGap
	if (s.RelGap > 0 || s.AbsGap > 0) && (gap > 0 || s.DepthFirstRoot) {
		return nil, backend.Invalidf("options %s and %s need max-gap=0 and root=best-first", OptGap, OptAbsGap)
	}
	if s.BoundProbes > 0 && (gap > 0 || s.DepthFirstRoot) {
		return nil, backend.Invalidf("option %s needs max-gap=0 and root=best-first", OptBoundProbes)
	}
	// The engine reports improvements of its root search; the final tree
	// may come from a deeper proof: report it too when it is better.
	best := math.Inf(1)
	report := func(obj float64, g *model.Graph) {
		if obj < best {
			best = obj
			job.Report.Report(obj, g)
		}
	}
	r, err := solve(ctx, job.Data, s, report)
	if errors.Is(err, ErrInput) {
		return nil, backend.Invalid(err)
	}
	if err != nil {
		return nil, err
	}
	if obj := float64(r.Objective); obj < best {
		job.Report.Report(obj, r.Tree)
	}
	res = &model.Result{Model: r.Tree, Errors: r.Errors, Objective: float64(r.Objective),
		LowerBound: float64(r.LowerBound), Stats: r.Stats}
	if r.Optimal && gap == 0 {
		res.LowerBound, res.Proved = res.Objective, true
	}
	if gap > 0 && !r.Stopped {
		res.Stop = model.StopNone // ended within max-gap
		res.Stats["max_gap"] = gap
	}
	if r.Gap && !r.Stopped && r.Cause == nil {
		res.Stop = model.StopGap
	}
	view.Stopped(res, r.Cause)
	return res, nil
}
