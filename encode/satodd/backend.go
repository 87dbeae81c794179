package satodd

import (
	"context"
	"errors"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// maxClauses caps the formula with its counter; bytesPerClause is what a
// clause costs in the formula and the solver together (short clauses),
// so that a memory cap lowers the budget.
const (
	maxClauses     = 10_000_000
	bytesPerClause = 64
)

// Backend is the sat-odd backend: an optimal decision diagram on a
// skeleton by SAT with a generalized totalizer over the scaled objective.
type Backend struct{}

// The optional interfaces sat-odd implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
	_ backend.Sizer          = Backend{}
)

// Info describes sat-odd.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "sat-odd",
		Family:      backend.FamilySAT,
		Description: "optimal decision diagram on a skeleton by SAT: the objective and inactive nodes of milp-odd, univariate tests of the binary view, a generalized totalizer bound descending from the root stump and refuted one root test at a time (whole row weights)",
		Objectives:  []model.Objective{model.DiagramError},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{Weights: backend.WholeWeights},
		Params:      params(),
	}
}

// Solve finds a diagram of least objective on the problem's skeleton.
func (b Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	start := time.Now()
	d := job.Data
	pr := job.Problem
	costs, err := ScaledCosts(totalWeight(d), pr.Skeleton, pr.Alpha)
	if err != nil {
		return nil, backend.Invalid(err)
	}
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	argv := o.MaxSAT.Argv
	v, p, err := prepare(ctx, job, false)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Stop: model.StopOf(ctx)}, nil
		}
		return nil, err
	}
	var cert *sat.Certifier
	if o.SAT.Certify != "" {
		if err := o.SAT.Certifiable(argv); err != nil {
			return nil, err
		}
		if cert, err = satjob.Start(job); err != nil {
			return nil, err
		}
		defer cert.Discard()
	}
	inc := stump(ctx, p)
	job.Report.Report(pr.Evaluate(d, inc), inc)
	out := &satjob.Outcome{Model: inc, Cost: costs.Cost(d, inc), Optimal: len(p.Tests) == 0 || p.Classes < 2}
	if ctx.Err() != nil && !out.Optimal {
		// Stopped while the stump was sought (big binary views): the
		// best stump so far, unproven, before any formula is sized.
		return &model.Result{
			Model: inc, Errors: inc.Errors(d), Objective: pr.Evaluate(d, inc),
			Stop:  model.StopOf(ctx),
			Stats: map[string]any{"tests_used": len(p.Tests), "distinct_rows": len(p.Groups), "seconds": time.Since(start).Seconds()},
		}, nil
	}
	if argv != nil && !out.Optimal && p.Floor*costs.Error < out.Cost {
		return solveExternal(ctx, job, o, inc, costs)
	}
	spec := o.SAT.Solver
	started := &sat.Started{OutputLimit: job.Budget.Limit()}
	if out.Optimal {
		out.LowerBound = out.Cost
	} else {
		if _, err := admit(job, p); err != nil {
			return nil, err
		}
		budget := int64(maxClauses)
		if l := job.Budget.Limit(); l > 0 {
			budget = min(budget, l/bytesPerClause)
		}
		s := Settings{
			MaxClauses: budget,
			NewSolver:  started.Wrap(o.SAT.NewSolver),
			Report:     func(_ float64, g *model.Graph) { job.Report.Report(pr.Evaluate(d, g), g) },
			PerRoot:    o.PerRoot,
			Certify:    cert,
		}
		if out, err = Search(ctx, p, pr.Skeleton, costs, inc, costs.Cost(d, inc), s); err != nil {
			return nil, err
		}
	}
	g := out.Model
	proved := out.Optimal && !v.Coarse
	res = &model.Result{
		Model:      g,
		Errors:     g.Errors(d),
		Objective:  pr.Evaluate(d, g),
		LowerBound: objectiveOf(out.LowerBound, costs, totalWeight(d)),
		Stats: map[string]any{
			"tests_used":    len(p.Tests),
			"distinct_rows": len(p.Groups),
			"solver_calls":  out.Calls,
			"variables":     out.Vars,
			"clauses":       out.Clauses,
			"cost_error":    costs.Error,
			"cost_node":     costs.Node,
			"seconds":       time.Since(start).Seconds(),
		},
	}
	if out.TooLarge {
		res.Stats["formula"] = "too large: the stump is returned unproven (an external solver, maxsat-solver, takes the weights as they are)"
	}
	if v.Coarse {
		res.LowerBound = 0
	}
	if res.Proved = proved; proved {
		res.LowerBound = res.Objective
	}
	// The bounds above the floor that rest on an external solver's
	// refutations are its claim, not odtkit's proof.
	satjob.NoteChecked(res, started.CheckedRefutations())
	satjob.ClaimUnchecked(res, started.UncheckedRefutations(), spec, objectiveOf(p.Floor*costs.Error, costs, totalWeight(d)))
	res.LowerBound = min(res.LowerBound, res.Objective)
	res.Stop = model.Ended(ctx, out.Stopped)
	if proved {
		err = satjob.Conclude(ctx, job, b.Info().Name, res, cert)
	}
	return res, err
}

// solveExternal runs the exported formula on the external solver argv
// (package maxsat) and verifies its answer like odt decode; the result
// is never worse than the stump inc.
func solveExternal(ctx context.Context, job *backend.Job, o Options, inc *model.Graph, costs Costs) (*model.Result, error) {
	d := job.Data
	obj := job.Problem.Evaluate(d, inc)
	p, f, _, err := formula(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return maxsat.Stopped(ctx, job, inc, 0), nil
		}
		return nil, err
	}
	return maxsat.Solve(ctx, job, maxsat.Run{
		Argv: o.MaxSAT.Argv, CNF: f.CNF, Soft: f.Soft,
		Verify:    func(a *sat.Answer) (*model.Result, error) { return answerResult(job, p, f, costs, a) },
		Incumbent: inc, Objective: obj, LowerBound: objectiveOf(p.Floor*costs.Error, costs, totalWeight(d)),
	})
}
