package odd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Solve runs the heuristic and HiGHS on the diagram MILP.
func (DiagramBackend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return solveJob(ctx, job, false)
}

// Solve runs the heuristic and HiGHS on the tree MILP.
func (TreeBackend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return solveJob(ctx, job, true)
}

func solveJob(ctx context.Context, job *backend.Job, tree bool) (*model.Result, error) {
	if (tree && job.Problem.Objective == model.MinError && job.Problem.MaxDepth == 0) || job.Data.NumClasses() == 1 {
		// No MILP: the tree is one leaf at depth 0, and a leaf is optimal
		// (no error, no node) on data of one class.
		if job.Problem.MaxDepth > 0 || !tree || job.Problem.Objective != model.MinError {
			// The request is checked as for a MILP.
			o, err := JobOptions(job, tree)
			if err != nil {
				return nil, err
			}
			if err := o.check(job.Data); err != nil {
				return nil, backend.Invalid(err)
			}
		}
		return singleLeaf(job, tree), nil
	}
	set, err := JobSettings(job)
	if err != nil {
		return nil, err
	}
	hopts := set.MILP.HiGHS
	size, release, err := admit(job, tree, true)
	defer release()
	if err != nil {
		return nil, err
	}
	e, err := encode(ctx, job, tree)
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
	external := milp.IsExternal(solver)
	if !milp.HiGHSEnabled && !external {
		return nil, milp.ErrNotEnabled
	}
	d, p := job.Data, job.Problem
	stats := map[string]any{"columns": len(e.Model.Columns), "rows": len(e.Model.Rows),
		"binaries": e.Model.NumIntegers(), "nonzeros": e.Model.NumNonzeros(), "size_estimate": size,
		"formulation": set.Formulation}
	var best *model.Graph
	bestObj := math.Inf(1)
	offer := func(g *model.Graph) {
		if obj := p.Evaluate(d, g); obj < bestObj-1e-12 {
			best, bestObj = g, obj
			job.Report.Report(obj, g)
		}
	}
	params := milpjob.Params(job, hopts)
	params.MemoryLimit = job.Budget.Limit()
	milpjob.LPBound(ctx, job, solver, e.Model, stats)
	if set.WarmStart {
		// Step 1: within 10% of the time left, at most 60 s.
		budget := 60 * time.Second
		if dl, ok := ctx.Deadline(); ok {
			budget = min(budget, time.Until(dl)/10)
		}
		hctx, cancel := context.WithTimeout(ctx, budget)
		start := time.Now()
		inc := e.Heuristic(hctx, set.Restarts, uint64(job.Seed))
		cancel()
		stats["heuristic_seconds"] = time.Since(start).Seconds()
		if inc != nil {
			// The heuristic knows the skeleton, not every side constraint
			// (node limits, parsimony, stability, fairness): its diagram is an
			// incumbent, a start and a cutoff only when it satisfies the MILP,
			// or the cutoff's infeasibility would "prove" a model that breaks
			// them.
			if err := e.Model.CheckPoint(inc.X, milpjob.Tol); err != nil {
				stats["heuristic_rejected"] = err.Error()
				inc = nil
			}
		}
		if inc != nil {
			offer(inc.Graph)
			stats["heuristic_objective"] = bestObj
		}
		if inc != nil && !external {
			// The paper's cutoff, plus the model itself as a MIP start.
			params.Cutoff, params.HasCutoff, params.Start = bestObj, true, inc.X
			if c, ok := e.cutoffBelow(bestObj); ok && set.LatticeCutoff {
				params.Cutoff = c
				stats["cutoff"] = c
			}
		}
	}
	if left := e.CutsLeftOut(); left != nil {
		stats["cuts_left_out"] = strings.Join(left, ",") + fmt.Sprintf(": alpha %g makes a node cost more than %g, beyond a row coefficient's range", e.Opts.Alpha, maxRowNodeCost)
	}
	if ds := e.diagram; ds != nil {
		stats["diagram_search_seconds"] = ds.seconds
		stats["diagram_search_bound"] = ds.bound
		stats["diagram_search_finished"] = ds.finished
		// The search's best diagram, when it satisfies the whole MILP
		// (side constraints included), is an incumbent and the start.
		if inc := e.foundIncumbent(); inc != nil {
			better := inc.Objective < bestObj-1e-12
			offer(inc.Graph)
			stats["diagram_search_objective"] = inc.Objective
			if better && !external {
				params.Cutoff, params.HasCutoff, params.Start = bestObj, true, inc.X
			}
		}
	}
	res := &model.Result{Stats: stats}
	sol, err := milpjob.Solve(ctx, solver, e.Model, params, stats)
	if err != nil {
		return nil, err
	}
	consistent := false
	if sol.X != nil {
		g, err := e.Decode(sol.X)
		if err != nil {
			return nil, err
		}
		obj := p.Evaluate(d, g)
		stats["decoded_objective"] = obj
		consistent = milpjob.Same(obj, sol.Objective)
		offer(g)
	}
	res.Model = best
	if sol.MemoryLimit && !milpProven(sol, params.HasCutoff, consistent, bestObj) {
		// The best model (if any) is in the job's trace.
		return nil, fmt.Errorf("%w: HiGHS stopped with the process's resident memory above the cap of %s", model.ErrMemoryLimit, backend.MB(job.Budget.Limit()))
	}
	if best == nil {
		milpjob.Ended(ctx, sol, res)
		if external {
			milpjob.ClaimExternal(res, milp.Claimant(solver), 0)
		}
		return res, nil
	}
	proven := milpProven(sol, params.HasCutoff, consistent, bestObj)
	if external && sol.Status == milp.StatusOptimal && (!consistent || bestObj < sol.Objective-milpjob.Tolerance(bestObj)) {
		// A program's optimality claim that its own point or the
		// heuristic's model contradicts is a wrong answer, never an optimum.
		return nil, milpjob.WrongClaim(solver, sol.Objective, stats["decoded_objective"], bestObj)
	}
	milpjob.Ended(ctx, sol, res)
	res.Errors, res.Objective = best.Errors(d), bestObj
	if res.Proved = proven; proven {
		res.LowerBound = bestObj
	} else {
		res.LowerBound = math.Max(0, math.Min(sol.BoundOrZero(), bestObj))
	}
	if external {
		// The program's "optimal" and bound are its word, not odtkit's.
		milpjob.ClaimExternal(res, milp.Claimant(solver), 0)
	}
	return res, nil
}

// singleLeaf is the optimal depth-0 tree: a leaf of the class of largest
// weight.
func singleLeaf(job *backend.Job, tree bool) *model.Result {
	d := job.Data
	w := make([]float64, d.NumClasses())
	for r := range d.Rows() {
		w[d.Labels[r]] += d.Weight(r)
	}
	c, _ := model.Majority(w)
	kind := model.KindDiagram
	if tree {
		kind = model.KindTree
	}
	b := model.NewBuilder(d, kind)
	g := b.Graph(b.Leaf(c))
	obj := job.Problem.Evaluate(d, g)
	job.Report.Report(obj, g)
	return &model.Result{Model: g, Errors: g.Errors(d), Objective: obj, LowerBound: obj, Proved: true}
}

// milpProven reports whether the best model (objective bestObj) is
// proven optimal by a MILP run that ended with sol: HiGHS proved that
// nothing beats the cutoff (the heuristic's objective), or proved its
// solution optimal, that solution decodes to a model of the same
// objective (consistent), and the best model is not worse.
func milpProven(sol *milp.Solution, hasCutoff, consistent bool, bestObj float64) bool {
	switch sol.Status {
	case milp.StatusInfeasible:
		return hasCutoff
	case milp.StatusOptimal:
		// HiGHS's objective of a point is within its tolerances (flows
		// and λ integral to ~1e-6) of the diagram's, as consistent checks;
		// the same tolerance here (found: a point 3e-9 below the decoded
		// diagram's objective made a closed search "unproven").
		return consistent && bestObj <= sol.Objective+milpjob.Tolerance(bestObj)
	}
	return false
}
