// Package milpjob runs the MILP of a MILP-family backend (milp-odd,
// milp-odt, milp-flowoct): the options they share (gap, highs,
// milp-solver, lp-bound, trust-solver), the solver they pick, one status
// mapping from a MILP run to a result, and the decoding of a MILP
// solver's solution file into a result. It is the MILP counterpart of
// encode/maxsat; package milp stays a generic MILP layer that knows
// nothing of models.
package milpjob

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Params are the solver parameters every MILP backend sets from its job:
// threads, the relative gap, the seed and the further HiGHS options.
func Params(job *backend.Job, highs map[string]string) milp.Params {
	return milp.Params{Threads: job.Threads, RelGap: readOptions(job).Gap, Seed: int(job.Seed), Options: highs}
}

// LPBound solves the LP relaxation of m within a fifth of the time left
// (the bound is a report, the MILP the answer) when the job asks for it
// and the solver is in-process HiGHS, and records its bound in stats
// (lp_bound, lp_seconds). A failed relaxation records nothing.
func LPBound(ctx context.Context, job *backend.Job, solver milp.Solver, m *milp.Model, stats map[string]any) {
	if !readOptions(job).LPBound || !milp.HiGHSEnabled || milp.IsExternal(solver) {
		return
	}
	lctx, cancel := ctx, context.CancelFunc(func() {})
	if dl, ok := ctx.Deadline(); ok {
		lctx, cancel = context.WithTimeout(ctx, time.Until(dl)/5)
	}
	defer cancel()
	sol, err := milp.HiGHS().Solve(lctx, milp.Relaxation(m), milp.Params{Threads: job.Threads})
	if err == nil && sol.Status == milp.StatusOptimal {
		stats["lp_bound"], stats["lp_seconds"] = sol.Objective, sol.Seconds
	}
}

// Solve solves m and records the run in stats (milp_status,
// milp_solver_status, milp_time_limit, milp_bound, milp_nodes,
// milp_seconds, and milp_objective when there is a point) unless stats is
// nil. An option the solver refuses is an error wrapping
// backend.ErrInvalid.
func Solve(ctx context.Context, solver milp.Solver, m *milp.Model, p milp.Params, stats map[string]any) (*milp.Solution, error) {
	sol, err := solver.Solve(ctx, m, p)
	if errors.Is(err, milp.ErrOption) {
		return nil, backend.Invalidf("option highs: %w", err)
	}
	if err != nil {
		return nil, err
	}
	if stats == nil {
		return sol, nil
	}
	stats["milp_status"], stats["milp_solver_status"] = string(sol.Status), sol.SolverStatus
	stats["milp_time_limit"] = sol.TimeLimit
	stats["milp_bound"], stats["milp_nodes"], stats["milp_seconds"] = sol.BoundOrZero(), sol.Nodes, sol.Seconds
	if sol.X != nil {
		stats["milp_objective"] = sol.Objective
	}
	return sol, nil
}

// Tol is the relative tolerance of a MILP solver's objective values:
// solvers hold integrality and rows to about 1e-6, so an objective
// within Tol·max(1, |x|) of x is x (see Tolerance).
const Tol = 1e-6

// Tolerance is the tolerance at objective value x: Tol·max(1, |x|).
func Tolerance(x float64) float64 { return Tol * math.Max(1, math.Abs(x)) }

// WholeBound is a bound b on a whole objective rounded up to the whole
// value it proves (within Tol: a bound a hair below a whole value
// proves that value).
func WholeBound(b float64) float64 { return math.Ceil(b - Tol) }

// Same reports whether a solver's objective of a point is the decoded
// model's objective, within the solver's tolerances (Tolerance of obj).
func Same(obj, milpObj float64) bool {
	return math.Abs(obj-milpObj) <= Tolerance(obj)
}

// WrongClaim is the error about an external solver's optimality claim
// that its own point (decoded to objective decoded) or a model of
// objective best contradicts: a wrong answer, never an optimum.
func WrongClaim(solver milp.Solver, claimed float64, decoded any, best float64) error {
	return fmt.Errorf("MILP solver %s claims an optimum of %v, but its solution decodes to a model of objective %v and a model of objective %v exists: the solver's answer is wrong",
		solver.Name(), claimed, decoded, best)
}

// Ended records on res, a result of a MILP run that ended with sol,
// the facts backend.Settle names its status from: without a model, a
// solver's proof that no point exists (res.Infeasible); and why the run
// stopped — the context's stop, or the solver's own memory limit, or
// its own time limit (set just short of the context's deadline) when it
// ended the run before the context did; else the run ended on its own
// (it finished, or stopped at the gap asked for). A stop is recorded
// even without a model, as the registry names a stop while reading:
// "time-limit" says what a longer run might change, "no-solution" that
// the run ended with nothing. A model proven optimal has its lower
// bound at its objective.
func Ended(ctx context.Context, sol *milp.Solution, res *model.Result) {
	if res.Model == nil && sol.Status == milp.StatusInfeasible {
		res.Infeasible = true
	}
	res.Stop = model.StopOf(ctx)
	switch {
	case res.Stop != model.StopUnsaid:
	case sol.MemoryLimit:
		res.Stop = model.StopMemory
	case sol.TimeLimit:
		res.Stop = model.StopTimeLimit
	default:
		res.Stop = model.StopNone
	}
}

// Status is the status backend.Settle names for a MILP run that ended
// with sol (Ended), with a model or without (hasModel), proven optimal
// or not.
func Status(ctx context.Context, sol *milp.Solution, hasModel, optimal bool) model.Status {
	res := &model.Result{Objective: 1}
	if hasModel {
		res.Model = &model.Graph{}
	}
	if optimal {
		res.LowerBound, res.Proved = res.Objective, true
	}
	Ended(ctx, sol, res)
	backend.Settle(ctx, res, false)
	return res.Status
}

// ClaimExternal moves what a result of an external solver program's run
// owes to the program's word — an optimum it called optimal, a bound it
// proved, an infeasibility — to the result's claim by the program by,
// keeping as the lower bound only own, what odtkit knows without the
// program. The selector then reports the result as feasible (no-solution
// for a claimed infeasibility) unless the solver is trusted.
func ClaimExternal(res *model.Result, by string, own float64) {
	claimed := res.LowerBound // the objective when proven optimal
	switch {
	case res.Model == nil && res.Infeasible:
		res.Claim(math.Max(claimed, own), by)
	case claimed > own:
		res.Claim(claimed, by)
	}
	res.LowerBound = math.Min(res.LowerBound, own)
}
