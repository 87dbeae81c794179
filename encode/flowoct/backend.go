package flowoct

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Backend is the milp-flowoct backend: FlowOCT on HiGHS (or any MILP
// solver by command) for the fewest (weighted) errors at a depth, and
// with a zero-error constraint and a node count for the minimum depth
// and minimum size of a tree with no training error. It exports the MILP
// and decodes a MILP solver's solution file for it.
type Backend struct{}

// The optional interfaces milp-flowoct implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
)

// solveOnly are the options that steer the solve but not the MILP; an
// export refuses them.
var solveOnly = []string{"gap", "warm-start", "lp-bound", "highs", "milp-solver", "formulation"}

// Info describes milp-flowoct. Row weights weigh the errors; a node
// limit caps the tests; a leaf cost is the sparse error objective. For
// min-depth and min-size a depth limit caps the depths tried and is the
// depth of an exported MILP.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "milp-flowoct",
		Family:      backend.FamilyMILP,
		Description: "optimal tree by FlowOCT, the flow MILP on binary tests (Aghaei, Gómez & Vayanos 2024), or its Benders form, on HiGHS (build with -tags highs) or any MILP solver by command",
		Objectives:  []model.Objective{model.MinError, model.MinDepth, model.MinSize},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{DepthCap: true, MaxNodes: true, LeafCost: true, MinSupport: true, Weights: backend.AnyWeights},
		Params: []backend.Param{
			backend.EnumParam("formulation", "flow", []string{"flow", "benders"}, "error objective: flow states every group's flow in one MILP; benders solves a master of the tree variables and adds each group's min-cut cuts between re-solves (the cut loop; the bound of every round is a lower bound)"),
			milpjob.SolverParam(""),
			milpjob.GapParam(),
			backend.BoolParam("warm-start", true, "give the MILP solver the greedy (CART-like, Gini) tree of the depth as its first incumbent"),
			milpjob.LPBoundParam(true),
			milpjob.HiGHSParam(),
			backend.TrustSolverParam(),
			backend.BoolParam("drop-conflicts", false, "min-depth, min-size: drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"),
		},
	}
}

// prepared is the data of a job: its binary view and, for the
// perfect-tree objectives, the rows the tree must classify.
type prepared struct {
	view    *model.BinaryView
	keep    model.Bitset
	dropped int
}

func prepare(ctx context.Context, job *backend.Job) (*prepared, error) {
	// A job made without NewJob is checked here too: never ignore a field.
	if err := backend.Check(Backend{}.Info(), job.Data, job.Problem); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	pr := &prepared{}
	switch job.Problem.Objective {
	case model.MinDepth, model.MinSize:
		// The conflict rule, option and message of every perfect-tree
		// backend (sat-depth, sat-size): model.Dataset.ConsistentRows.
		keep, dropped, err := job.Data.ConsistentRows(job.Options.Bool("drop-conflicts"))
		if err != nil {
			return nil, backend.Invalid(err)
		}
		pr.keep, pr.dropped = keep, dropped
	default:
		if job.Options.IsSet("drop-conflicts") {
			return nil, backend.Invalidf("option drop-conflicts applies to min-depth and min-size only")
		}
	}
	v, err := exactView(ctx, job)
	if err != nil {
		return nil, err
	}
	pr.view = v
	return pr, nil
}

// options states the MILP of the job at depth k.
func options(job *backend.Job, pr *prepared, k int) Options {
	p := job.Problem
	o := Options{Depth: k, MaxInternal: p.MaxNodes, LeafCost: p.LeafCost, Rows: pr.keep, MinSupport: p.MinSupport}
	switch p.Objective {
	case model.MinDepth:
		o.Objective = Feasible
	case model.MinSize:
		o.Objective = Nodes
	}
	return o
}

// Solve runs the job: one MILP at the depth for the error objective;
// for min-depth and min-size one per depth from 0 up (the first depth
// with a tree of no error is the minimum, and that MILP's node count is
// the minimum size).
func (Backend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	start := time.Now()
	pr, err := prepare(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Status: model.StoppedStatus(ctx)}, nil
		}
		return nil, err
	}
	if job.Options.String("formulation") == "benders" && job.Problem.Objective != model.MinError {
		return nil, backend.Invalidf("option formulation=benders states the error objective only, not %s", job.Problem.Objective)
	}
	solver, err := milpjob.NewSolver(job)
	if err != nil {
		return nil, err
	}
	hopts, err := milpjob.HiGHSOptions(job.Options.String(milpjob.OptHiGHS))
	if err != nil {
		return nil, err
	}
	s := &search{job: job, pr: pr, solver: solver, hopts: hopts, stats: map[string]any{"binary_tests": pr.view.NumTests()}}
	_, fractional := job.Data.FractionalWeight()
	s.whole = job.Problem.Objective == model.MinError && job.Problem.LeafCost == 0 && !fractional &&
		!milp.IsExternal(solver) && job.Options.Float("gap") == 0
	if _, set := hopts["mip_abs_gap"]; set {
		s.whole = false
	}
	var res *model.Result
	if job.Problem.Objective == model.MinError {
		res, err = s.minError(ctx)
	} else {
		res, err = s.perfect(ctx)
	}
	if err != nil {
		return nil, err
	}
	if milp.IsExternal(solver) {
		// The program's "optimal", "infeasible" and bounds are its word,
		// not odtkit's.
		milpjob.ClaimExternal(res, milp.Claimant(solver), 0)
	}
	res.Stats = s.stats
	res.Stats["seconds_total"] = time.Since(start).Seconds()
	res.DroppedRows = pr.dropped
	return res, nil
}

// search holds what the MILP solves of one job share.
type search struct {
	job    *backend.Job
	pr     *prepared
	solver milp.Solver
	hopts  map[string]string
	stats  map[string]any
	// whole: the objective takes whole values (errors of whole row
	// weights, no leaf cost) and in-process HiGHS may stop once its
	// bound is within wholeGap of the incumbent; its bounds are rounded
	// up.
	whole bool
}

// wholeGap is HiGHS's absolute gap for a whole objective: a bound above
// the incumbent minus one proves it optimal.
const wholeGap = 0.9999

// params are the MILP solver's parameters for a solve from start.
func (s *search) params(start []float64) milp.Params {
	p := milpjob.Params(s.job, s.hopts)
	p.Start, p.MemoryLimit = start, s.job.Budget.Limit()
	if s.whole {
		p.Options = map[string]string{"mip_abs_gap": fmt.Sprint(wholeGap)}
		for k, v := range s.hopts {
			p.Options[k] = v
		}
	}
	return p
}

// wholeBound reads a solve of a whole objective: HiGHS's "optimal" only
// says that its bound is within wholeGap of the point's objective, so the
// proven bound is that objective minus the gap, rounded up; any other
// bound is rounded up too. The status is then feasible: the caller
// compares its best model with the bound.
func (s *search) wholeBound(sol *milp.Solution) {
	if !s.whole {
		return
	}
	switch {
	case sol.Status == milp.StatusOptimal:
		sol.Bound = math.Ceil(sol.Objective - wholeGap - 1e-9)
		sol.Status = milp.StatusFeasible
		sol.SolverStatus += " (within the absolute gap of a whole objective)"
	case !math.IsInf(sol.Bound, 0) && !math.IsNaN(sol.Bound):
		sol.Bound = math.Ceil(sol.Bound - 1e-6)
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
	if p.Objective == model.MinError && job.Options.String("formulation") == "benders" {
		return s.benders(ctx, k)
	}
	e, stopped, err := s.encode(ctx, options(job, s.pr, k))
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
	if job.Options.Bool("warm-start") {
		t := e.Greedy()
		if e.Opts.general() {
			t = e.Prune(t)
		}
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
	tol := 1e-6 * math.Max(1, math.Abs(r.bestObj))
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
	if res, ok := oneLeaf(s.job); ok {
		return res, nil
	}
	r, err := s.solve(ctx, s.job.Problem.MaxDepth, true)
	if err != nil {
		return nil, err
	}
	d, p := s.job.Data, s.job.Problem
	res := &model.Result{Model: r.best}
	if r.best == nil {
		res.Status = milpjob.Status(ctx, r.sol, false, false)
		return res, nil
	}
	res.Optimal = r.optimal
	res.Status = milpjob.Status(ctx, r.sol, true, r.optimal)
	res.Errors, res.Objective = r.best.Errors(d), p.Evaluate(d, r.best)
	if r.optimal {
		res.LowerBound = res.Objective
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
			res.Status = model.StatusInfeasible
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
			res.Status = model.StoppedStatus(ctx)
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
			res.Status = milpjob.Status(ctx, r.sol, false, false)
			return res, nil
		}
		g := r.best
		res.Model, res.Errors = g, g.Errors(s.job.Data)
		res.Objective = p.Evaluate(s.job.Data, g)
		if p.Objective == model.MinDepth {
			// Every shallower depth was proven to have no such tree.
			res.Optimal, res.Status, res.LowerBound = true, model.StatusOptimal, res.Objective
			s.job.Report.Report(res.Objective, g)
			return res, nil
		}
		res.Optimal = r.optimal
		res.Status = milpjob.Status(ctx, r.sol, true, r.optimal)
		if r.optimal {
			res.LowerBound = res.Objective
		} else {
			res.LowerBound = math.Max(res.LowerBound, math.Min(math.Ceil(r.sol.BoundOrZero()-1e-6), res.Objective))
		}
		return res, nil
	}
}

// ExportFormat is "mps".
func (Backend) ExportFormat() string { return "mps" }

// exportEncoding builds the MILP an export or a decode is about: the
// error objective at --depth, or for min-depth and min-size the MILP of
// one depth (--depth K).
func exportEncoding(ctx context.Context, job *backend.Job) (*Encoding, error) {
	for _, k := range solveOnly {
		if job.Options.IsSet(k) {
			return nil, backend.Invalidf("option %s steers the solve, not the MILP: export and decode do not take it", k)
		}
	}
	pr, err := prepare(ctx, job)
	if err != nil {
		return nil, err
	}
	k := job.Problem.MaxDepth
	if job.Problem.Objective != model.MinError {
		k = depthCap(job.Problem)
	}
	if job.Problem.Objective != model.MinError && k < 1 {
		return nil, backend.Invalidf("the exported MILP of %s is that of one depth: give --depth K", job.Problem.Objective)
	}
	e, err := plan(ctx, job, pr.view, options(job, pr, k), false)
	if err != nil {
		return nil, err
	}
	return e, e.Build(ctx)
}

// Export writes the MILP in free MPS format, with a comment header that
// maps the columns and gives the decode command.
func (b Backend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	return b.ExportAs(ctx, w, job, "mps")
}

// ExportFormats are "mps" and "lp" (CPLEX LP).
func (Backend) ExportFormats() []string { return []string{"mps", "lp"} }

// ExportAs writes the MILP as MPS or CPLEX LP.
func (Backend) ExportAs(ctx context.Context, w io.Writer, job *backend.Job, format string) error {
	e, err := exportEncoding(ctx, job)
	if err != nil {
		return err
	}
	e.Model.Comments = e.Header(job)
	return milp.Write(w, e.Model, format)
}

// Header is the comment block of an exported MILP.
func (e *Encoding) Header(job *backend.Job) []string {
	p := job.Problem
	flags := []string{"--objective " + string(p.Objective), fmt.Sprintf("--depth %d", p.MaxDepth)}
	if p.MaxNodes > 0 {
		flags = append(flags, fmt.Sprintf("--max-nodes %d", p.MaxNodes))
	}
	if p.LeafCost > 0 {
		flags = append(flags, fmt.Sprintf("--leaf-cost %v", p.LeafCost))
	}

	if job.Options.Bool("drop-conflicts") {
		flags = append(flags, "--opt drop-conflicts=true")
	}
	what := map[Objective]string{Errors: "minimise the weighted errors", Nodes: "no error, fewest nodes", Feasible: "no error (feasibility)"}[e.Opts.Objective]
	h := []string{
		fmt.Sprintf("odtkit milp-flowoct: FlowOCT (Aghaei, Gomez & Vayanos 2024), depth %d, %s; %d rows in %d groups of identical tests, %d binary tests",
			e.Opts.Depth, what, e.View.N, len(e.groups), len(e.Tests)),
		"solve it with one of: highs --solution_file SOL FILE; cbc FILE solve solu SOL; glpsol --freemps FILE.mps -w SOL (or glpsol --lp FILE.lp -w SOL)",
		fmt.Sprintf("decode a solution with: odt decode --backend milp-flowoct %s DATA SOL", strings.Join(flags, " ")),
		"nodes n in heap order: root 0, children 2n+1 (test false) and 2n+2 (test true)",
		"b_n_j: node n tests test j; p_n: node n predicts; w_n_c: node n predicts class c",
		"z_g_n: flow of group g into node n; s_g_n_c: flow of group g to the sink at n for class c",
	}
	if e.r != nil {
		h = append(h, fmt.Sprintf("r_g_n: group g is routed into node n; q_g_n: it stops at n, which predicts; support_n: a predicting node holds at least %d rows", e.Opts.MinSupport),
			fmt.Sprintf("this MILP has a min support of %d rows: decode it with odtkit.Decode and the same problem (odt decode does not take --min-support)", e.Opts.MinSupport))
	}
	var ts []string
	for j, t := range e.Tests {
		ts = append(ts, fmt.Sprintf("%d=[%s]", j, e.View.Tests[t].String(e.View.Data)))
	}
	h = append(h, "tests j: "+strings.Join(ts, " "))
	return h
}

// Decode reads a MILP solver's solution file for the exported MILP,
// checks it against the MILP and decodes it. The solver's "optimal" is
// within its own tolerances: the result is feasible, not proven optimal.
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (*model.Result, error) {
	e, err := exportEncoding(ctx, job)
	if err != nil {
		return nil, err
	}
	return milpjob.Decode(r, e.Model, e.Decode, job.Data, job.Problem)
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
