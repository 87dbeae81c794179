package dt1

import (
	"context"
	"errors"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Backend is the sat-dt1 backend: the fewest nodes of a tree with no
// training error at any depth (the min-nodes objective), by the node-count
// encoding of Narodytska et al. It exports the formula of one node count
// as DIMACS and decodes a SAT solver's answer for it.
type Backend struct{}

// The optional interfaces the backend implements.
var (
	_ backend.Decoder = Backend{}
	_ backend.Sizer   = Backend{}
)

// Info describes sat-dt1.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "sat-dt1",
		Family:      backend.FamilySAT,
		Description: "fewest nodes of a tree with no training error at any depth: the SAT encoding of a tree of exactly N nodes (DT1), N searched",
		Paper:       "Narodytska, Ignatiev, Pereira & Marques-Silva, Learning Optimal Decision Trees with SAT, IJCAI 2018",
		Objectives:  []model.Objective{model.MinNodes},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		// The node limit caps the counts tried (infeasible beyond it) and
		// is the node count of an exported formula; the formula has no
		// depth, so a depth limit is refused.
		Caps:   backend.Caps{MaxNodes: true, Weights: backend.NoWeights},
		Params: params(),
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

// Solve searches the node count.
func (Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	if err := satjob.RefuseProof(job); err != nil {
		return nil, err
	}
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	spec := o.SAT.Solver
	s := Settings{
		NewSolver: o.SAT.NewSolver,
		Options:   o,
		Bisect:    o.Bisect,
		Down:      o.Down,
		MaxNodes:  formulaNodes(job.Problem.MaxNodes),
		Report:    job.Report,
		Budget:    job.Budget,
	}
	if o.SAT.Certify != "" {
		if err := o.SAT.CertifiableCalls(); err != nil {
			return nil, err
		}
		// A certificate proves the bound by the refuted counts alone:
		// every count from the classes' least up, as the upward search
		// refutes them, and no node limit to end in infeasibility.
		if s.Bisect || s.Down || s.MaxNodes > 0 {
			return nil, backend.Invalidf("certify: sat-dt1 certifies the upward search without a node limit (search=up, no --max-nodes)")
		}
		if s.Certify, err = satjob.Start(job); err != nil {
			return nil, err
		}
	}
	var started sat.Started
	started.OutputLimit = job.Budget.Limit()
	s.NewSolver = started.Wrap(s.NewSolver)
	start := time.Now()
	p, err := satjob.JobExamples(ctx, job, o.DropConflicts)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Stop: model.StopOf(ctx)}, nil
		}
		return nil, err
	}
	if err := admit(job, o, p, max(leastNodes(p), 3)); err != nil {
		return nil, err
	}
	prepSeconds := time.Since(start).Seconds()
	// A greedy tree grown to purity bounds the search when it classifies
	// every row (it never tests a feature twice on a path).
	if g, werr := cart.Grow(ctx, p.View, -1, cart.Config{}); werr == 0 && ctx.Err() == nil && p.Dropped == 0 && g.Errors(job.Data) == 0 {
		s.Incumbent = g
	}
	out, err := MinNodes(ctx, p, s)
	if err != nil {
		return nil, err
	}
	res = &model.Result{DroppedRows: p.Dropped, LowerBound: float64(out.LowerBound), Stats: map[string]any{
		"binary_tests":    p.View.NumTests(),
		"tests_used":      len(p.Tests),
		"distinct_rows":   len(p.Reps),
		"solver_calls":    out.Calls,
		"clauses":         out.Clauses,
		"variables":       out.Vars,
		"seconds_prepare": prepSeconds,
	}}
	unchecked := started.UncheckedRefutations()
	satjob.NoteChecked(res, started.CheckedRefutations())
	if out.Infeasible {
		res.Infeasible = true
		claims(res, p, unchecked, spec)
		return res, nil
	}
	if out.Stopped {
		res.Stop = model.StopGaveUp
	}
	if err := satjob.Found(ctx, job, "sat-dt1", res, out.Model, out.Optimal, out.Stopped, s.Certify); err != nil {
		return nil, err
	}
	if res.Model != nil {
		claims(res, p, unchecked, spec)
	}
	return res, nil
}

// claims moves the part of res's bound that rests on an external solver's
// unchecked refutations to its claimed bound: the result keeps the bound
// of its classes alone.
func claims(res *model.Result, p *satjob.Examples, unchecked int, spec string) {
	satjob.ClaimUnchecked(res, unchecked, spec, float64(leastNodes(p)))
}

// formulaNodes translates Problem.MaxNodes, a bound on internal (test)
// nodes, into the formula's node count: a tree with k tests has 2k+1
// nodes. 0 stays 0 (no bound).
func formulaNodes(internal int) int {
	if internal <= 0 {
		return 0
	}
	return 2*internal + 1
}
