package satodt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Backend is the sat-odt backend: a minimum-error tree of bounded depth
// by SAT with a totalizer over the error, descending from cart's tree.
type Backend struct{}

// The optional interfaces sat-odt implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
	_ backend.Sizer          = Backend{}
)

// viewBytes caps the binary view's bitsets (a quarter of the solve's
// memory cap when smaller).
const viewBytes = 256 << 20

// maxClauses caps the formula: beyond it the solve ends with the greedy
// tree, unproven, instead of filling the memory (about 30 bytes per
// binary clause in the formula and as much again in the solver).
const maxClauses = 10_000_000

// Info describes sat-odt.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "sat-odt",
		Family:      backend.FamilySAT,
		Description: "minimum-error tree of bounded depth by SAT: complete tree of the depth, rows grouped when identical, the error counted per leaf and class and summed along the tree, a bound descending from cart's tree and refuted one root test at a time (multiclass, whole row weights)",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{Weights: backend.WholeWeights},
		Params:      params(),
	}
}

// Solve finds a minimum-error tree of depth at most the problem's.
func (b Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	argv := o.MaxSAT.Argv
	start := time.Now()
	d := job.Data
	pl, err := newPlan(ctx, job, o)
	if err != nil {
		if ctx.Err() == nil || errors.Is(err, backend.ErrInvalid) {
			return nil, err
		}
		res := &model.Result{Stop: model.StopOf(ctx)}
		if pl != nil {
			res.Model, res.Errors, res.Objective = pl.inc, pl.inc.Errors(d), job.Problem.Evaluate(d, pl.inc)
		}
		return res, nil
	}
	prep := time.Since(start).Seconds()
	v, p, depth := pl.view, pl.prep, pl.depth
	s := Settings{
		Bisect:     o.Search == "bisect",
		PerRoot:    o.PerRoot,
		MaxClauses: maxClauses,
		Options:    o,
		Report:     job.Report,
		Counter:    o.Counter,
	}
	spec := o.SAT.Solver
	started := &sat.Started{OutputLimit: job.Budget.Limit()}
	s.NewSolver = started.Wrap(o.SAT.NewSolver)
	if o.SAT.Certify != "" {
		if err := o.certifiable(); err != nil {
			return nil, err
		}
		if s.Certify, err = satjob.Start(job); err != nil {
			return nil, err
		}
		defer s.Certify.Discard()
	}
	if argv != nil && pl.search {
		res, err := solveExternal(ctx, job, o, pl.inc, pl.incErr)
		if err != nil {
			return nil, err
		}
		res.Stats["seconds_prepare"] = prep
		return res, nil
	}
	var out *satjob.Outcome
	if !pl.search {
		// The incumbent is optimal: one leaf is all a tree can be, it
		// makes no error, or it meets the floor of the identical rows.
		cost := int(math.Round(pl.incErr))
		out = &satjob.Outcome{Model: pl.inc, Cost: cost, LowerBound: cost, Optimal: true}
	} else {
		what := fmt.Sprintf("the sat-odt formula of depth %d", depth)
		if err := job.Budget.Admit(pl.size, what); err != nil {
			return nil, err
		}
		if err := job.Budget.Reserve(pl.size.Bytes, what); err != nil {
			return nil, err
		}
		defer job.Budget.Release(pl.size.Bytes)
		search := Search
		if o.Search == "rows" {
			search = SearchRows
		}
		if out, err = search(ctx, p, depth, pl.inc, int(math.Round(pl.incErr)), s); err != nil {
			return nil, err
		}
	}
	res = &model.Result{
		Model:      out.Model,
		Errors:     out.Model.Errors(d),
		Objective:  job.Problem.Evaluate(d, out.Model),
		LowerBound: float64(out.LowerBound),
		Stats: map[string]any{
			"binary_tests":    v.NumTests(),
			"depth_searched":  depth,
			"solver_calls":    out.Calls,
			"variables":       out.Vars,
			"clauses":         out.Clauses,
			"seconds_prepare": prep,
		},
	}
	if p != nil {
		res.Stats["tests_used"], res.Stats["distinct_rows"] = len(p.Tests), len(p.Groups)
	}
	if out.TooLarge {
		res.Stats["formula"] = "too large: the greedy tree is returned unproven"
	}
	proved := out.Optimal && !v.Coarse
	if res.Proved = proved; proved {
		res.LowerBound = res.Objective
	}
	if v.Coarse {
		// Proven among the view's thresholds only: no bound for the data
		// but the conflict floor of unweighted data.
		res.LowerBound = 0
		if d.Weights == nil {
			res.LowerBound = float64(d.ConflictFloor())
		}
	}
	satjob.NoteChecked(res, started.CheckedRefutations())
	if n := started.UncheckedRefutations(); n > 0 {
		// The bounds above the floor that rest on an external solver's
		// refutations are its claim, not odtkit's proof (p is nil when
		// no formula was prepared, and then no solver ran).
		satjob.ClaimUnchecked(res, n, spec, float64(p.Floor))
	}
	res.LowerBound = min(res.LowerBound, res.Objective)
	res.Stop = model.Ended(ctx, out.Stopped)
	if proved {
		err = satjob.Conclude(ctx, job, b.Info().Name, res, s.Certify)
	}
	return res, err
}

// solveExternal runs the formula of the job's depth on the external
// solver argv (package maxsat) and verifies its answer like odt decode:
// the model satisfies the hard clauses, a claimed cost is its cost, a
// claimed optimum's soft literals are exactly its tree's errors. The
// result is never worse than the incumbent given (cart's tree).
func solveExternal(ctx context.Context, job *backend.Job, o Options, inc *model.Graph, incErr float64) (*model.Result, error) {
	p, f, err := formula(ctx, job, o)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return maxsat.Stopped(ctx, job, inc, 0), nil
		}
		return nil, err
	}
	return maxsat.Solve(ctx, job, maxsat.Run{
		Argv: o.MaxSAT.Argv, CNF: f.CNF, Soft: f.soft(),
		Verify:    func(a *sat.Answer) (*model.Result, error) { return answerResult(job, p, f, a) },
		Incumbent: inc, Objective: incErr, LowerBound: float64(p.Floor),
	})
}
