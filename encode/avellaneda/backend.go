package avellaneda

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// DepthBackend is the sat-depth backend: the minimum depth of a tree
// with no training error, by DT_depth. It exports the formula of one
// depth as DIMACS and decodes a SAT solver's answer for it.
type DepthBackend struct{}

// SizeBackend is the sat-size backend: the fewest nodes among the
// minimum-depth trees with no training error, by DT_depth then DT_size.
type SizeBackend struct{}

// The optional interfaces both backends implement.
var (
	_ backend.Decoder = DepthBackend{}
	_ backend.Sizer   = DepthBackend{}
	_ backend.Decoder = SizeBackend{}
	_ backend.Sizer   = SizeBackend{}
)

// encodingParams shape the formula: solving, exporting and decoding
// read them alike.
func encodingParams() []backend.Param {
	return []backend.Param{
		backend.BoolParam("drop-conflicts", false, "drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"),
		backend.EnumParam("amo", "none", []string{"none", "sequential", "pairwise"}, "at-most-one feature per node: none (implied by the example clauses), sequential or pairwise"),
		backend.EnumParam("counter", "totalizer", []string{"totalizer", "sequential"}, "node limit's count of labelled leaves: totalizer (along the tree) or sequential (the paper's clauses 8-10)"),
		backend.EnumParam("clauses", "order", []string{"order", "paper"}, "example clauses (3)-(4): order (one clause per numeric column and node through order variables) or paper (one per threshold)"),
		backend.BoolParam("class-cuts", true, "a subtree that examples of j classes reach has at least j labelled leaves (node limit, totalizer counter) and, with more than four classes, at most 2^height classes reach a node"),
		backend.BoolParam("symmetry", false, "node limit: restrict to the canonical perfect trees of Theorem 2 (dummy nodes repeat the root's test); off by default: not faster on the inferdt rows"),
	}
}

func params(size bool) []backend.Param {
	ps := []backend.Param{
		backend.StringParam("sat-solver", "cdcl", `SAT solver: cdcl (odtkit's own, in process), gini (in process) or external:"CMD ARGS" (any DIMACS solver; {in}/{out} placeholders, e.g. external:"minisat {in} {out}")`).Checked(sat.CheckSpec),
		backend.IntParam("batch", defaultBatch(size), "misclassified examples added to the formula per iteration of the incremental loop").AtLeast(1),
		backend.EnumParam("pick", "nearest", []string{"nearest", "first"}, "which misclassified examples the incremental loop adds: nearest (Hamming distance) to an example of another class in the formula, or the first in row order"),
		backend.BoolParam("seed", false, "start each depth from the examples the previous depth needed instead of none (pays with pick=first, costs with nearest)"),
		backend.StringParam(sat.CertifyOption, "", sat.CertifyHelp),
		backend.BoolParam(sat.CertifyForceOption, false, sat.CertifyForceHelp),
		backend.TrustSolverParam(),
	}
	if size {
		ps = append(ps, backend.EnumParam("size-search", "descend", []string{"descend", "bisect"}, "descend (bound = best tree's leaves − 1 until refuted) or bisect (the paper's bisection on the number of leaves)"))
	}
	return append(ps, encodingParams()...)
}

func info(size bool) backend.Info {
	i := backend.Info{
		Name:        "sat-depth",
		Family:      backend.FamilySAT,
		Description: "minimum depth of a tree with no training error: Avellaneda's incremental SAT encoding (DT_depth)",
		Paper:       "Avellaneda, Efficient Inference of Optimal Decision Trees, AAAI 2020",
		Objectives:  []model.Objective{model.MinDepth},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		// A depth limit caps the depths tried (infeasible beyond it) and
		// is the depth of an exported formula; the node limit is part of
		// the formula at every depth tried.
		Caps:   backend.Caps{DepthCap: true, MaxNodes: true, Weights: backend.NoWeights},
		Params: params(size),
	}
	if size {
		i.Name = "sat-size"
		i.Description = "fewest nodes among the minimum-depth trees with no training error: Avellaneda's incremental SAT encoding (DT_size)"
		i.Objectives = []model.Objective{model.MinSize}
	}
	return i
}

// Info describes sat-depth.
func (DepthBackend) Info() backend.Info { return info(false) }

// Info describes sat-size.
func (SizeBackend) Info() backend.Info { return info(true) }

// Solve runs DT_depth.
func (DepthBackend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	return solve(ctx, job, false)
}

// Solve runs DT_depth then DT_size.
func (SizeBackend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	return solve(ctx, job, true)
}

// formulaOptions reads the options that shape the formula.
func formulaOptions(v backend.Values) Options {
	var o Options
	o.AMO = AMO(v.String("amo"))             // an enum of AMO's values
	o.Counter = Counter(v.String("counter")) // an enum of Counter's values
	o.PaperClauses = v.String("clauses") == "paper"
	o.Symmetry = v.Bool("symmetry")
	o.NoClassCuts = !v.Bool("class-cuts")
	return o
}

// settings reads the job's options into the search's settings.
func settings(job *backend.Job) Settings {
	v := job.Options
	spec := v.String("sat-solver")
	limit, capped := job.Problem.DepthLimit()
	return Settings{
		SingleLeaf:         capped && limit == 0,
		NewSolver:          func() (sat.Solver, error) { return sat.NewSolver(spec) },
		FirstMisclassified: v.String("pick") == "first",
		Seed:               v.Bool("seed"),
		Options:            formulaOptions(v),
		DropConflicts:      v.Bool("drop-conflicts"),
		Batch:              v.Int("batch"),
		Bisect:             v.String("size-search") == "bisect",
		MaxDepth:           limit,
		MaxNodes:           formulaNodes(job.Problem.MaxNodes),
		Report:             job.Report,
		Budget:             job.Budget,
	}
}

// prepare binarizes the job's data; conflicting rows (without
// drop-conflicts) are a bad request.
func prepare(ctx context.Context, job *backend.Job) (*Prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	p, err := PrepareContext(ctx, job.Data, job.Options.Bool("drop-conflicts"), viewCap(job))
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, backend.Invalid(err)
	}
	return p, nil
}

// viewCap is the most the binary view may take: half the job's memory
// cap (0: no cap), the rest for the formula and the solver.
func viewCap(job *backend.Job) int64 {
	return max(job.Budget.Limit()/2, 0)
}

func solve(ctx context.Context, job *backend.Job, size bool) (*model.Result, error) {
	s := settings(job)
	if job.Options.String(sat.CertifyOption) != "" {
		if err := sat.Certifiable(job.Options.String("sat-solver")); err != nil {
			return nil, backend.Invalid(err)
		}
		var err error
		if s.Certify, err = satjob.Start(job); err != nil {
			return nil, err
		}
		defer s.Certify.Discard()
	}
	ext := external(&s, job)
	start := time.Now()
	p, err := prepare(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Status: model.StoppedStatus(ctx)}, nil
		}
		return nil, err
	}
	if err := admit(job, p, false); err != nil {
		return nil, err
	}
	prepSeconds := time.Since(start).Seconds()
	// A greedy tree grown to purity is a first incumbent for the depth
	// (not for the size: its depth may exceed the minimum) when it is
	// consistent and within the limits.
	var greedy *model.Graph
	if g, werr := cart.Grow(ctx, p.View, -1, cart.Config{}); werr == 0 && ctx.Err() == nil && p.Dropped == 0 && g.Errors(job.Data) == 0 &&
		(s.MaxDepth <= 0 && !s.SingleLeaf || g.Depth() <= s.MaxDepth) && (s.MaxNodes <= 0 || g.Size() <= s.MaxNodes) {
		greedy = g
		if !size {
			job.Report.Report(float64(g.Depth()), g)
		}
	}
	var out *Outcome
	if size {
		out, err = MinSize(ctx, p, s)
	} else {
		out, err = MinDepth(ctx, p, s)
	}
	if err != nil {
		return nil, err
	}
	res := &model.Result{DroppedRows: p.Dropped, Stats: map[string]any{
		"binary_tests":    p.View.NumTests(),
		"tests_used":      len(p.Tests),
		"distinct_rows":   len(p.Reps),
		"examples_used":   out.Examples,
		"solver_calls":    out.Calls,
		"clauses":         out.Clauses,
		"variables":       out.Vars,
		"seconds_prepare": prepSeconds,
	}}
	res.LowerBound = float64(out.DepthLowerBound)
	if size {
		res.LowerBound = float64(max(2*out.DepthLowerBound+1, 2*out.LeavesLowerBound-1))
	}
	if out.Infeasible {
		res.Status = model.StatusInfeasible
		if err := satjob.Conclude(ctx, job, info(size).Name, res, s.Certify); err != nil {
			return nil, err
		}
		ext.claims(res, p, size)
		return res, nil
	}
	g := out.Model
	if g == nil && !size {
		g = greedy
	}
	if out.Stopped {
		// gini may stop a moment before ctx reports its end.
		res.Status = model.EndStatus(ctx, false, true)
	}
	if g == nil {
		if out.Stopped {
			return res, nil
		}
		return nil, fmt.Errorf("no tree found")
	}
	res.Model = g
	res.Errors = g.Errors(job.Data)
	res.Optimal = out.Optimal && !out.Stopped
	res.Objective = job.Problem.Evaluate(job.Data, g)
	res.LowerBound = min(res.LowerBound, res.Objective)
	if res.Optimal {
		res.Status = model.StatusOptimal
	}
	if res.Optimal {
		if err := satjob.Conclude(ctx, job, info(size).Name, res, s.Certify); err != nil {
			return nil, err
		}
	}
	ext.claims(res, p, size)
	return res, nil
}

// externals are the SAT solvers a search started and the solver named.
type externals struct {
	sat.Started
	spec string
}

// external makes s record the solvers it starts, and caps what is kept
// of an external solver's answers at the job's memory cap.
func external(s *Settings, job *backend.Job) *externals {
	e := &externals{spec: job.Options.String("sat-solver")}
	e.OutputLimit = job.Budget.Limit()
	s.NewSolver = e.Wrap(s.NewSolver)
	return e
}

// claims moves the part of res's bound that rests on an external
// solver's unchecked refutations to its claimed bound: the result keeps
// the bound odtkit knows without them (the depth that holds every
// class, the leaves of every class), and an infeasibility or optimum
// they gave is the solver's claim.
func (e *externals) claims(res *model.Result, p *Prepared, size bool) {
	n := e.UncheckedRefutations()
	if n == 0 {
		return
	}
	claimed := res.LowerBound
	if res.Optimal {
		claimed = res.Objective
	}
	nc := presentClasses(p)
	own := 0
	if nc > 1 {
		own = bits.Len(uint(nc - 1))
	}
	if size {
		own = max(2*own+1, 2*max(nc, 1)-1)
	}
	res.LowerBound = min(res.LowerBound, float64(own))
	res.Claim(claimed, "external SAT solver "+strings.TrimPrefix(e.spec, "external:"))
	res.Stats["unchecked_refutations"] = n
}

// formulaNodes translates Problem.MaxNodes, a bound on internal (test)
// nodes, into the node count of Avellaneda's formula, which counts every
// node: a tree with k tests has 2k+1 nodes. 0 stays 0 (no bound).
func formulaNodes(internal int) int {
	if internal <= 0 {
		return 0
	}
	return 2*internal + 1
}
