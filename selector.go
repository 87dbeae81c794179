package odtkit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/odtkit/odtkit/model"
)

// Param documents one backend option.
type Param struct {
	Name, Default, Help string
}

// Info describes a backend: what it solves and on what data.
type Info struct {
	Name        string
	Description string
	// Objectives the backend accepts.
	Objectives []model.Objective
	// Input says what data it works on: "binary view" (numeric columns
	// binarized at every midpoint, categorical columns one-hot), "numeric"
	// (thresholds searched directly), ...
	Input string
	// Exact backends prove optimality when they finish; anytime backends
	// report improving incumbents as they go.
	Exact, Anytime bool
	Params         []Param
}

// Accepts reports whether the backend solves objective o.
func (i Info) Accepts(o model.Objective) bool { return slices.Contains(i.Objectives, o) }

// Job is what a backend is asked to solve. The time limit is the
// context's deadline.
type Job struct {
	Data    *model.Dataset
	Problem model.Problem
	Options Options
	// Seed makes randomised backends deterministic.
	Seed int64
	// Threads is a hint for backends that can use several (0 = default).
	Threads int
	// MemoryLimitMB caps a backend's main memory use where it can (0 = none).
	MemoryLimitMB int
	// Report receives each improving incumbent.
	Report model.IncumbentFunc
}

// Backend is a solver behind the selector. Solve must honour ctx: when it
// is done, return the best model so far with Optimal=false, a valid lower
// bound and a status (time-limit or cancelled).
type Backend interface {
	Info() Info
	Solve(ctx context.Context, job Job) (*model.Result, error)
}

// Settings control one solve. The zero value runs the automatic choice
// with no time limit.
type Settings struct {
	// Backend names the backend, or "auto"/"" to let the selector choose.
	Backend       string
	TimeLimit     time.Duration
	Options       Options
	Seed          int64
	Threads       int
	MemoryLimitMB int
	// OnIncumbent is called with each improving incumbent, stamped with
	// the time since the start of Solve.
	OnIncumbent func(model.Incumbent)
}

// Registry holds backends by name.
type Registry struct {
	byName map[string]Backend
	order  []string
}

// NewRegistry returns a registry holding the given backends.
func NewRegistry(bs ...Backend) *Registry {
	r := &Registry{byName: map[string]Backend{}}
	for _, b := range bs {
		if err := r.Add(b); err != nil {
			panic(err) // a programming error in the list of backends
		}
	}
	return r
}

// Add registers a backend; names must be unique.
func (r *Registry) Add(b Backend) error {
	name := b.Info().Name
	if name == "" || name == "auto" {
		return fmt.Errorf("odtkit: invalid backend name %q", name)
	}
	if _, dup := r.byName[name]; dup {
		return fmt.Errorf("odtkit: backend %q registered twice", name)
	}
	r.byName[name] = b
	r.order = append(r.order, name)
	return nil
}

// Get returns the backend of that name.
func (r *Registry) Get(name string) (Backend, bool) {
	b, ok := r.byName[name]
	return b, ok
}

// List describes the backends in registration order.
func (r *Registry) List() []Info {
	out := make([]Info, len(r.order))
	for i, n := range r.order {
		out[i] = r.byName[n].Info()
	}
	return out
}

// ErrUnknownBackend is returned for a backend name not in the registry.
var ErrUnknownBackend = errors.New("unknown backend")

// ErrInvalid marks errors caused by the request itself (an unknown
// backend or option key, a problem the backend does not solve, invalid
// data or limits), as opposed to failures while solving. Test for it
// with errors.Is; the CLI maps it to exit code 2.
var ErrInvalid = errors.New("invalid request")

// invalidError keeps its message and matches both its cause and ErrInvalid.
type invalidError struct{ err error }

func (e *invalidError) Error() string   { return e.err.Error() }
func (e *invalidError) Unwrap() []error { return []error{e.err, ErrInvalid} }

// Invalid marks err as caused by the request, so that errors.Is(err,
// ErrInvalid) holds and the message is unchanged (nil stays nil).
// Backends use it for bad option values or data they cannot take.
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return &invalidError{err}
}

// ErrVerification is returned when a backend's claims about its model do
// not hold on the data. It is a bug in that backend, never a result.
var ErrVerification = errors.New("verification failed")

// Auto picks a backend for the data and problem: the preferred registered
// backend for the objective (numeric-threshold search for numeric data
// with whole-number row weights, if any).
func (r *Registry) Auto(d *model.Dataset, p model.Problem) (string, error) {
	var prefs []string
	switch p.Normalized().Objective {
	case model.MinError:
		if d.HasNumeric() && autoWholeWeights(d) {
			// contree takes whole-number row weights only.
			prefs = []string{"contree", "dl85", "blossom", "cart"}
		} else {
			prefs = []string{"dl85", "blossom", "contree", "cart"}
		}
	case model.MinDepth:
		prefs = []string{"sat-depth"}
	case model.MinSize:
		prefs = []string{"sat-size"}
	case model.DiagramError:
		prefs = []string{"milp-odd"}
	}
	for _, n := range prefs {
		if b, ok := r.byName[n]; ok && b.Info().Accepts(p.Normalized().Objective) {
			return n, nil
		}
	}
	return "", fmt.Errorf("no registered backend solves objective %q", p.Objective)
}

// autoWholeWeights reports whether every row weight is a whole number
// (true for unweighted data).
func autoWholeWeights(d *model.Dataset) bool {
	for _, w := range d.Weights {
		if w != math.Trunc(w) {
			return false
		}
	}
	return true
}

// Solve runs the chosen backend on the data under the settings' time
// limit and verifies the result: its model must be well formed, fit the
// data, respect the problem's limits and make exactly the errors claimed.
func (r *Registry) Solve(ctx context.Context, d *model.Dataset, p model.Problem, s Settings) (*model.Result, error) {
	start := time.Now()
	if err := d.Validate(); err != nil {
		return nil, Invalid(err)
	}
	name := s.Backend
	if name == "" || name == "auto" {
		var err error
		if name, err = r.Auto(d, p); err != nil {
			return nil, Invalid(err)
		}
	}
	b, ok := r.byName[name]
	if !ok {
		return nil, Invalid(fmt.Errorf("%w %q (see `odt backends`)", ErrUnknownBackend, name))
	}
	info := b.Info()
	// A backend named without an objective solves its first (main) one.
	if p.Objective == "" && len(info.Objectives) > 0 {
		p.Objective = info.Objectives[0]
	}
	p = p.Normalized()
	if err := p.Validate(); err != nil {
		return nil, Invalid(fmt.Errorf("problem: %w", err))
	}
	if !info.Accepts(p.Objective) {
		return nil, Invalid(fmt.Errorf("backend %s does not solve objective %q (it solves %v)", name, p.Objective, info.Objectives))
	}
	if err := s.Options.check(info); err != nil {
		return nil, Invalid(err)
	}
	if s.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.TimeLimit)
		defer cancel()
	}
	trace := model.NewTrace(start, s.OnIncumbent)
	job := Job{Data: d, Problem: p, Options: s.Options, Seed: s.Seed, Threads: s.Threads,
		MemoryLimitMB: s.MemoryLimitMB, Report: trace.Func()}
	if job.Options == nil {
		job.Options = Options{}
	}
	res, err := b.Solve(ctx, job)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res == nil {
		return nil, fmt.Errorf("%s: returned neither a result nor an error", name)
	}
	res.Backend, res.Problem, res.Rows = name, p, d.Rows()
	res.Seconds = time.Since(start).Seconds()
	if res.Model != nil {
		if err := Verify(d, p, res); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		// The final model is an incumbent too (backends need not report it).
		trace.Offer(res.Objective, res.Model)
	}
	res.Incumbents = trace.Incumbents()
	if res.Incumbents == nil {
		res.Incumbents = []model.Incumbent{}
	}
	if res.Status == "" {
		switch {
		case res.Optimal:
			res.Status = model.StatusOptimal
		case res.Model == nil:
			res.Status = model.StatusNoSolution
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			res.Status = model.StatusTimeLimit
		case ctx.Err() != nil:
			res.Status = model.StatusCancelled
		default:
			res.Status = model.StatusFeasible
		}
	}
	if res.Optimal {
		res.LowerBound = res.Objective
	}
	return res, nil
}

// Verify re-evaluates a result's model on the data: well formed, fitting
// the data, within the problem's limits, and with the claimed errors and
// objective. Any mismatch wraps ErrVerification.
func Verify(d *model.Dataset, p model.Problem, res *model.Result) error {
	g := res.Model
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrVerification, fmt.Sprintf(format, a...))
	}
	if err := g.Validate(); err != nil {
		return fail("invalid model: %v", err)
	}
	if err := g.CheckData(d); err != nil {
		return fail("%v", err)
	}
	errs := g.Errors(d)
	if res.Errors != errs {
		return fail("the backend claims %d errors, its model makes %d", res.Errors, errs)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	switch p.Objective {
	case model.MinError:
		if g.Kind != model.KindTree {
			return fail("a %s model for a tree objective", g.Kind)
		}
		if dep := g.Depth(); p.MaxDepth >= 0 && dep > p.MaxDepth {
			return fail("model depth %d exceeds the maximum %d", dep, p.MaxDepth)
		}
		if want := g.WeightedErrors(d); !near(res.Objective, want) {
			return fail("the backend claims objective %v, its model's (weighted) error is %v", res.Objective, want)
		}
		if p.MinSupport > 1 {
			count := make([]int, len(g.Nodes))
			for r := range d.Rows() {
				count[g.Leaf(d, r)]++
			}
			for i, n := range g.Nodes {
				if n.Leaf && count[i] < p.MinSupport {
					return fail("leaf %d holds %d rows, fewer than the minimum support %d", i, count[i], p.MinSupport)
				}
			}
		}
		if p.MaxNodes > 0 && g.Size() > p.MaxNodes {
			return fail("model has %d nodes, more than the maximum %d", g.Size(), p.MaxNodes)
		}
	case model.MinDepth:
		if errs != 0 && !satConflictsOnly(d, res, errs) {
			return fail("a consistent tree was asked for; the model makes %d errors", errs)
		}
		if !near(res.Objective, float64(g.Depth())) {
			return fail("the backend claims depth %v, its model has depth %d", res.Objective, g.Depth())
		}
	case model.MinSize:
		if errs != 0 && !satConflictsOnly(d, res, errs) {
			return fail("a consistent tree was asked for; the model makes %d errors", errs)
		}
		if !near(res.Objective, float64(g.Size())) {
			return fail("the backend claims %v nodes, its model has %d", res.Objective, g.Size())
		}
	case model.DiagramError:
		// Objective 18 of the ODD paper: error rate + alpha × the share of
		// the skeleton's non-root internal nodes in use.
		want := float64(errs) / float64(d.Rows())
		total := 0
		for _, w := range p.Skeleton {
			total += w
		}
		if k := g.InternalNodes(); total > 1 && k > 1 {
			want += p.Alpha * float64(k-1) / float64(total-1)
		}
		if !near(res.Objective, want) {
			return fail("the backend claims objective %v; its model's error rate + alpha*(internal nodes-1)/(skeleton nodes-1) is %v", res.Objective, want)
		}
	}
	if res.LowerBound > res.Objective+1e-9*math.Max(1, math.Abs(res.Objective)) {
		return fail("lower bound %v exceeds the objective %v", res.LowerBound, res.Objective)
	}
	return nil
}
