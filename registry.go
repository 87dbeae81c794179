package odtkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Options are a backend's own settings as key=value text, as given on the
// command line (`--opt rule=gain`). The backend's declared parameters
// validate them (backend.Info.Parse) before any work.
type Options = map[string]string

// Settings control one solve. The zero value runs the automatic choice
// with no time limit and the default memory cap.
type Settings struct {
	// Backend names the backend, or "auto"/"" to let the selector choose.
	Backend   string
	TimeLimit time.Duration
	Options   Options
	Seed      int64
	Threads   int
	// MemoryLimitMB caps the solve's memory (MiB): the backend's own
	// accounting of its big structures and a watch on the heap; a solve
	// that reaches it stops with status memory-limit and its best model.
	// 0 = no cap (the CLI sets a default derived from the machine).
	MemoryLimitMB int
	// OnIncumbent is called with each improving incumbent, stamped with
	// the time since the start of Solve.
	OnIncumbent func(model.Incumbent)
}

// Registry holds backends by name.
type Registry struct {
	byName map[string]backend.Backend
	alias  map[string]string
	order  []string
}

// NewRegistry returns a registry holding the given backends. It panics on
// a duplicate or empty name: the list is the program's, not the user's.
func NewRegistry(bs ...backend.Backend) *Registry {
	r := &Registry{byName: map[string]backend.Backend{}, alias: map[string]string{}}
	for _, b := range bs {
		if err := r.Add(b); err != nil {
			panic(err)
		}
	}
	return r
}

// Add registers a backend; names must be unique.
func (r *Registry) Add(b backend.Backend) error {
	name := b.Info().Name
	if name == "" || name == "auto" {
		return fmt.Errorf("odtkit: invalid backend name %q", name)
	}
	if _, dup := r.byName[name]; dup {
		return fmt.Errorf("odtkit: backend %q registered twice", name)
	}
	if _, dup := r.alias[name]; dup {
		return fmt.Errorf("odtkit: backend name %q is an alias", name)
	}
	r.byName[name] = b
	r.order = append(r.order, name)
	return nil
}

// Alias makes alias another name of a registered backend (the export
// encodings' old names: depth for sat-depth, odd for milp-odd, ...).
func (r *Registry) Alias(alias, name string) error {
	if _, ok := r.byName[name]; !ok {
		return fmt.Errorf("odtkit: alias %q of unknown backend %q", alias, name)
	}
	if _, dup := r.byName[alias]; dup {
		return fmt.Errorf("odtkit: alias %q is a backend name", alias)
	}
	r.alias[alias] = name
	return nil
}

// Get returns the backend of that name (or alias).
func (r *Registry) Get(name string) (backend.Backend, bool) {
	if a, ok := r.alias[name]; ok {
		name = a
	}
	b, ok := r.byName[name]
	return b, ok
}

// List describes the backends in registration order.
func (r *Registry) List() []backend.Info {
	out := make([]backend.Info, len(r.order))
	for i, n := range r.order {
		out[i] = r.byName[n].Info()
	}
	return out
}

// ErrUnknownBackend is returned for a backend name not in the registry.
var ErrUnknownBackend = errors.New("unknown backend")

// ErrInvalid marks errors caused by the request itself; it is
// backend.ErrInvalid (the CLI maps it to exit code 2).
var ErrInvalid = backend.ErrInvalid

// ErrVerification is returned when a backend's claims about its model do
// not hold on the data. It is a bug in that backend, never a result.
var ErrVerification = errors.New("verification failed")

// Auto picks a backend for the data and problem: the first of the
// objective's preferred backends that can take the problem as stated
// (numeric-threshold search first for data with numeric columns).
func (r *Registry) Auto(d *model.Dataset, p model.Problem) (string, error) {
	p = p.Normalized()
	var prefs []string
	switch p.Objective {
	case model.MinError:
		if d.HasNumeric() {
			prefs = []string{"contree", "dl85", "blossom", "cart"}
		} else {
			prefs = []string{"dl85", "blossom", "contree", "cart"}
		}
	case model.MinDepth:
		prefs = []string{"sat-depth"}
	case model.MinSize:
		prefs = []string{"sat-size"}
	case model.MinNodes:
		prefs = []string{"dl85", "sat-dt1"}
	case model.DiagramError:
		// sat-odd takes the whole row weights milp-odd refuses, and solves
		// in a build without HiGHS, where milp-odd only exports.
		prefs = []string{"milp-odd", "sat-odd", "milp-odt"}
		if !HiGHSEnabled {
			prefs = []string{"sat-odd"}
		}
	}
	var first error
	for _, n := range prefs {
		b, ok := r.byName[n]
		if !ok {
			continue
		}
		err := backend.Check(b.Info(), d, p)
		if err == nil {
			return n, nil
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return "", first
	}
	return "", backend.Invalidf("no registered backend solves objective %q", p.Objective)
}

// job resolves the backend named by s (or picks one) and validates the
// request into a job, before any work.
func (r *Registry) job(d *model.Dataset, p model.Problem, s Settings) (string, backend.Backend, *backend.Job, error) {
	if d == nil {
		return "", nil, nil, backend.Invalidf("no data")
	}
	if err := d.Validate(); err != nil {
		return "", nil, nil, backend.Invalid(err)
	}
	name := s.Backend
	if name == "" || name == "auto" {
		var err error
		if name, err = r.Auto(d, p); err != nil {
			return "", nil, nil, backend.Invalid(err)
		}
	}
	b, ok := r.Get(name)
	if !ok {
		return "", nil, nil, backend.Invalid(fmt.Errorf("%w %q (see `odt backends`)", ErrUnknownBackend, name))
	}
	name = b.Info().Name
	if s.TimeLimit < 0 || s.Threads < 0 || s.MemoryLimitMB < 0 {
		return "", nil, nil, backend.Invalidf("time limit, threads and memory limit must not be negative")
	}
	job, err := backend.NewJob(b.Info(), d, p, s.Options)
	if err != nil {
		return "", nil, nil, err
	}
	job.Seed, job.Threads = s.Seed, s.Threads
	job.Budget = backend.NewBudget(int64(s.MemoryLimitMB) << 20)
	return name, b, job, nil
}

// Solve runs the chosen backend on the data under the settings' time
// limit and memory cap, and verifies the result: its model must be well
// formed, fit the data, respect the problem's limits and make exactly
// the errors claimed. The options and the problem are validated against
// the backend's declaration before any work (errors wrap ErrInvalid).
func (r *Registry) Solve(ctx context.Context, d *model.Dataset, p model.Problem, s Settings) (*model.Result, error) {
	start := time.Now()
	name, b, job, err := r.job(d, p, s)
	if err != nil {
		return nil, err
	}
	ctx, stop := limits(ctx, s, job.Budget)
	defer stop()
	trace := model.NewTrace(start, s.OnIncumbent)
	job.Report = trace.Func()
	job.Bound = trace.BoundFunc()
	res, err := safeSolve(ctx, b, job)
	return finish(ctx, name, job, trace, start, res, err)
}

// Check validates a request as Solve does before any work (the data,
// the problem and the options against the chosen backend's declaration)
// without solving it: nil when Solve would start. Errors wrap ErrInvalid.
func (r *Registry) Check(d *model.Dataset, p model.Problem, s Settings) error {
	name, b, job, err := r.job(d, p, s)
	if err != nil {
		return err
	}
	// A backend that builds a formulation estimates it: one that cannot
	// be represented, or that would not fit the memory cap, is refused
	// here as the solve would refuse it.
	if sz, ok := b.(backend.Sizer); ok {
		size, err := sz.Size(job)
		if err != nil {
			return err
		}
		return job.Budget.Admit(size, "the "+name+" formulation")
	}
	return nil
}

// Export writes the formulation of the problem for the named backend,
// one that implements backend.Exporter (the error for another names
// those registered that do), to w in the backend's first format, and
// returns the format written (backend.ExportFormats: e.g. dimacs, wcnf,
// opb, mps, lp).
func (r *Registry) Export(ctx context.Context, w io.Writer, d *model.Dataset, p model.Problem, s Settings) (string, error) {
	return r.ExportAs(ctx, w, d, p, s, "")
}

// ExportAs is Export in a given format: one of the backend's
// backend.ExportFormats ("" = its first, as Export).
func (r *Registry) ExportAs(ctx context.Context, w io.Writer, d *model.Dataset, p model.Problem, s Settings, format string) (string, error) {
	name, b, job, err := r.job(d, p, s)
	if err != nil {
		return "", err
	}
	e, ok := b.(backend.Exporter)
	if !ok {
		return "", backend.Invalidf("backend %s has no formulation to export (these do: %s)", name, r.namesWith(func(b backend.Backend) bool { _, ok := b.(backend.Exporter); return ok }))
	}
	formats := backend.ExportFormats(e)
	if format == "" {
		format = formats[0]
	}
	if !slices.Contains(formats, format) {
		return "", backend.Invalidf("backend %s writes %s, not %s", name, strings.Join(formats, " or "), format)
	}
	ctx, stop := limits(ctx, s, job.Budget)
	defer stop()
	if format == e.ExportFormat() {
		err = e.Export(ctx, w, job)
	} else {
		err = e.(backend.FormatExporter).ExportAs(ctx, w, job, format)
	}
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, model.ErrMemoryLimit) {
		// The memory watch stopped the export: say so, not "canceled".
		err = cause
	}
	if err != nil {
		return "", named(name, err)
	}
	return format, nil
}

// Decode reads another solver's solution of the formulation Export wrote
// for the same data, problem and settings, and returns it as a result,
// verified like the result of Solve.
func (r *Registry) Decode(ctx context.Context, solution io.Reader, d *model.Dataset, p model.Problem, s Settings) (*model.Result, error) {
	start := time.Now()
	name, b, job, err := r.job(d, p, s)
	if err != nil {
		return nil, err
	}
	dec, ok := b.(backend.Decoder)
	if !ok {
		return nil, backend.Invalidf("backend %s cannot decode a solver's output (these can: %s)", name, r.namesWith(func(b backend.Backend) bool { _, ok := b.(backend.Decoder); return ok }))
	}
	trace := model.NewTrace(start, s.OnIncumbent)
	job.Report = trace.Func()
	res, err := dec.Decode(ctx, job, solution)
	return finish(ctx, name, job, trace, start, res, err)
}

func (r *Registry) namesWith(ok func(backend.Backend) bool) string {
	var names []string
	for _, n := range r.order {
		if ok(r.byName[n]) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none registered"
	}
	return fmt.Sprint(names)
}

// named prefixes a backend's error with its name, unless the message
// already starts with it.
func named(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// safeSolve runs the backend, turning a panic into an error that names
// it: a bug to report, never a stack trace for the user.
func safeSolve(ctx context.Context, b backend.Backend, job *backend.Job) (res *model.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("internal error (please report it with the data and command): %v\n%s", p, firstLines(debug.Stack(), 12))
		}
	}()
	return b.Solve(ctx, job)
}

func firstLines(b []byte, n int) []byte {
	for i, c := range b {
		if c == '\n' {
			if n--; n == 0 {
				return b[:i]
			}
		}
	}
	return b
}

// finish completes a backend's answer into the reported result: a stop
// by the memory cap becomes a result holding the best incumbent; the
// model is verified; the trace, status, bound and gap are filled in.
func finish(ctx context.Context, name string, job *backend.Job, trace *model.Trace, start time.Time, res *model.Result, err error) (*model.Result, error) {
	d, p := job.Data, job.Problem
	if err != nil && errors.Is(err, model.ErrMemoryLimit) {
		// The backend gave up for memory: report its best incumbent.
		res = &model.Result{Stop: model.StopMemory, Stats: map[string]any{"stopped": err.Error()}}
		if incs := trace.Incumbents(); len(incs) > 0 {
			g := incs[len(incs)-1].Model
			res.Model, res.Errors, res.Objective = g, g.Errors(d), p.Evaluate(d, g)
		}
		err = nil
	}
	if err != nil {
		return nil, named(name, err)
	}
	if res == nil {
		return nil, fmt.Errorf("%s: returned neither a result nor an error", name)
	}
	res.Backend, res.Problem, res.Rows = name, p, d.Rows()
	if r := job.Depth; r != nil {
		// The result states the depth asked for and the one searched; the
		// model is verified against the problem asked for.
		res.Problem.MaxDepth, res.Depth = r.Requested, r
	}
	res.Seconds = time.Since(start).Seconds()
	if res.Model != nil {
		if err := Verify(d, res.Problem, res); err != nil {
			return nil, named(name, err)
		}
		// The final model is an incumbent too (backends need not report it).
		trace.Offer(res.Objective, res.Model)
	}
	res.Incumbents = trace.Incumbents()
	if res.Incumbents == nil {
		res.Incumbents = []model.Incumbent{}
	}
	res.Bounds = trace.Bounds()
	// The one rule that names the status and optimality from the facts
	// the backend reported, its external claims under the user's trust.
	backend.Settle(ctx, res, job.Options.Bool(backend.OptTrustSolver))
	res.RelGap = res.Gap()
	if peak := job.Budget.Peak(); peak > 0 {
		if res.Stats == nil {
			res.Stats = map[string]any{}
		}
		res.Stats["budget_peak_mb"] = float64(peak) / (1 << 20)
	}
	return res, nil
}
