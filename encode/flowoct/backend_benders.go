package flowoct

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
)

// benders solves the error objective at depth k by the Benders cut loop:
// the master (tree variables, one variable per group and class) starts
// with the cuts of the greedy tree's paths; each round solves it, reads
// the tree of its solution, evaluates that tree exactly (an incumbent),
// adds the cuts the solution violates and solves again, warm-started
// with the best tree. The master with some of the cuts is a relaxation,
// so each round's bound is a lower bound on the errors; a round whose
// solution violates no cut is optimal for the full problem.
//
// HiGHS's callbacks cannot add constraints during a solve (its C API
// hands a callback the cut pool to read, and takes back only an
// interrupt flag and a solution), so the cuts are added between solves.
func (s *search) benders(ctx context.Context, k int) (*run, error) {
	job, p, d := s.job, s.job.Problem, s.job.Data
	o := options(job, s.pr, k)
	o.Benders = true
	e, stopped, err := s.encode(ctx, o)
	if stopped != nil || err != nil {
		return stopped, err
	}
	st := s.stats
	st["formulation"] = "benders"
	st["depth"] = k
	st["tests"], st["groups"] = e.NumTests(), e.NumGroups()
	st["benders_pairs"] = e.NumCutVars()
	r := &run{bestObj: math.Inf(1)}
	var bestTree Tree
	offer := func(t Tree) error {
		g, err := e.Graph(t)
		if err != nil {
			return err
		}
		if obj := p.Evaluate(d, g); obj < r.bestObj-1e-12 {
			r.best, r.bestObj, bestTree = g, obj, t
			job.Report.Report(obj, g)
		}
		return nil
	}
	var start []float64
	t := e.Greedy()
	if x, ok := e.Point(t); ok {
		// Seed the master with the minimum cuts of the greedy tree's
		// paths (valid whatever tree the master picks).
		// A stopped search for them leaves fewer (still valid) cuts,
		// and the loop below does not start.
		seed, _ := e.AllCuts(ctx, x)
		e.AddCuts(seed)
		st["benders_seed_cuts"] = len(seed)
		if s.pr.set.WarmStart && e.Model.CheckPoint(x, 1e-9) == nil {
			if err := offer(t); err != nil {
				return nil, err
			}
			start = x
			st["warm_start_objective"] = r.bestObj
		}
	}
	lb := math.Inf(-1)
	agg := &milp.Solution{Status: milp.StatusNoSolution, Bound: lb}
	rounds, added := 0, 0
	defer func() {
		st["benders_rounds"], st["benders_cuts"] = rounds, added
		st["columns"], st["rows"] = len(e.Model.Columns), len(e.Model.Rows)
		st["binaries"], st["nonzeros"] = e.Model.NumIntegers(), e.Model.NumNonzeros()
	}()
	for ctx.Err() == nil {
		sol, err := milpjob.Solve(ctx, s.solver, e.Model, s.params(start), nil)
		if err != nil {
			return nil, err
		}
		s.wholeBound(sol)
		rounds++
		agg.Nodes += sol.Nodes
		agg.Seconds += sol.Seconds
		agg.SolverStatus = sol.SolverStatus
		agg.TimeLimit = sol.TimeLimit
		agg.MemoryLimit = sol.MemoryLimit
		if sol.Status == milp.StatusInfeasible {
			// The master is a relaxation: no tree at all.
			agg.Status = milp.StatusInfeasible
			break
		}
		if !math.IsInf(sol.Bound, 0) && !math.IsNaN(sol.Bound) {
			lb = math.Max(lb, sol.Bound)
		}
		if sol.X == nil {
			break
		}
		prev := r.bestObj
		tr, err := e.TreeOf(sol.X)
		if err != nil {
			return nil, fmt.Errorf("decoding the %s solution of the Benders master: %w", s.solver.Name(), err)
		}
		if err := offer(tr); err != nil {
			return nil, fmt.Errorf("decoding the %s solution of the Benders master: %w", s.solver.Name(), err)
		}
		if x, ok := e.Point(bestTree); ok {
			start = x
		}
		cuts, err := e.Violated(ctx, sol.X, milpjob.Tol)
		if err != nil {
			break // stopped: no claim from a partial search for cuts
		}
		tol := milpjob.Tolerance(r.bestObj)
		if len(cuts) == 0 && sol.Status == milp.StatusOptimal && math.Abs(r.bestObj-sol.Objective) <= tol {
			// The master's optimum is a tree's true objective.
			lb = math.Max(lb, sol.Objective)
		}
		if r.bestObj <= lb+tol {
			r.optimal = true
			break
		}
		if sol.TimeLimit || sol.MemoryLimit || len(cuts) == 0 && (sol.Status == milp.StatusOptimal || r.bestObj >= prev-1e-12) {
			// Stopped, or stopped at a gap with no cut to add and no
			// better tree to start again from.
			break
		}
		e.AddCuts(cuts)
		added += len(cuts)
	}
	agg.Bound = lb
	switch {
	case r.optimal:
		agg.Status = milp.StatusOptimal
	case r.best != nil:
		agg.Status = milp.StatusFeasible
	}
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		agg.TimeLimit = true
	}
	agg.Objective = r.bestObj
	r.sol = agg
	st["milp_status"], st["milp_solver_status"] = string(agg.Status), agg.SolverStatus
	st["milp_time_limit"] = agg.TimeLimit
	st["milp_bound"], st["milp_nodes"], st["milp_seconds"] = agg.BoundOrZero(), agg.Nodes, agg.Seconds
	return r, nil
}
