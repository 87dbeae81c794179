package flowoct

import (
	"context"
	"errors"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Backend is the milp-flowoct backend: FlowOCT on HiGHS (or any MILP
// solver by command) for the fewest (weighted) errors at a depth, and
// with a zero-error constraint and a node count for the minimum depth
// and minimum size of a tree with no training error. It exports the MILP
// and decodes a MILP solver's solution file for it.
type Backend struct{}

// The optional interfaces milp-flowoct implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
	_ backend.Sizer          = Backend{}
)

// Info describes milp-flowoct. Row weights weigh the errors; a node
// limit caps the tests; a leaf cost is the sparse error objective. For
// min-depth and min-size a depth limit caps the depths tried and is the
// depth of an exported MILP.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "milp-flowoct",
		Family:      backend.FamilyMILP,
		Description: "optimal tree by FlowOCT, the flow MILP on binary tests (Aghaei, Gómez & Vayanos 2024), or its Benders form, on HiGHS (build with -tags highs) or any MILP solver by command; the error objective by default by decomposition by root test into small tightened FlowOCT MILPs (decompose=2, tight=true: it proves what the one MILP leaves open, docs/benchmarks.md), as published with decompose=0 tight=false",
		Objectives:  []model.Objective{model.MinError, model.MinDepth, model.MinSize},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{DepthCap: true, MaxNodes: true, LeafCost: true, MinSupport: true, Weights: backend.AnyWeights},
		Params: []backend.Param{
			backend.EnumParam("formulation", "flow", []string{"flow", "benders"}, "error objective: flow states every group's flow in one MILP; benders solves a master of the tree variables and adds each group's min-cut cuts between re-solves (the cut loop; the bound of every round is a lower bound)"),
			backend.IntParam("decompose", 2, "error objective, flow formulation on in-process HiGHS: the number of tree levels whose tests are enumerated (each root test splits the rows, the root may be a leaf, and the two subtrees are independent FlowOCT MILPs, each with a cutoff from the incumbent); 0 solves one MILP of the whole tree, as does a node limit (it couples the subtrees). For min-depth and min-size, any value above 0 asks each depth for a tree with no error by enumerating every level down to depth-1 subtrees, and min-size then seeks, the same way, the tree of the minimum depth with no error and the fewest leaves. Export writes the one MILP").AtLeast(0),
			backend.BoolParam("tight", true, "error objective, flow formulation without leaf cost, node limit or min support: state each leaf's class per its parent's test, bounding a row group's flow into a leaf by the tests that send it there (the LP bound of a depth-1 tree is its optimum, and a depth-1 tree's MILP needs no flow); false, with decompose=0, is FlowOCT as published. Export writes the published MILP"),
			milpjob.SolverParam(""),
			milpjob.GapParam(),
			backend.BoolParam("warm-start", true, "give the MILP solver the greedy (CART-like, Gini) tree of the depth as its first incumbent"),
			milpjob.LPBoundParam(true),
			milpjob.HiGHSParam(),
			backend.TrustSolverParam(),
			backend.BoolParam("drop-conflicts", false, "min-depth, min-size: drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"),
		},
	}
}

// prepared is the data of a job: its binary view and, for the
// perfect-tree objectives, the rows the tree must classify.
type prepared struct {
	view    *model.BinaryView
	keep    model.Bitset
	dropped int
}

func prepare(ctx context.Context, job *backend.Job) (*prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	pr := &prepared{}
	switch job.Problem.Objective {
	case model.MinDepth, model.MinSize:
		// The conflict rule, option and message of every perfect-tree
		// backend (sat-depth, sat-size): model.Dataset.ConsistentRows.
		keep, dropped, err := job.Data.ConsistentRows(job.Options.Bool("drop-conflicts"))
		if err != nil {
			return nil, backend.Invalid(err)
		}
		pr.keep, pr.dropped = keep, dropped
	default:
		if job.Options.IsSet("drop-conflicts") {
			return nil, backend.Invalidf("option drop-conflicts applies to min-depth and min-size only")
		}
	}
	v, err := exactView(ctx, job)
	if err != nil {
		return nil, err
	}
	pr.view = v
	return pr, nil
}

// options states the MILP of the job at depth k.
func options(job *backend.Job, pr *prepared, k int) Options {
	p := job.Problem
	o := Options{Depth: k, MaxInternal: p.MaxNodes, LeafCost: p.LeafCost, Rows: pr.keep, MinSupport: p.MinSupport}
	switch p.Objective {
	case model.MinDepth:
		o.Objective = Feasible
	case model.MinSize:
		o.Objective = Nodes
	}
	return o
}

// Solve runs the job: one MILP at the depth for the error objective;
// for min-depth and min-size one per depth from 0 up (the first depth
// with a tree of no error is the minimum, and that MILP's node count is
// the minimum size).
func (Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	start := time.Now()
	pr, err := prepare(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Stop: model.StopOf(ctx)}, nil
		}
		return nil, err
	}
	if job.Options.String("formulation") == "benders" && job.Problem.Objective != model.MinError {
		return nil, backend.Invalidf("option formulation=benders states the error objective only, not %s", job.Problem.Objective)
	}
	solver, err := milpjob.NewSolver(job)
	if err != nil {
		return nil, err
	}
	hopts, err := milpjob.HiGHSOptions(job.Options.String(milpjob.OptHiGHS))
	if err != nil {
		return nil, err
	}
	s := &search{job: job, pr: pr, solver: solver, hopts: hopts, stats: map[string]any{"binary_tests": pr.view.NumTests()}}
	_, fractional := job.Data.FractionalWeight()
	s.whole = job.Problem.Objective == model.MinError && job.Problem.LeafCost == 0 && !fractional &&
		!milp.IsExternal(solver) && job.Options.Float("gap") == 0
	if _, set := hopts["mip_abs_gap"]; set {
		s.whole = false
	}
	if job.Problem.Objective == model.MinError {
		res, err = s.minError(ctx)
	} else {
		res, err = s.perfect(ctx)
	}
	if err != nil {
		return nil, err
	}
	if milp.IsExternal(solver) {
		// The program's "optimal", "infeasible" and bounds are its word,
		// not odtkit's.
		milpjob.ClaimExternal(res, milp.Claimant(solver), 0)
	}
	res.Stats = s.stats
	res.Stats["seconds_total"] = time.Since(start).Seconds()
	res.DroppedRows = pr.dropped
	return res, nil
}
