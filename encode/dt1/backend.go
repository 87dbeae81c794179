package dt1

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/avellaneda"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Backend is the sat-dt1 backend: the fewest nodes of a tree with no
// training error at any depth (the min-nodes objective), by the node-count
// encoding of Narodytska et al. It exports the formula of one node count
// as DIMACS and decodes a SAT solver's answer for it.
type Backend struct{}

// The optional interfaces the backend implements.
var (
	_ backend.Decoder = Backend{}
	_ backend.Sizer   = Backend{}
)

// encodingParams shape the formula: solving, exporting and decoding read
// them alike.
func encodingParams() []backend.Param {
	return []backend.Param{
		backend.BoolParam("drop-conflicts", false, "drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"),
		backend.EnumParam("amo", "sequential", []string{"sequential", "pairwise"}, "at-most-one halves of the exactly-one constraints (left child, parent, feature): sequential counter or pairwise clauses"),
		backend.BoolParam("leaf-counting", true, "the paper's λ/τ constraints: count leaves and internal nodes among nodes 1..i and tie node i's children to them (breadth-first numbering)"),
	}
}

func params() []backend.Param {
	return append([]backend.Param{
		backend.StringParam("sat-solver", "cdcl", `SAT solver: cdcl (odtkit's own, in process), gini (in process) or external:"CMD ARGS" (any DIMACS solver; {in}/{out} placeholders, e.g. external:"minisat {in} {out}")`).Checked(sat.CheckSpec),
		backend.EnumParam("search", "up", []string{"up", "bisect"}, "node counts tried: up (2c-1, 2c+1, ... for c classes, until one is satisfiable) or bisect (between the classes' bound and the greedy tree's count)"),
		backend.StringParam(sat.CertifyOption, "", sat.CertifyHelp),
		backend.TrustSolverParam(),
	}, encodingParams()...)
}

// Info describes sat-dt1.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "sat-dt1",
		Family:      backend.FamilySAT,
		Description: "fewest nodes of a tree with no training error at any depth: the SAT encoding of a tree of exactly N nodes (DT1), N searched",
		Paper:       "Narodytska, Ignatiev, Pereira & Marques-Silva, Learning Optimal Decision Trees with SAT, IJCAI 2018",
		Objectives:  []model.Objective{model.MinNodes},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		// The node limit caps the counts tried (infeasible beyond it) and
		// is the node count of an exported formula; the formula has no
		// depth, so a depth limit is refused.
		Caps:   backend.Caps{MaxNodes: true, Weights: backend.NoWeights},
		Params: params(),
	}
}

// formulaOptions reads the options that shape the formula.
func formulaOptions(v backend.Values) Options {
	o := Options{AMO: AMO(v.String("amo")), NoCounting: !v.Bool("leaf-counting")}
	return o
}

// viewCap is the most the binary view may take: half the job's memory
// cap (0: no cap), the rest for the formula and the solver.
func viewCap(job *backend.Job) int64 {
	return max(job.Budget.Limit()/2, 0)
}

// prepare binarizes the job's data; conflicting rows (without
// drop-conflicts) are a bad request.
func prepare(ctx context.Context, job *backend.Job) (*avellaneda.Prepared, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	p, err := avellaneda.PrepareContext(ctx, job.Data, job.Options.Bool("drop-conflicts"), viewCap(job))
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, backend.Invalid(err)
	}
	return p, nil
}

// Solve searches the node count.
func (Backend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	spec := job.Options.String("sat-solver")
	s := Settings{
		NewSolver: func() (sat.Solver, error) { return sat.NewSolver(spec) },
		Options:   formulaOptions(job.Options),
		Bisect:    job.Options.String("search") == "bisect",
		MaxNodes:  formulaNodes(job.Problem.MaxNodes),
		Report:    job.Report,
		Budget:    job.Budget,
	}
	if job.Options.String(sat.CertifyOption) != "" {
		if err := sat.Certifiable(spec); err != nil {
			return nil, backend.Invalid(err)
		}
		// A certificate proves the bound by the refuted counts alone:
		// every count from the classes' least up, as the upward search
		// refutes them, and no node limit to end in infeasibility.
		if s.Bisect || s.MaxNodes > 0 {
			return nil, backend.Invalidf("certify: sat-dt1 certifies the upward search without a node limit (search=upward, no --max-nodes)")
		}
		var err error
		if s.Certify, err = satjob.Start(job); err != nil {
			return nil, err
		}
	}
	var started sat.Started
	started.OutputLimit = job.Budget.Limit()
	s.NewSolver = started.Wrap(s.NewSolver)
	start := time.Now()
	p, err := prepare(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Status: model.StoppedStatus(ctx)}, nil
		}
		return nil, err
	}
	if err := admit(job, p, max(leastNodes(p), 3)); err != nil {
		return nil, err
	}
	prepSeconds := time.Since(start).Seconds()
	// A greedy tree grown to purity bounds the search when it classifies
	// every row (it never tests a feature twice on a path).
	if g, werr := cart.Grow(ctx, p.View, -1, cart.Config{}); werr == 0 && ctx.Err() == nil && p.Dropped == 0 && g.Errors(job.Data) == 0 {
		s.Incumbent = g
	}
	out, err := MinNodes(ctx, p, s)
	if err != nil {
		return nil, err
	}
	res := &model.Result{DroppedRows: p.Dropped, LowerBound: float64(out.LowerBound), Stats: map[string]any{
		"binary_tests":    p.View.NumTests(),
		"tests_used":      len(p.Tests),
		"distinct_rows":   len(p.Reps),
		"solver_calls":    out.Calls,
		"clauses":         out.Clauses,
		"variables":       out.Vars,
		"seconds_prepare": prepSeconds,
	}}
	unchecked := started.UncheckedRefutations()
	if out.Infeasible {
		res.Status = model.StatusInfeasible
		claims(res, p, unchecked, spec)
		return res, nil
	}
	if out.Stopped {
		res.Status = model.EndStatus(ctx, false, true)
	}
	g := out.Model
	if g == nil {
		if out.Stopped {
			return res, nil
		}
		return nil, fmt.Errorf("no tree found")
	}
	res.Model = g
	res.Errors = g.Errors(job.Data)
	res.Objective = job.Problem.Evaluate(job.Data, g)
	res.Optimal = out.Optimal && !out.Stopped
	res.LowerBound = min(res.LowerBound, res.Objective)
	if res.Optimal {
		res.Status = model.StatusOptimal
		if err := satjob.Conclude(ctx, job, "sat-dt1", res, s.Certify); err != nil {
			return nil, err
		}
	}
	claims(res, p, unchecked, spec)
	return res, nil
}

// claims moves the part of res's bound that rests on an external solver's
// unchecked refutations to its claimed bound: the result keeps the bound
// of its classes alone.
func claims(res *model.Result, p *avellaneda.Prepared, unchecked int, spec string) {
	if unchecked == 0 {
		return
	}
	claimed := res.LowerBound
	if res.Optimal {
		claimed = res.Objective
	}
	res.LowerBound = min(res.LowerBound, float64(leastNodes(p)))
	res.Claim(claimed, "external SAT solver "+strings.TrimPrefix(spec, "external:"))
	res.Stats["unchecked_refutations"] = unchecked
}

// formulaNodes translates Problem.MaxNodes, a bound on internal (test)
// nodes, into the formula's node count: a tree with k tests has 2k+1
// nodes. 0 stays 0 (no bound).
func formulaNodes(internal int) int {
	if internal <= 0 {
		return 0
	}
	return 2*internal + 1
}
