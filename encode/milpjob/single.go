package milpjob

import (
	"context"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Single is one MILP of the error objective whose objective is the
// problem's objective in its own units (model.Problem.Evaluate) at every
// point that decodes to a model: a formulation solved whole, with no
// search around it (milp-oct, milp-binoct).
type Single struct {
	Model *milp.Model
	// Decode reads the model of a point.
	Decode func(x []float64) (*model.Graph, error)
	// Start, when not nil, is a point of Model given as the solver's first
	// incumbent.
	Start []float64
	// Whole says that the objective takes whole values at every integer
	// point (whole row weights, no leaf cost): in-process HiGHS may then
	// stop once its bound is within WholeGap of the incumbent, and its
	// bounds are rounded up.
	Whole bool
}

// WholeGap is HiGHS's absolute gap for a whole objective: a bound above
// the incumbent minus one proves it optimal.
const WholeGap = 0.9999

// SolveSingle solves s for the job with solver (the further HiGHS
// options hopts) and returns the result: the best model of the start and
// the solver's point, optimal when the solver proved its point's
// objective and that point decodes to a model of that objective (or a
// whole bound meets it), the bound otherwise. The run is recorded in
// stats (see Solve and LPBound; decoded_objective, start_objective). An
// external solver's optimality claim that its own point or the start
// contradicts is an error; its other claims are moved to the result's
// claim (ClaimExternal).
func SolveSingle(ctx context.Context, job *backend.Job, solver milp.Solver, hopts map[string]string, s Single, stats map[string]any) (*model.Result, error) {
	d, p := job.Data, job.Problem
	var best *model.Graph
	bestObj := math.Inf(1)
	offer := func(g *model.Graph) {
		if obj := p.Evaluate(d, g); obj < bestObj-1e-12 {
			best, bestObj = g, obj
			job.Report.Report(obj, g)
		}
	}
	external := milp.IsExternal(solver)
	whole := s.Whole && !external && readOptions(job).Gap == 0
	if _, set := hopts["mip_abs_gap"]; set {
		whole = false
	}
	params := Params(job, hopts)
	params.MemoryLimit = job.Budget.Limit()
	if whole {
		params.Options = map[string]string{"mip_abs_gap": fmt.Sprint(WholeGap)}
		for k, v := range hopts {
			params.Options[k] = v
		}
	}
	if s.Start != nil && s.Model.CheckPoint(s.Start, 1e-9) == nil {
		if g, err := s.Decode(s.Start); err == nil {
			offer(g)
			params.Start = s.Start
			stats["start_objective"] = bestObj
		}
	}
	LPBound(ctx, job, solver, s.Model, stats)
	sol, err := Solve(ctx, solver, s.Model, params, stats)
	if err != nil {
		return nil, err
	}
	if whole {
		switch {
		case sol.Status == milp.StatusOptimal:
			sol.Bound = math.Ceil(sol.Objective - WholeGap - 1e-9)
			sol.Status = milp.StatusFeasible
			sol.SolverStatus += " (within the absolute gap of a whole objective)"
		case !math.IsInf(sol.Bound, 0) && !math.IsNaN(sol.Bound):
			sol.Bound = WholeBound(sol.Bound)
		}
		stats["milp_status"], stats["milp_solver_status"], stats["milp_bound"] = string(sol.Status), sol.SolverStatus, sol.BoundOrZero()
	}
	consistent := false
	if sol.X != nil {
		g, err := s.Decode(sol.X)
		if err != nil {
			return nil, fmt.Errorf("decoding the %s solution: %w", solver.Name(), err)
		}
		obj := p.Evaluate(d, g)
		stats["decoded_objective"] = obj
		consistent = Same(obj, sol.Objective)
		offer(g)
	}
	claimed := sol.Status == milp.StatusOptimal
	tol := Tolerance(bestObj)
	wrong := claimed && (!consistent || bestObj < sol.Objective-tol)
	optimal := claimed && !wrong && bestObj <= sol.Objective+tol
	if whole && best != nil && bestObj <= sol.Bound+tol {
		optimal = true
	}
	if wrong && external {
		return nil, WrongClaim(solver, sol.Objective, stats["decoded_objective"], bestObj)
	}
	res := &model.Result{Model: best}
	Ended(ctx, sol, res)
	if best != nil {
		res.Errors, res.Objective = best.Errors(d), bestObj
		if optimal {
			res.LowerBound, res.Proved = res.Objective, true
		} else {
			res.LowerBound = math.Max(0, math.Min(sol.BoundOrZero(), res.Objective))
		}
	}
	if external {
		// The program's "optimal", "infeasible" and bounds are its word,
		// not odtkit's.
		ClaimExternal(res, milp.Claimant(solver), 0)
	}
	return res, nil
}

// OneLeaf is the result of an error problem whose leaf cost decides it
// without a MILP: when λ is at least the single leaf's error share e/W,
// a tree of L ≥ 2 leaves costs at least L·λ ≥ λ + e/W, the single leaf's
// objective, so the majority leaf is optimal and its objective is the
// bound. ok is false for every other job; the MILP then sees a leaf cost
// below e/W ≤ 1, a coefficient of the same scale as the errors' (a leaf
// cost of 1e300, which HiGHS would read as infinite, never reaches it).
// A small margin leaves the ties to the MILP.
func OneLeaf(job *backend.Job) (res *model.Result, ok bool) {
	d, p := job.Data, job.Problem
	if p.Objective != model.MinError || p.LeafCost <= 0 || d.Rows() < p.MinSupport {
		return nil, false
	}
	_, e := model.Majority(d.ClassCounts())
	total := d.TotalWeight()
	if total <= 0 || p.LeafCost < e/total*(1+1e-9) {
		return nil, false
	}
	g := model.MajorityLeaf(d)
	obj := p.Evaluate(d, g)
	job.Report.Report(obj, g)
	return &model.Result{Model: g, Errors: g.Errors(d), Objective: obj, LowerBound: obj, Proved: true}, true
}
