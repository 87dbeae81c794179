package avellaneda

import (
	"context"
	"errors"
	"math/bits"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// DepthBackend is the sat-depth backend: the minimum depth of a tree
// with no training error, by DT_depth. It exports the formula of one
// depth as DIMACS and decodes a SAT solver's answer for it.
type DepthBackend struct{}

// SizeBackend is the sat-size backend: the fewest nodes among the
// minimum-depth trees with no training error, by DT_depth then DT_size.
type SizeBackend struct{}

// The optional interfaces both backends implement.
var (
	_ backend.Decoder = DepthBackend{}
	_ backend.Sizer   = DepthBackend{}
	_ backend.Decoder = SizeBackend{}
	_ backend.Sizer   = SizeBackend{}
)

func info(size bool) backend.Info {
	i := backend.Info{
		Name:        "sat-depth",
		Family:      backend.FamilySAT,
		Description: "minimum depth of a tree with no training error: Avellaneda's incremental SAT encoding (DT_depth)",
		Paper:       "Avellaneda, Efficient Inference of Optimal Decision Trees, AAAI 2020",
		Objectives:  []model.Objective{model.MinDepth},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		// A depth limit caps the depths tried (infeasible beyond it) and
		// is the depth of an exported formula; the node limit is part of
		// the formula at every depth tried.
		Caps:   backend.Caps{DepthCap: true, MaxNodes: true, Weights: backend.NoWeights},
		Params: params(size),
	}
	if size {
		i.Name = "sat-size"
		i.Description = "fewest nodes among the minimum-depth trees with no training error: Avellaneda's incremental SAT encoding (DT_size)"
		i.Objectives = []model.Objective{model.MinSize}
	}
	return i
}

// Info describes sat-depth.
func (DepthBackend) Info() backend.Info { return info(false) }

// Info describes sat-size.
func (SizeBackend) Info() backend.Info { return info(true) }

// Solve runs DT_depth.
func (DepthBackend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return solve(ctx, job, false)
}

// Solve runs DT_depth then DT_size.
func (SizeBackend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return solve(ctx, job, true)
}

// settings are the search's settings for the job and its options.
func settings(job *backend.Job, o Options) Settings {
	limit, capped := job.Problem.DepthLimit()
	return Settings{
		SingleLeaf:         capped && limit == 0,
		NewSolver:          o.SAT.NewSolver,
		FirstMisclassified: o.FirstMisclassified,
		Seed:               o.Seed,
		Options:            o,
		DropConflicts:      o.DropConflicts,
		Batch:              o.Batch,
		Bisect:             o.Bisect,
		MaxDepth:           limit,
		MaxNodes:           formulaNodes(job.Problem.MaxNodes),
		Report:             job.Report,
		Budget:             job.Budget,
	}
}

// prepare reads the job's options and prepares its examples
// (satjob.JobExamples); conflicting rows (without drop-conflicts) are a
// bad request.
func prepare(ctx context.Context, job *backend.Job) (Options, *satjob.Examples, error) {
	o, err := JobOptions(job)
	if err != nil {
		return o, nil, err
	}
	p, err := satjob.JobExamples(ctx, job, o.DropConflicts)
	return o, p, err
}

func solve(ctx context.Context, job *backend.Job, size bool) (*model.Result, error) {
	if err := satjob.RefuseProof(job); err != nil {
		return nil, err
	}
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	s := settings(job, o)
	if o.SAT.Certify != "" {
		// sat-size's descent refutes under assumptions, which only
		// odtkit's CDCL certifies; sat-depth's calls have none.
		certifiable := o.SAT.CertifiableCalls
		if size {
			certifiable = func() error {
				err := o.SAT.Certifiable(nil)
				if err != nil && o.SAT.CertifiableCalls() == nil {
					return backend.Invalidf("certify: sat-size's descent refutes under assumptions, which only odtkit's CDCL solver (sat-solver=cdcl) certifies, not %q (sat-depth and sat-dt1 take it)", o.SAT.Solver)
				}
				return err
			}
		}
		if err := certifiable(); err != nil {
			return nil, err
		}
		if s.Certify, err = satjob.Start(job); err != nil {
			return nil, err
		}
		defer s.Certify.Discard()
	}
	ext := external(&s, job, o)
	start := time.Now()
	p, err := satjob.JobExamples(ctx, job, o.DropConflicts)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Stop: model.StopOf(ctx)}, nil
		}
		return nil, err
	}
	if err := admit(job, o, p, false); err != nil {
		return nil, err
	}
	prepSeconds := time.Since(start).Seconds()
	// A greedy tree grown to purity is a first incumbent for the depth
	// (not for the size: its depth may exceed the minimum) when it is
	// consistent and within the limits.
	var greedy *model.Graph
	if g, werr := cart.Grow(ctx, p.View, -1, cart.Config{}); werr == 0 && ctx.Err() == nil && p.Dropped == 0 && g.Errors(job.Data) == 0 &&
		(s.MaxDepth <= 0 && !s.SingleLeaf || g.Depth() <= s.MaxDepth) && (s.MaxNodes <= 0 || g.Size() <= s.MaxNodes) {
		greedy = g
		if !size {
			job.Report.Report(float64(g.Depth()), g)
		}
	}
	var out *Outcome
	if size {
		out, err = MinSize(ctx, p, s)
	} else {
		out, err = MinDepth(ctx, p, s)
	}
	if err != nil {
		return nil, err
	}
	res := &model.Result{DroppedRows: p.Dropped, Stats: map[string]any{
		"binary_tests":    p.View.NumTests(),
		"tests_used":      len(p.Tests),
		"distinct_rows":   len(p.Reps),
		"examples_used":   out.Examples,
		"solver_calls":    out.Calls,
		"clauses":         out.Clauses,
		"variables":       out.Vars,
		"seconds_prepare": prepSeconds,
	}}
	res.LowerBound = float64(out.DepthLowerBound)
	if size {
		res.LowerBound = float64(max(2*out.DepthLowerBound+1, 2*out.LeavesLowerBound-1))
	}
	if out.Infeasible {
		res.Infeasible = true
		if err := satjob.Conclude(ctx, job, info(size).Name, res, s.Certify); err != nil {
			return nil, err
		}
		ext.claims(res, p, size)
		return res, nil
	}
	g := out.Model
	if g == nil && !size {
		g = greedy
	}
	if out.Stopped {
		// gini may stop a moment before ctx reports its end.
		res.Stop = model.StopGaveUp
	}
	if err := satjob.Found(ctx, job, info(size).Name, res, g, out.Optimal, out.Stopped, s.Certify); err != nil {
		return nil, err
	}
	if res.Model != nil {
		ext.claims(res, p, size)
	}
	return res, nil
}

// externals are the SAT solvers a search started and the solver named.
type externals struct {
	sat.Started
	spec string
}

// external makes s record the solvers it starts, and caps what is kept
// of an external solver's answers at the job's memory cap.
func external(s *Settings, job *backend.Job, o Options) *externals {
	e := &externals{spec: o.SAT.Solver}
	e.OutputLimit = job.Budget.Limit()
	s.NewSolver = e.Wrap(s.NewSolver)
	return e
}

// claims moves the part of res's bound that rests on an external
// solver's unchecked refutations to its claimed bound: the result keeps
// the bound odtkit knows without them (the depth that holds every
// class, the leaves of every class), and an infeasibility or optimum
// they gave is the solver's claim.
func (e *externals) claims(res *model.Result, p *satjob.Examples, size bool) {
	nc := p.PresentClasses()
	own := 0
	if nc > 1 {
		own = bits.Len(uint(nc - 1))
	}
	if size {
		own = max(2*own+1, 2*max(nc, 1)-1)
	}
	satjob.NoteChecked(res, e.CheckedRefutations())
	satjob.ClaimUnchecked(res, e.UncheckedRefutations(), e.spec, float64(own))
}

// formulaNodes translates Problem.MaxNodes, a bound on internal (test)
// nodes, into the node count of Avellaneda's formula, which counts every
// node: a tree with k tests has 2k+1 nodes. 0 stays 0 (no bound).
func formulaNodes(internal int) int {
	if internal <= 0 {
		return 0
	}
	return 2*internal + 1
}
