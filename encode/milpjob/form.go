package milpjob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// A Form is a tree MILP solved whole, as a paper states it (milp-oct,
// milp-binoct): the Encoding of a formulation package, planned from the
// job without building it, sized, built, and its points decoded. Whole
// runs the job steps every such backend shares over it.
type Form interface {
	// Estimate is the size of the planned MILP, counted before it is
	// built (with HiGHS's copy when solving).
	Estimate(solving bool) backend.Size
	// Build builds the MILP; MILP returns it once built.
	Build(ctx context.Context) error
	MILP() *milp.Model
	// Decode reads the model of a point of the MILP.
	Decode(x []float64) (*model.Graph, error)
	// Header is the comment block of an exported MILP.
	Header(job *backend.Job) []string
	// Stats are the form's own figures of a solve.
	Stats() map[string]any
	// Witness is a point of the built MILP known without a solver (nil
	// when the form has none), against which a solver's claim that the
	// MILP is infeasible is refused.
	Witness() []float64
}

// A Spec states a backend of a Form: its Info and how a job plans its
// form (an error for options the form cannot state).
type Spec interface {
	Info() backend.Info
	Plan(job *backend.Job) (Form, error)
}

// Whole is the backend of a Form solved whole, stated by S: a backend
// type embeds it (type Backend struct{ milpjob.Whole[spec] }) and has
// its Info, Size, Solve, MPS and LP export and Decode, the steps every
// such backend shares, run over the form S plans. Its zero value is
// ready to use.
type Whole[S Spec] struct{}

// The optional interfaces every backend of a Form implements.
var (
	_ backend.Decoder        = Whole[Spec]{}
	_ backend.FormatExporter = Whole[Spec]{}
	_ backend.Sizer          = Whole[Spec]{}
)

// Info is S's Info.
func (Whole[S]) Info() backend.Info {
	var s S
	return s.Info()
}

// plan checks the job and plans its MILP, refusing (wrapped in
// backend.ErrInvalid) one whose estimate passes the memory cap.
func (w Whole[S]) plan(ctx context.Context, job *backend.Job, solving bool) (Form, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	var spec S
	e, err := spec.Plan(job)
	if err != nil {
		return nil, err
	}
	s := e.Estimate(solving)
	what := fmt.Sprintf("the %s MILP of depth %d", spec.Info().Name, job.Problem.MaxDepth)
	if s.Variables > math.MaxInt32 || s.Constraints > math.MaxInt32 || s.NonZeros > math.MaxInt32 {
		return nil, backend.Invalidf("%s would have %s, more than a MILP solver can index (2^31-1 of each) (lower --depth)", what, s)
	}
	if err := job.Budget.Admit(s, what); err != nil {
		return nil, err
	}
	return e, nil
}

// Size estimates the job's MILP (with HiGHS's copy): the form's
// Estimate.
func (Whole[S]) Size(job *backend.Job) (backend.Size, error) {
	var spec S
	e, err := spec.Plan(job)
	if err != nil {
		return backend.Size{}, err
	}
	return e.Estimate(true), nil
}

// Solve builds the MILP and solves it whole (SolveSingle).
func (w Whole[S]) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	start := time.Now()
	e, err := w.plan(ctx, job, true)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Stop: model.StopOf(ctx)}, nil
		}
		return nil, err
	}
	solver, err := NewSolver(job)
	if err != nil {
		return nil, err
	}
	mo, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	stats := e.Stats()
	if res, ok := OneLeaf(job); ok {
		res.Stats = stats
		return res, nil
	}
	if err := e.Build(ctx); err != nil {
		if ctx.Err() != nil {
			return &model.Result{Stop: model.StopOf(ctx), Stats: stats}, nil
		}
		return nil, err
	}
	m := e.MILP()
	stats["columns"], stats["rows"] = len(m.Columns), len(m.Rows)
	stats["binaries"], stats["nonzeros"] = m.NumIntegers(), m.NumNonzeros()
	_, fractional := job.Data.FractionalWeight()
	// The form's witness (a tree known without a solver) is the first
	// incumbent and the solver's start: a run stopped before the solver
	// finds a point still answers with a model.
	s := Single{Model: m, Decode: e.Decode, Start: e.Witness(), Whole: job.Problem.LeafCost == 0 && !fractional}
	res, err = SolveSingle(ctx, job, solver, mo.HiGHS, s, stats)
	if err != nil {
		return nil, err
	}
	res.Stats = stats
	res.Stats["seconds_total"] = time.Since(start).Seconds()
	return res, nil
}

// built is the MILP an export or a decode is about.
func (w Whole[S]) built(ctx context.Context, job *backend.Job) (Form, error) {
	if k := readOptions(job).SolveOnly; k != "" {
		return nil, SolveOnlyError(k)
	}
	e, err := w.plan(ctx, job, false)
	if err != nil {
		return nil, err
	}
	return e, e.Build(ctx)
}

// ExportFormat is "mps".
func (Whole[S]) ExportFormat() string { return "mps" }

// ExportFormats are "mps" and "lp" (CPLEX LP).
func (Whole[S]) ExportFormats() []string { return []string{"mps", "lp"} }

// Export writes the MILP in free MPS format.
func (w Whole[S]) Export(ctx context.Context, out io.Writer, job *backend.Job) error {
	return w.ExportAs(ctx, out, job, "mps")
}

// ExportAs writes the MILP as MPS or CPLEX LP, with the form's comment
// header (the columns' map and the decode command).
func (w Whole[S]) ExportAs(ctx context.Context, out io.Writer, job *backend.Job, format string) error {
	e, err := w.built(ctx, job)
	if err != nil {
		return err
	}
	m := e.MILP()
	m.Comments = e.Header(job)
	return milp.Write(out, m, format)
}

// Decode reads a MILP solver's solution file for the exported MILP,
// checks it against the MILP and decodes it. A claimed infeasibility
// without a point is refused when the form's witness is a point of the
// MILP (ErrRefutedInfeasible), taken as a claim otherwise.
func (w Whole[S]) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	e, err := w.built(ctx, job)
	if err != nil {
		return nil, err
	}
	return Decode(r, e.MILP(), e.Decode, job.Data, job.Problem, e.Witness)
}
