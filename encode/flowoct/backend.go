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
		Description: "optimal tree by FlowOCT, the flow MILP on binary tests (Aghaei, Gómez & Vayanos 2024), or its Benders form, on HiGHS (build with -tags highs) or any MILP solver by command; the error objective by default by decomposition by root test into small tightened FlowOCT MILPs (decompose=2, tight=true: it proves what the one MILP leaves open, docs/benchmarks.md), as published with formulation=published",
		Objectives:  []model.Objective{model.MinError, model.MinDepth, model.MinSize},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{DepthCap: true, MaxNodes: true, LeafCost: true, MinSupport: true, Weights: backend.AnyWeights},
		Params:      params(),
	}
}

// prepared is the data of a job: its binary view and, for the
// perfect-tree objectives, the rows the tree must classify.
type prepared struct {
	set     Settings
	view    *model.BinaryView
	keep    model.Bitset
	dropped int
}

func prepare(ctx context.Context, job *backend.Job) (*prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	set, err := JobSettings(job)
	if err != nil {
		return nil, err
	}
	pr := &prepared{set: set}
	switch job.Problem.Objective {
	case model.MinDepth, model.MinSize:
		// The conflict rule, option and message of every perfect-tree
		// backend (sat-depth, sat-size): model.Dataset.ConsistentRows.
		keep, dropped, err := job.Data.ConsistentRows(set.DropConflicts)
		if err != nil {
			return nil, backend.Invalid(err)
		}
		pr.keep, pr.dropped = keep, dropped
	default:
		if set.DropConflictsSet {
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
	solver, err := milpjob.NewSolver(job)
	if err != nil {
		return nil, err
	}
	hopts := pr.set.MILP.HiGHS
	s := &search{job: job, pr: pr, solver: solver, hopts: hopts, stats: map[string]any{"binary_tests": pr.view.NumTests()}}
	_, fractional := job.Data.FractionalWeight()
	_, absGap := hopts["mip_abs_gap"]
	s.wholeErrors = job.Problem.LeafCost == 0 && !fractional && !milp.IsExternal(solver) && pr.set.MILP.Gap == 0 && !absGap
	s.whole = job.Problem.Objective == model.MinError && s.wholeErrors
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
