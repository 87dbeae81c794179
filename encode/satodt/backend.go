package satodt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Backend is the sat-odt backend: a minimum-error tree of bounded depth
// by SAT with a totalizer over the error, descending from cart's tree.
type Backend struct{}

// The optional interfaces sat-odt implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
	_ backend.Sizer          = Backend{}
)

// viewBytes caps the binary view's bitsets (a quarter of the solve's
// memory cap when smaller).
const viewBytes = 256 << 20

// maxClauses caps the formula: beyond it the solve ends with the greedy
// tree, unproven, instead of filling the memory (about 30 bytes per
// binary clause in the formula and as much again in the solver).
const maxClauses = 10_000_000

// Info describes sat-odt.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "sat-odt",
		Family:      backend.FamilySAT,
		Description: "minimum-error tree of bounded depth by SAT: complete tree of the depth, rows grouped when identical, the error counted per leaf and class and summed along the tree, a bound descending from cart's tree and refuted one root test at a time (multiclass, whole row weights)",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{Weights: backend.WholeWeights},
		Params: append([]backend.Param{
			backend.StringParam("sat-solver", "cdcl", `SAT solver: cdcl (odtkit's own, in process), gini (in process) or external:"CMD ARGS" (any DIMACS solver, run once per bound; {in}/{out} placeholders, e.g. external:"minisat {in} {out}")`).Checked(sat.CheckSpec),
			backend.BoolParam("dead", false, "two classes: a node above two leaves of one class tests the first kept test (its test changes nothing; one choice instead of all)"),
			backend.BoolParam("repeats", false, "let a node repeat an ancestor's test (off: such trees are left out of the formula, they only add symmetric answers)"),
			backend.EnumParam("counter", string(CounterLeaves), []string{string(CounterLeaves), string(CounterRows)}, "how the solve counts the error: leaves (per leaf, from the weight outside each class of the rows reaching it, summed along the tree: every subtree's error is a number the solver bounds and learns about before the leaves' classes are chosen) or rows (one totalizer over the soft literals, as in the exported formula)"),
			backend.BoolParam("per-root", true, "descend and bisect: refute each bound one root test at a time (the solver then searches two independent subtrees; a refuted root test is kept as a clause) instead of on the whole tree at once"),
			backend.StringParam(sat.CertifyOption, "", sat.CertifyHelp+"; search=descend or bisect"),
			backend.BoolParam(sat.CertifyForceOption, false, sat.CertifyForceHelp),
			backend.EnumParam("search", "descend", []string{"descend", "bisect", "rows"}, "bounds tried: descend (one below the best tree's error until refuted), bisect (the middle of lower bound and best error) or rows (from the lower bound up, on the rows the trees found misclassify, added as they come)"),
		}, maxsat.Params()...),
	}
}

// Solve finds a minimum-error tree of depth at most the problem's.
func (b Backend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	argv, err := maxsat.Argv(job.Options)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	d := job.Data
	pl, err := newPlan(ctx, job)
	if err != nil {
		if ctx.Err() == nil || errors.Is(err, backend.ErrInvalid) {
			return nil, err
		}
		res := &model.Result{Status: model.StoppedStatus(ctx)}
		if pl != nil {
			res.Model, res.Errors, res.Objective = pl.inc, pl.inc.Errors(d), job.Problem.Evaluate(d, pl.inc)
		}
		return res, nil
	}
	prep := time.Since(start).Seconds()
	v, p, depth := pl.view, pl.prep, pl.depth
	s := Settings{
		Bisect:     job.Options.String("search") == "bisect",
		PerRoot:    job.Options.Bool("per-root"),
		MaxClauses: maxClauses,
		Options:    formulaOptions(job.Options),
		Report:     job.Report,
		Counter:    Counter(job.Options.String("counter")),
	}
	spec := job.Options.String("sat-solver")
	started := &sat.Started{OutputLimit: job.Budget.Limit()}
	s.NewSolver = started.Wrap(func() (sat.Solver, error) { return sat.NewSolver(spec) })
	if job.Options.String(sat.CertifyOption) != "" {
		if err := Certifiable(job.Options, spec); err != nil {
			return nil, err
		}
		if s.Certify, err = satjob.Start(job); err != nil {
			return nil, err
		}
		defer s.Certify.Discard()
	}
	if argv != nil && pl.search {
		res, err := solveExternal(ctx, job, argv, pl.inc, pl.incErr)
		if err != nil {
			return nil, err
		}
		res.Stats["seconds_prepare"] = prep
		return res, nil
	}
	var out *Outcome
	if !pl.search {
		// The incumbent is optimal: one leaf is all a tree can be, it
		// makes no error, or it meets the floor of the identical rows.
		cost := int(math.Round(pl.incErr))
		out = &Outcome{Model: pl.inc, Cost: cost, LowerBound: cost, Optimal: true}
	} else {
		what := fmt.Sprintf("the sat-odt formula of depth %d", depth)
		if err := job.Budget.Admit(pl.size, what); err != nil {
			return nil, err
		}
		if err := job.Budget.Reserve(pl.size.Bytes, what); err != nil {
			return nil, err
		}
		defer job.Budget.Release(pl.size.Bytes)
		search := Search
		if job.Options.String("search") == "rows" {
			search = SearchRows
		}
		if out, err = search(ctx, p, depth, pl.inc, int(math.Round(pl.incErr)), s); err != nil {
			return nil, err
		}
	}
	res := &model.Result{
		Model:      out.Model,
		Errors:     out.Model.Errors(d),
		Objective:  job.Problem.Evaluate(d, out.Model),
		LowerBound: float64(out.LowerBound),
		Optimal:    out.Optimal,
		Stats: map[string]any{
			"binary_tests":    v.NumTests(),
			"depth_searched":  depth,
			"solver_calls":    out.Calls,
			"variables":       out.Vars,
			"clauses":         out.Clauses,
			"seconds_prepare": prep,
		},
	}
	if p != nil {
		res.Stats["tests_used"], res.Stats["distinct_rows"] = len(p.Tests), len(p.Groups)
	}
	if out.TooLarge {
		res.Stats["formula"] = "too large: the greedy tree is returned unproven"
	}
	if v.Coarse {
		// Proven among the view's thresholds only: no bound for the data
		// but the conflict floor of unweighted data.
		res.Optimal = false
		res.LowerBound = 0
		if d.Weights == nil {
			res.LowerBound = float64(d.ConflictFloor())
		}
	}
	if n := started.UncheckedRefutations(); n > 0 {
		// The bounds above the floor rest on an external solver's
		// refutations: its claim, not odtkit's proof.
		claimed := res.LowerBound
		if res.Optimal {
			claimed = res.Objective
		}
		res.LowerBound = min(res.LowerBound, float64(p.Floor))
		res.Claim(claimed, "external SAT solver "+strings.TrimPrefix(spec, "external:"))
		res.Stats["unchecked_refutations"] = n
	}
	res.LowerBound = min(res.LowerBound, res.Objective)
	res.Status = model.EndStatus(ctx, res.Optimal, out.Stopped)
	err = satjob.Conclude(ctx, job, b.Info().Name, res, s.Certify)
	return res, err
}

// Certifiable refuses a certificate (the certify option) with options
// whose solves write no proof: another SAT solver than odtkit's CDCL,
// an external MaxSAT solver, the search by rows.
func Certifiable(opts backend.Values, spec string) error {
	if err := sat.Certifiable(spec); err != nil {
		return backend.Invalid(err)
	}
	argv, err := maxsat.Argv(opts)
	if err != nil {
		return err
	}
	if argv != nil {
		return backend.Invalid(fmt.Errorf("%w, not the MaxSAT solver %q", sat.ErrNotCertifiable, argv[0]))
	}
	if opts.Has("search") && opts.String("search") == "rows" {
		return backend.Invalid(errors.New("certify: search=rows writes no proof (use descend or bisect)"))
	}
	return nil
}

// formulaOptions reads the options that shape the formula (solve,
// export and decode alike).
func formulaOptions(v backend.Values) Options {
	return Options{Repeats: v.Bool("repeats"), Dead: v.Bool("dead")}
}

// solveExternal runs the formula of the job's depth on the external
// solver argv (package maxsat) and verifies its answer like odt decode:
// the model satisfies the hard clauses, a claimed cost is its cost, a
// claimed optimum's soft literals are exactly its tree's errors. The
// result is never worse than the incumbent given (cart's tree).
func solveExternal(ctx context.Context, job *backend.Job, argv []string, inc *model.Graph, incErr float64) (*model.Result, error) {
	p, f, err := formula(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return maxsat.Stopped(ctx, job, inc, 0), nil
		}
		return nil, err
	}
	return maxsat.Solve(ctx, job, maxsat.Run{
		Argv: argv, CNF: f.CNF, Soft: f.soft(),
		Verify:    func(a *sat.Answer) (*model.Result, error) { return answerResult(job, p, f, a) },
		Incumbent: inc, Objective: incErr, LowerBound: float64(p.Floor),
	})
}
