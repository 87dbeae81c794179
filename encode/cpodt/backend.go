// Package cpodt is the constraint-programming family's formulation: an
// optimal decision tree as a MiniZinc model (odt.mzn), solved by any
// solver MiniZinc knows (Gecode by default) through the minizinc
// command, or by another command given the model and data files. One
// model serves the three tree objectives: the fewest (weighted) errors
// within a depth, with a minimum leaf support, a leaf cost and a node
// limit; the least depth of a tree with no error; and the smallest such
// tree of least depth. Every solution the solver prints is decoded into
// a tree, checked against the objective it states, and reported as an
// incumbent; MiniZinc's word that the search is complete is a claim
// (Result.Claim), a proof only for a solver the user trusts.
package cpodt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/model"
)

// Backend is the cp-odt backend.
type Backend struct{}

// The optional interfaces cp-odt implements.
var (
	_ backend.Decoder    = Backend{}
	_ backend.Sizer      = Backend{}
	_ backend.Documenter = Backend{}
)

// Info describes cp-odt.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:   "cp-odt",
		Family: backend.FamilyCP,
		Description: "optimal tree by constraint programming: a MiniZinc model over the positions of a complete tree " +
			"(element constraints route the grouped rows, bin-packing loads count each leaf's classes), solved by " +
			"any MiniZinc solver (Gecode by default) or a command; every improving solution streamed and verified",
		Paper:      "Verhaeghe, Nijssen, Pesant, Quimper & Schaus, Learning optimal decision trees using constraint programming, Constraints 2020; Bessiere, Hebrard & O'Sullivan, Minimising decision tree size as combinatorial optimisation, CP 2009",
		Objectives: []model.Objective{model.MinError, model.MinDepth, model.MinSize},
		Input:      "binary view",
		Exact:      true,
		Anytime:    true,
		Caps: backend.Caps{DepthCap: true, MaxNodes: true, LeafCost: true, MinSupport: true,
			Weights: backend.WholeWeights},
		Params: params(),
	}
}

// Solve runs the model on the chosen solver. For min-size it runs twice:
// the least depth first, then the fewest nodes at that depth (so that
// every incumbent reported improves the size).
func (b Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	opts, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	size, err := b.Size(job)
	if err != nil {
		return nil, err
	}
	if err := job.Budget.Admit(size, "the cp-odt model"); err != nil {
		return nil, err
	}
	start := time.Now()
	s := &solver{job: job, spec: opts.Solver, threads: opts.Threads}
	in, err := s.prepare(ctx)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return s.stopped(ctx), nil
		}
		return nil, err
	}
	s.stats = map[string]any{"seconds_prepare": time.Since(start).Seconds(), "tests_used": len(in.Tests),
		"distinct_rows": len(in.Groups), "depth_searched": in.Depth, "cp_solver": strings.TrimPrefix(opts.Solver, "external:")}
	if opts.Threads > 0 {
		s.stats["cp_threads"] = opts.Threads
	}
	if s.best != nil && s.bestObj <= ownBound(in, job.Problem) {
		// The greedy tree meets odtkit's own bound: nothing to search.
		return s.result(ctx, in, false), nil
	}
	switch in.Goal {
	case GoalSize:
		return s.solveSize(ctx, in)
	case GoalDepth:
		run, least, err := s.ascend(ctx, in, true)
		if err != nil {
			return nil, err
		}
		return s.settle(ctx, in, run, least)
	}
	run, err := s.run(ctx, in, true)
	if err != nil {
		return nil, err
	}
	return s.finish(ctx, in, run)
}

// ascend solves the Depth goal as a sequence of satisfaction problems,
// as the SAT family does: a tree of depth exactly k (Lower) on the
// complete tree of depth k, for k from odtkit's own bound up, until the
// solver finds one, refutes every depth below the known tree's (the best
// or the fallback), reaches maxDepth, or stops. least is the least
// depth the runs have not refuted (on the solver's word); run is the
// last run.
func (s *solver) ascend(ctx context.Context, in *Instance, report bool) (run *Run, least int, err error) {
	top := s.maxDepth
	if g := s.known(); g != nil {
		top = min(top, g.Depth()-1)
	}
	least = int(ownBound(in, s.job.Problem))
	if top < 0 {
		// The known tree is a single leaf: no shallower depth to refute.
		return &Run{Answer: &Answer{Unsat: true}}, least, nil
	}
	for k := min(least, top); ; k++ {
		in.Depth, in.Lower = k, in.Objective(0, k, 0)
		if err := in.fits(); err != nil {
			return nil, least, err
		}
		s.stats["depth_searched"] = k
		run, err = s.run(ctx, in, report)
		if err != nil || run.Stopped || !run.Answer.Unsat {
			return run, least, err
		}
		least = k + 1
		if k >= top {
			return run, least, nil
		}
	}
}

// known is the best tree with no error known before the search: the
// incumbent, or the fallback of min-size.
func (s *solver) known() *model.Graph {
	if s.best != nil {
		return s.best
	}
	return s.fallback
}

// settle is the result of the Depth goal's runs (ascend): when every
// depth below the incumbent's is refuted, the solver's claim that the
// incumbent is optimal; otherwise the last run's end (finish), with the
// refuted depths as a claimed bound.
func (s *solver) settle(ctx context.Context, in *Instance, run *Run, least int) (*model.Result, error) {
	if !run.Stopped && run.Answer.Unsat && s.best != nil && least >= s.best.Depth() {
		res := s.result(ctx, in, false)
		res.Claim(res.Objective, s.refutedBy())
		return res, nil
	}
	res, err := s.finish(ctx, in, run)
	if err == nil && run.Stopped && float64(least) > ownBound(in, s.job.Problem) {
		res.Claim(float64(least), s.refutedBy())
	}
	return res, err
}

// refutedBy names the solver's refutations of the shallower depths.
func (s *solver) refutedBy() string {
	return "MiniZinc solver " + strings.TrimPrefix(s.spec, "external:") + " (" + lineUnsat + " at every shallower depth)"
}

// solver is one solve's state: the best tree so far and what it took.
type solver struct {
	job     *backend.Job
	spec    string
	threads int
	best    *model.Graph
	bestObj float64 // the problem's objective of best
	units   int64   // the model's objective of best, in the model's units
	fromRun bool    // best is the last solution of the last run
	runs    int
	stats   map[string]any
	// last is the last solution of a run whose solutions are not
	// reported (the least depth of min-size), in the model's units.
	last      *model.Graph
	lastUnits int64
	// fallback is a tree with no error that is not of least depth (the
	// greedy tree), the result of a min-size search stopped before any
	// other.
	fallback *model.Graph
	// maxDepth is the deepest complete tree min-depth and min-size may
	// need (the depth limit, the node limit, the tests, the groups).
	maxDepth int
}

// prepare builds the instance and, from cart's greedy tree, the first
// incumbent and the depth of the complete tree: the problem's depth for
// the error; for min-depth and min-size the greedy tree's (capped by
// the depth limit), within which a tree of least depth lies.
func (s *solver) prepare(ctx context.Context) (*Instance, error) {
	job := s.job
	p, d := job.Problem, job.Data
	k, capped := p.DepthLimit()
	in, err := prepare(ctx, job, k)
	if err != nil {
		return nil, err
	}
	cfg := cart.Config{MinLeaf: in.MinSupport, LeafCost: p.LeafCost, MaxNodes: p.MaxNodes}
	depth := k
	if in.Goal != GoalError {
		depth, cfg = -1, cart.Config{MaxNodes: p.MaxNodes}
	}
	g, _ := cart.Grow(ctx, in.View, depth, cfg)
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	fits := g != nil && satisfies(d, p, in.Goal, g) == nil && (!capped || g.Depth() <= k)
	if in.Goal != GoalError {
		// The complete tree goes as deep as the greedy tree, or as the
		// depth limit, the node limit and the tests allow.
		k = len(in.Tests)
		if capped {
			k = min(k, p.MaxDepth)
		}
		if p.MaxNodes > 0 {
			k = min(k, p.MaxNodes)
		}
		k = min(k, max(len(in.Groups)-1, 0)) // a path splits off at least one group per test
		s.maxDepth = k
		if fits {
			k = min(k, g.Depth())
		}
		in.Depth = k // ascend searches the depths from the least up
		if err := in.fits(); err != nil {
			return nil, err
		}
	}
	switch {
	case fits && in.Goal == GoalSize && g.Depth() > 0:
		// Not an incumbent of min-size: deeper than the least depth, it
		// may have fewer nodes than every tree of least depth. It is the
		// answer only when the search stops before any other. (A single
		// leaf is of least depth and size: it is the incumbent.)
		s.fallback = g
	case fits:
		s.offer(in, g, in.objectiveOf(g), false)
		if in.Goal == GoalError {
			in.Upper = s.units
		}
	}
	return in, nil
}

// offer keeps g when it improves on the best tree, and reports it.
func (s *solver) offer(in *Instance, g *model.Graph, units int64, fromRun bool) {
	obj := s.job.Problem.Evaluate(s.job.Data, g)
	if s.best != nil && obj >= s.bestObj {
		if fromRun && obj == s.bestObj {
			s.fromRun = true // the run's own solution, as good
		}
		return
	}
	s.best, s.bestObj, s.units, s.fromRun = g, obj, units, fromRun
	s.job.Report.Report(obj, g)
}

// run runs the solver on in; each solution is decoded, checked and,
// when report is set, offered as an incumbent.
func (s *solver) run(ctx context.Context, in *Instance, report bool) (*Run, error) {
	s.runs++
	var last *model.Graph
	var lastUnits int64
	run, err := Solve(ctx, in, Settings{Spec: s.spec, Threads: s.threads, OutputLimit: max(s.job.Budget.Limit(), 0),
		OnSolution: func(sol *Solution) error {
			g, units, err := in.solutionTree(s.job.Problem, sol)
			if err != nil {
				return err
			}
			last, lastUnits = g, units
			if report {
				s.offer(in, g, units, true)
			}
			return nil
		}})
	if run != nil {
		s.stats["solver_seconds"] = addFloat(s.stats["solver_seconds"], run.Seconds)
		if run.Answer != nil {
			s.stats["solutions"] = addInt(s.stats["solutions"], run.Answer.Solutions)
		}
	}
	if err != nil {
		if errors.Is(err, ErrOutput) {
			err = backend.Answer(err)
		}
		return nil, err
	}
	if last != nil && !report {
		s.last, s.lastUnits = last, lastUnits
	}
	return run, nil
}

func addFloat(a any, b float64) float64 { x, _ := a.(float64); return x + b }
func addInt(a any, b int) int           { x, _ := a.(int); return x + b }

// solveSize runs the least depth (ascend), then the fewest nodes at it.
func (s *solver) solveSize(ctx context.Context, in *Instance) (*model.Result, error) {
	depthIn := *in
	depthIn.Goal = GoalDepth
	run, least, err := s.ascend(ctx, &depthIn, false)
	if err != nil {
		return nil, err
	}
	if s.last != nil {
		s.offer(in, s.last, in.objectiveOf(s.last), false)
	}
	out := run.Answer
	least0 := s.last
	if least0 == nil && !run.Stopped && out.Unsat && s.fallback != nil && least >= s.fallback.Depth() {
		// Every depth below the greedy tree's is refuted: it is of least
		// depth, the first incumbent of the size.
		least0 = s.fallback
		s.offer(in, least0, in.objectiveOf(least0), false)
	}
	if least0 == nil || run.Stopped || !out.Unsat && (!out.Complete || out.Truncated) {
		// No least depth known: the first run's end is the solve's.
		s.fromRun = false
		if s.last != nil && s.best == s.last {
			s.fromRun = true
		}
		res, err := s.finish(ctx, in, run)
		if err == nil && run.Stopped && least > 1 {
			res.Claim(float64(2*least+1), s.refutedBy())
		}
		return res, err
	}
	s.stats["min_depth_claimed"] = least0.Depth()
	sizeIn := *in
	sizeIn.Depth = least0.Depth()
	sizeIn.Upper = sizeIn.objectiveOf(least0)
	sizeIn.Lower = sizeIn.Objective(0, sizeIn.Depth, 0)
	s.fromRun = false
	run, err = s.run(ctx, &sizeIn, true)
	if err != nil {
		return nil, err
	}
	return s.finish(ctx, &sizeIn, run)
}

// finish turns the last run's end into the result: a complete search is
// the solver's claim that its last solution is optimal (a proof when
// trusted); an unsatisfiable model its claim that no tree exists.
func (s *solver) finish(ctx context.Context, in *Instance, run *Run) (*model.Result, error) {
	out := run.Answer
	by := "MiniZinc solver " + strings.TrimPrefix(s.spec, "external:") + " (search complete)"
	switch {
	case run.Stopped:
		return s.result(ctx, in, true), nil
	case out.Unsat && (s.best != nil || s.fallback != nil):
		return nil, backend.Answer(fmt.Errorf("cp-odt: %w: the solver says no tree satisfies the model, but cart's tree does", ErrOutput))
	case out.Unsat:
		res := s.result(ctx, in, false)
		res.Infeasible = true
		res.ClaimedBy = "MiniZinc solver " + strings.TrimPrefix(s.spec, "external:") + " (" + lineUnsat + ")"
		return res, nil
	}
	res := s.result(ctx, in, false)
	if out.Truncated {
		res.Stats["truncated"] = "the answer ends inside a solution: the last complete one is kept, with no claim"
		return res, nil
	}
	if out.Complete && res.Model != nil && !in.View.Coarse {
		if !s.fromRun {
			return nil, backend.Answer(fmt.Errorf("cp-odt: %w: the solver claims its solution of objective %d optimal, but a tree of objective %d is known", ErrOutput, out.Last.Objective, s.units))
		}
		res.Claim(res.Objective, by)
	}
	return res, nil
}

// result is the best tree as a result, unproven unless it meets
// odtkit's own bound.
func (s *solver) result(ctx context.Context, in *Instance, stopped bool) *model.Result {
	res := &model.Result{Stats: s.stats}
	if res.Stats == nil {
		res.Stats = map[string]any{}
	}
	res.Stats["solver_runs"] = s.runs
	if s.best == nil && s.fallback != nil {
		s.offer(in, s.fallback, in.objectiveOf(s.fallback), false)
		res.Stats["fallback"] = "the greedy tree: the search ended before a tree of least depth was found"
	}
	if s.best == nil {
		res.Stop = model.Ended(ctx, stopped)
		return res
	}
	d := s.job.Data
	res.Model, res.Errors, res.Objective = s.best, s.best.Errors(d), s.bestObj
	res.LowerBound = min(ownBound(in, s.job.Problem), res.Objective)
	if in.View.Coarse {
		res.LowerBound = 0
	}
	res.Proved = res.LowerBound >= res.Objective
	res.Stop = model.Ended(ctx, stopped)
	return res
}

// stopped is the result of a solve stopped before its model was built.
func (s *solver) stopped(ctx context.Context) *model.Result {
	return &model.Result{Stop: model.StopOf(ctx), Stats: map[string]any{}}
}
