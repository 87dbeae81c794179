package flowoct

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// search holds what the MILP solves of one job share.
type search struct {
	job    *backend.Job
	pr     *prepared
	solver milp.Solver
	hopts  map[string]string
	stats  map[string]any
	// whole: the objective takes whole values (errors of whole row
	// weights, no leaf cost) and in-process HiGHS may stop once its
	// bound is within milpjob.WholeGap of the incumbent; its bounds are rounded
	// up.
	whole bool
	// wholeErrors: the errors of the job's rows take whole values (whole
	// row weights, no leaf cost) and in-process HiGHS solves at gap 0
	// with no absolute gap of its own: whole holds for every MILP of the
	// error objective the job solves (the subtrees of min-depth's and
	// min-size's decomposition too).
	wholeErrors bool
}

// params are the MILP solver's parameters for a solve from start.
func (s *search) params(start []float64) milp.Params {
	p := milpjob.Params(s.job, s.hopts)
	p.Start, p.MemoryLimit = start, s.job.Budget.Limit()
	if s.whole {
		p.Options = map[string]string{"mip_abs_gap": fmt.Sprint(milpjob.WholeGap)}
		for k, v := range s.hopts {
			p.Options[k] = v
		}
	}
	return p
}

// wholeBound reads a solve of a whole objective: HiGHS's "optimal" only
// says that its bound is within milpjob.WholeGap of the point's objective, so the
// proven bound is that objective minus the gap, rounded up; any other
// bound is rounded up too. The status is then feasible: the caller
// compares its best model with the bound.
func (s *search) wholeBound(sol *milp.Solution) {
	if !s.whole {
		return
	}
	switch {
	case sol.Status == milp.StatusOptimal:
		sol.Bound = math.Ceil(sol.Objective - milpjob.WholeGap - 1e-9)
		sol.Status = milp.StatusFeasible
		sol.SolverStatus += " (within the absolute gap of a whole objective)"
	case !math.IsInf(sol.Bound, 0) && !math.IsNaN(sol.Bound):
		sol.Bound = milpjob.WholeBound(sol.Bound)
	}
}

// run is the outcome of one MILP solve.
type run struct {
	best    *model.Graph // best model found (the warm start's or the solver's)
	bestObj float64
	sol     *milp.Solution
	optimal bool // best is proven optimal for this MILP
}

// solve builds and solves the MILP of depth k.
func (s *search) solve(ctx context.Context, k int, report bool) (*run, error) {
	job, p, d := s.job, s.job.Problem, s.job.Data
	if p.Objective == model.MinError && s.pr.set.Benders {
		return s.benders(ctx, k)
	}
	o := options(job, s.pr, k)
	o.Tight = s.pr.set.Tight
	e, stopped, err := s.encode(ctx, o)
	if stopped != nil || err != nil {
		return stopped, err
	}
	st := s.stats
	st["depth"] = k
	st["columns"], st["rows"] = len(e.Model.Columns), len(e.Model.Rows)
	st["binaries"], st["nonzeros"] = e.Model.NumIntegers(), e.Model.NumNonzeros()
	st["tests"], st["groups"] = e.NumTests(), e.NumGroups()
	r := &run{bestObj: math.Inf(1)}
	eval := func(g *model.Graph) float64 {
		if p.Objective == model.MinSize || p.Objective == model.MinDepth {
			return float64(g.Size())
		}
		return p.Evaluate(d, g)
	}
	offer := func(g *model.Graph) {
		if obj := eval(g); obj < r.bestObj-1e-12 {
			r.best, r.bestObj = g, obj
			if report {
				job.Report.Report(p.Evaluate(d, g), g)
			}
		}
	}
	params := s.params(nil)
	inProcess := !milp.IsExternal(s.solver)
	if s.pr.set.WarmStart {
		t := e.Greedy()
		if x, ok := e.Point(t); ok && e.Model.CheckPoint(x, 1e-9) == nil {
			if g, err := e.Decode(x); err == nil {
				offer(g)
				params.Start = x
				st["warm_start_objective"] = r.bestObj
			}
		}
	}
	milpjob.LPBound(ctx, job, s.solver, e.Model, st)
	sol, err := milpjob.Solve(ctx, s.solver, e.Model, params, st)
	if err != nil {
		return nil, err
	}
	s.wholeBound(sol)
	st["milp_status"], st["milp_solver_status"], st["milp_bound"] = string(sol.Status), sol.SolverStatus, sol.BoundOrZero()
	r.sol = sol
	consistent := false
	if sol.X != nil {
		g, err := e.Decode(sol.X)
		if err != nil {
			return nil, fmt.Errorf("decoding the %s solution: %w", s.solver.Name(), err)
		}
		obj := eval(g)
		if e.Opts.Objective == Feasible {
			obj = 0 // no objective: any point will do
			consistent = true
		} else {
			consistent = milpjob.Same(obj, sol.Objective)
		}
		st["decoded_objective"] = obj
		offer(g)
	}
	claimed := sol.Status == milp.StatusOptimal
	if e.Opts.Objective == Feasible {
		r.optimal = claimed || sol.Status == milp.StatusFeasible && r.best != nil
		return r, nil
	}
	tol := milpjob.Tolerance(r.bestObj)
	// A claimed optimum above a model we hold, or whose point decodes to
	// another objective, is wrong.
	wrong := claimed && (!consistent || r.bestObj < sol.Objective-tol)
	r.optimal = claimed && !wrong && r.bestObj <= sol.Objective+tol
	if s.whole && r.best != nil && r.bestObj <= sol.Bound+tol {
		// A proven bound meets a model's objective.
		r.optimal = true
	}
	if wrong && !inProcess {
		// An external solver's optimality claim that its own point or our
		// warm start contradicts is a wrong answer, never an optimum.
		return nil, milpjob.WrongClaim(s.solver, sol.Objective, st["decoded_objective"], r.bestObj)
	}
	return r, nil
}

// minError solves the error objective at the problem's depth.
func (s *search) minError(ctx context.Context) (*model.Result, error) {
	if res, ok := milpjob.OneLeaf(s.job); ok {
		return res, nil
	}
	if decomposes(s.job, s.pr.set) {
		return s.decomposed(ctx)
	}
	r, err := s.solve(ctx, s.job.Problem.MaxDepth, true)
	if err != nil {
		return nil, err
	}
	d, p := s.job.Data, s.job.Problem
	res := &model.Result{Model: r.best}
	milpjob.Ended(ctx, r.sol, res)
	if r.best == nil {
		return res, nil
	}
	res.Errors, res.Objective = r.best.Errors(d), p.Evaluate(d, r.best)
	if r.optimal {
		res.LowerBound, res.Proved = res.Objective, true
	} else {
		res.LowerBound = math.Max(0, math.Min(r.sol.BoundOrZero(), res.Objective))
	}
	return res, nil
}

// depthCap is the deepest tree min-depth and min-size search, and the
// depth of their exported MILP (-1: no cap; an export needs one): the
// problem's depth limit (Problem.DepthLimit; 0 is a single leaf).
func depthCap(p model.Problem) int {
	if d, ok := p.DepthLimit(); ok {
		return d
	}
	return -1
}

// perfect solves min-depth or min-size: depth by depth until a tree with
// no error exists.
func (s *search) perfect(ctx context.Context) (*model.Result, error) {
	p := s.job.Problem
	limit := depthCap(p)
	res := &model.Result{}
	for k := 0; ; k++ {
		if limit >= 0 && k > limit {
			res.Infeasible = true
			res.LowerBound = float64(k)
			if p.Objective == model.MinSize {
				res.LowerBound = float64(2*k + 1)
			}
			return res, nil
		}
		res.LowerBound = float64(k)
		if p.Objective == model.MinSize {
			res.LowerBound = float64(2*k + 1)
		}
		if ctx.Err() != nil {
			res.Stop = model.StopOf(ctx)
			return res, nil
		}
		if s.perfectDecomposable() {
			t, none, err := s.perfectAt(ctx, k)
			if err != nil {
				return nil, err
			}
			s.stats["depths_tried"] = k + 1
			switch {
			case none:
				continue // no tree of depth k without error
			case t == nil:
				res.Stop = model.Ended(ctx, false)
				return res, nil
			case p.Objective == model.MinDepth:
				g := graph(s.job.Data, s.pr.view, t)
				res.Model, res.Errors = g, g.Errors(s.job.Data)
				res.Objective = p.Evaluate(s.job.Data, g)
				res.LowerBound, res.Proved = res.Objective, true // every shallower depth has no such tree
				s.job.Report.Report(res.Objective, g)
				return res, nil
			}
			// Min size: the fewest leaves of a tree of depth k with no
			// error, by the decomposition in size mode.
			out, _, err := s.perfectSearch(ctx, k, true)
			if err != nil {
				return nil, err
			}
			if out.tree == nil {
				out.tree = t
			}
			g := graph(s.job.Data, s.pr.view, out.tree)
			res.Model, res.Errors = g, g.Errors(s.job.Data)
			res.Objective = p.Evaluate(s.job.Data, g)
			s.job.Report.Report(res.Objective, g)
			lb := math.Max(res.LowerBound, 2*math.Ceil(out.lb-1e-9)-1)
			res.LowerBound, res.Proved = math.Min(lb, res.Objective), lb >= res.Objective
			res.Stop = model.Ended(ctx, false)
			return res, nil
		}
		r, err := s.solve(ctx, k, p.Objective == model.MinSize)
		if err != nil {
			return nil, err
		}
		s.stats["depths_tried"] = k + 1
		if r.best == nil {
			if r.sol.Status == milp.StatusInfeasible {
				continue // no tree of depth k without error
			}
			milpjob.Ended(ctx, r.sol, res)
			return res, nil
		}
		g := r.best
		res.Model, res.Errors = g, g.Errors(s.job.Data)
		res.Objective = p.Evaluate(s.job.Data, g)
		if p.Objective == model.MinDepth {
			// Every shallower depth was proven to have no such tree.
			res.LowerBound, res.Proved = res.Objective, true
			s.job.Report.Report(res.Objective, g)
			return res, nil
		}
		milpjob.Ended(ctx, r.sol, res)
		if r.optimal {
			res.LowerBound, res.Proved = res.Objective, true
		} else {
			res.LowerBound = math.Max(res.LowerBound, math.Min(milpjob.WholeBound(r.sol.BoundOrZero()), res.Objective))
		}
		return res, nil
	}
}

// encode writes the MILP of o: a stopped run (no model, no bound) when
// ctx ended while it was written, an invalid-input error for data the
// formulation refuses.
func (s *search) encode(ctx context.Context, o Options) (*Encoding, *run, error) {
	e, err := plan(ctx, s.job, s.pr.view, o, true)
	if err == nil {
		err = e.Build(ctx)
	}
	if errors.Is(err, backend.ErrInvalid) && s.job.Problem.Objective != model.MinError && o.Depth > 0 {
		// A deeper MILP of the depth-by-depth search does not fit: the
		// search stops there, with what the shallower depths proved.
		return nil, nil, fmt.Errorf("%w: %w", model.ErrMemoryLimit, err)
	}
	if errors.Is(err, backend.ErrInvalid) {
		return nil, nil, err
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, &run{bestObj: math.Inf(1), sol: &milp.Solution{Status: milp.StatusNoSolution, Bound: math.Inf(-1)}}, nil
		}
		return nil, nil, err
	}
	return e, nil, nil
}
