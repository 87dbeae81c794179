// Package backend is the contract between odtkit's solvers and their
// callers: what a backend declares about itself (Info: objectives, input,
// capabilities, typed options), what it is asked to solve (Job), the one
// validation of options and problem fields that runs before any work,
// and the memory budget a solve is held to.
//
// It imports only model. Each solver package (dp/dl85, dp/blossom,
// dp/contree, dp/cart, encode/avellaneda, encode/odd) implements Backend
// beside its algorithm; the module root keeps the registry that knows all
// of them. The shape follows gonum's optimize.Method: a small interface,
// implemented by plain values, with a conformance suite (backendtest)
// that every implementation must pass.
package backend

import (
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// Backend is a solver. Solve must honour ctx: when it is done, return the
// best model so far with Optimal=false, a valid lower bound and (optionally)
// a status; the caller derives time-limit / cancelled / memory-limit from
// the context when the backend leaves Status empty.
//
// Solve is called only with a Job that NewJob built, which Check
// accepted: options parsed and in range, problem fields within the
// declared capabilities. It trusts the job and does not check it again.
type Backend interface {
	Info() Info
	Solve(ctx context.Context, job *Job) (*model.Result, error)
}

// Exporter is implemented by backends whose formulation can be written
// to a file for another solver (DIMACS for SAT, MPS for MILP).
type Exporter interface {
	Backend
	// ExportFormat names the file format written ("dimacs", "mps").
	ExportFormat() string
	// Export writes the formulation of the job's problem to w.
	Export(ctx context.Context, w io.Writer, job *Job) error
}

// FormatExporter is an Exporter that writes its formulation in further
// formats (a MILP in CPLEX LP besides MPS).
type FormatExporter interface {
	Exporter
	// ExportFormats lists the formats written, ExportFormat's first.
	ExportFormats() []string
	// ExportAs writes the formulation in one of them.
	ExportAs(ctx context.Context, w io.Writer, job *Job, format string) error
}

// ExportFormats lists the formats an exporter writes.
func ExportFormats(e Exporter) []string {
	if f, ok := e.(FormatExporter); ok {
		return f.ExportFormats()
	}
	return []string{e.ExportFormat()}
}

// Decoder is implemented by exporters that read another solver's output
// for an exported formulation back into a result (its model is verified
// by the caller like any other). An error about the output itself wraps
// ErrAnswer.
type Decoder interface {
	Exporter
	Decode(ctx context.Context, job *Job, solution io.Reader) (*model.Result, error)
}

// Weights says which row weights a backend takes.
type Weights int

const (
	// NoWeights: the backend refuses weighted data.
	NoWeights Weights = iota
	// WholeWeights: whole-number weights only (rows are repeated).
	WholeWeights
	// AnyWeights: any positive weights.
	AnyWeights
)

func (w Weights) String() string {
	switch w {
	case WholeWeights:
		return "whole"
	case AnyWeights:
		return "any"
	}
	return "none"
}

// Caps declares which problem fields a backend honours. A field set in a
// problem that the backend does not honour is refused by Check, never
// ignored.
type Caps struct {
	// DepthCap: for the min-depth and min-size objectives, a depth limit
	// (Problem.DepthLimit) caps the depth searched (no tree within it:
	// infeasible), and an exported formulation is for that depth.
	DepthCap bool
	// MaxNodes: Problem.MaxNodes (internal nodes) is honoured.
	MaxNodes bool
	// LeafCost: Problem.LeafCost (the sparse error objective) is honoured.
	LeafCost bool
	// MinSupport: Problem.MinSupport > 1 is honoured.
	MinSupport bool
	// Weights: row weights taken.
	Weights Weights
	// MaxRepeatedRows: the most rows the data may have, each row counted
	// as often as its weight for WholeWeights (0: no limit). Check refuses
	// bigger or heavier data, so that auto picks another backend.
	MaxRepeatedRows int
	// MaxClasses: the most classes the data may have (0: no limit). Check
	// refuses more, so that auto picks another backend.
	MaxClasses int
	// Memory: the backend accounts its big structures in Job.Budget and
	// stops with ErrMemoryLimit semantics (see Budget).
	Memory bool
	// Threads: the backend searches with Job.Workers() goroutines; its
	// optimal objective is the same for every count, and its answer is
	// deterministic for a given count.
	Threads bool
}

// Info describes a backend: what it solves, on what data, with what options.
type Info struct {
	Name        string
	Description string
	// Paper cites the publication the formulation follows ("" when none),
	// for listings and the reference documentation.
	Paper string
	// Objectives the backend accepts; the first is its main one.
	Objectives []model.Objective
	// Input says what data it works on: "binary view", "numeric", ...
	Input string
	// Family is the kind of formulation behind the backend, one of the
	// Family constants: what a comparison of formulations groups by.
	Family Family
	// Exact backends prove optimality when they finish; anytime backends
	// report improving incumbents as they go.
	Exact, Anytime bool
	Caps           Caps
	Params         []Param
}

// Family is the kind of formulation a backend solves.
type Family string

const (
	// FamilyDP: dynamic programming / branch-and-bound search over trees.
	FamilyDP Family = "dp"
	// FamilySAT: a propositional (SAT, MaxSAT or pseudo-Boolean) model.
	FamilySAT Family = "sat"
	// FamilyMILP: a mixed-integer linear program.
	FamilyMILP Family = "milp"
	// FamilyCP: a constraint-programming model (MiniZinc).
	FamilyCP Family = "cp"
	// FamilyHeuristic: a model without a proof of optimality.
	FamilyHeuristic Family = "heuristic"
	// FamilyPortfolio: several backends run together.
	FamilyPortfolio Family = "portfolio"
)

// Families lists the families in the order tables show them.
func Families() []Family {
	return []Family{FamilyDP, FamilySAT, FamilyMILP, FamilyCP, FamilyHeuristic, FamilyPortfolio}
}

// Accepts reports whether the backend solves objective o.
func (i Info) Accepts(o model.Objective) bool { return slices.Contains(i.Objectives, o) }

// Param returns the declared parameter of that name.
func (i Info) Param(name string) (Param, bool) {
	for _, p := range i.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Job is what a backend is asked to solve. The time limit is the
// context's deadline.
//
// Only NewJob builds a job with data and a problem: Data and Problem are
// the fields of its unexported part, which a composite literal outside
// this package cannot set, and NewJob sets them only once Check accepted
// them for the backend. So the check runs once per solve, and a backend,
// its export, decode and size estimate trust the job they are given. A
// backend may copy a job and change the copy's problem to solve a part
// of it (a smaller depth, another objective it declares); a portfolio
// builds each member's job with NewJob.
type Job struct {
	checked
	// Options are the backend's validated options (defaults filled in).
	Options Values
	// Seed makes randomised backends deterministic.
	Seed int64
	// Threads is the number of workers for backends that can use
	// several (0 = default: see Workers).
	Threads int
	// Budget accounts the solve's big allocations against its memory cap
	// (nil: no cap).
	Budget *Budget
	// Report receives each improving incumbent.
	Report model.IncumbentFunc
	// Bound receives each rise of the lower bound the search proves
	// while it runs (backends that have an anytime bound call it).
	Bound model.BoundFunc
	// Depth, when not nil, says that NewJob lowered Problem.MaxDepth from
	// the depth asked for to one that cannot change the optimum
	// (model.Problem.UsefulDepth); results report it.
	Depth *model.DepthReduction
}

// checked is the part of a Job that NewJob checked (see Job).
type checked struct {
	// Data is the dataset to learn from.
	Data *model.Dataset
	// Problem is the normalised problem, with the backend's main
	// objective filled in when none was given.
	Problem model.Problem
}

// Workers is the number of search goroutines the job asks for:
// Threads, or when it is 0 the number of CPUs the process may use
// (runtime.GOMAXPROCS).
func (j *Job) Workers() int {
	if j.Threads > 0 {
		return j.Threads
	}
	return max(runtime.GOMAXPROCS(0), 1)
}

// ErrInvalid marks errors caused by the request itself; it is
// model.ErrInvalid, the same value (see there).
var ErrInvalid = model.ErrInvalid

// Invalid marks err as caused by the request (model.Invalid).
func Invalid(err error) error { return model.Invalid(err) }

// Invalidf is Invalid(fmt.Errorf(format, a...)).
func Invalidf(format string, a ...any) error { return model.Invalidf(format, a...) }

// ErrAnswer is wrapped by every error of a Decoder about the answer it
// reads: output that is no solver's answer in a known format, a point or
// assignment that is not a solution of the exported formulation, an
// objective or cost the answer states that is not its own, a claim its
// own model refutes. The caller names the file it read (the messages
// name the line). Mark such errors with Answer.
var ErrAnswer = errors.New("not a solver's answer for the formulation")

type answerError struct{ err error }

func (e *answerError) Error() string   { return e.err.Error() }
func (e *answerError) Unwrap() []error { return []error{e.err, ErrAnswer} }

// Answer marks err as an error about a decoded answer, so that
// errors.Is(err, ErrAnswer) holds and the message is unchanged (nil
// stays nil).
func Answer(err error) error {
	if err == nil || errors.Is(err, ErrAnswer) {
		return err
	}
	return &answerError{err}
}

// NewJob validates raw options and the problem against info (see Check)
// and returns the job to solve (the only way to build one, see Job), with
// the problem normalised and the backend's main objective filled in when
// p has none. A maximum depth larger than can matter for the error
// objective is lowered to model.Problem.UsefulDepth (Job.Depth says so),
// once for every backend.
func NewJob(info Info, d *model.Dataset, p model.Problem, raw map[string]string) (*Job, error) {
	if d == nil {
		return nil, Invalidf("no data")
	}
	if err := p.CheckStated(); err != nil {
		return nil, Invalidf("problem: %w", err)
	}
	if p.Objective == "" && len(info.Objectives) > 0 {
		p.Objective = info.Objectives[0]
	}
	p = p.Normalized()
	if err := Check(info, d, p); err != nil {
		return nil, err
	}
	vals, err := info.Parse(raw)
	if err != nil {
		return nil, err
	}
	job := &Job{checked: checked{Data: d, Problem: p}, Options: vals}
	if k, why := p.UsefulDepth(d); k < p.MaxDepth {
		job.Depth = &model.DepthReduction{Requested: p.MaxDepth, Used: k, Reason: why}
		job.Problem.MaxDepth = k
	}
	return job, nil
}

// Check refuses, before any work and wrapped in ErrInvalid, a problem the
// backend cannot solve as stated: an objective it does not solve, or a
// field it would otherwise ignore (node limit, minimum support, depth,
// row weights). Messages name the backend and the field.
func Check(info Info, d *model.Dataset, p model.Problem) error {
	p = p.Normalized()
	if err := p.Validate(); err != nil {
		return Invalidf("problem: %w", err)
	}
	if !info.Accepts(p.Objective) {
		var names []string
		for _, o := range info.Objectives {
			names = append(names, string(o))
		}
		return Invalidf("backend %s does not solve objective %q (it solves %s)", info.Name, p.Objective, strings.Join(names, ", "))
	}
	c := info.Caps
	if p.MaxNodes > 0 && !c.MaxNodes {
		return Invalidf("backend %s does not support a node limit (--max-nodes %d)", info.Name, p.MaxNodes)
	}
	if p.LeafCost > 0 && !c.LeafCost {
		return Invalidf("backend %s does not support a leaf cost (--leaf-cost %v)", info.Name, p.LeafCost)
	}
	if p.MinSupport > 1 && !c.MinSupport {
		return Invalidf("backend %s does not support a minimum leaf support (--min-support %d)", info.Name, p.MinSupport)
	}
	switch k, capped := p.DepthLimit(); p.Objective {
	case model.MinDepth, model.MinSize:
		if capped && !c.DepthCap {
			return Invalidf("backend %s computes the minimum depth of a consistent tree; a depth limit (--depth %d) does not apply", info.Name, k)
		}
	case model.MinNodes:
		if capped && !c.DepthCap {
			return Invalidf("backend %s computes the fewest nodes of a consistent tree at any depth; a depth limit (--depth %d) does not apply", info.Name, k)
		}
	case model.DiagramError:
		// The skeleton gives a diagram's depth: MaxDepth is left unset
		// (NoDepthLimit, or its zero value in a library call).
		if capped && k > 0 {
			return Invalidf("backend %s: the skeleton gives the diagram's depth; a depth limit (--depth %d) does not apply (leave it unset)", info.Name, k)
		}
	}
	if d != nil && c.MaxClasses > 0 && d.NumClasses() > c.MaxClasses {
		return Invalidf("backend %s takes at most %d classes; the data has %d", info.Name, c.MaxClasses, d.NumClasses())
	}
	if d != nil && d.Weights == nil && c.MaxRepeatedRows > 0 && d.Rows() > c.MaxRepeatedRows {
		return Invalidf("backend %s takes at most %d rows; the data has %d", info.Name, c.MaxRepeatedRows, d.Rows())
	}
	if d != nil && d.Weights != nil {
		switch c.Weights {
		case NoWeights:
			return Invalidf("backend %s does not take row weights", info.Name)
		case WholeWeights:
			if r, ok := d.FractionalWeight(); ok {
				return Invalidf("%s: backend %s takes whole-number row weights only (row %d has weight %v)", d.Where(r), info.Name, r+1, d.Weights[r])
			}
			if total := d.TotalWeight(); c.MaxRepeatedRows > 0 && total > float64(c.MaxRepeatedRows) {
				return Invalidf("backend %s repeats each row by its weight: the weights add up to %g rows, more than its %d", info.Name, total, c.MaxRepeatedRows)
			}
		}
	}
	return nil
}

// ExportWithOption writes e's formulation of the job with one option set
// anew (key=value, validated with the backend's other options): for an
// exporter whose file format is an option, its ExportAs.
func ExportWithOption(ctx context.Context, w io.Writer, e Exporter, job *Job, key, value string) error {
	raw := job.Options.Raw()
	raw[key] = value
	vals, err := e.Info().Parse(raw)
	if err != nil {
		return err
	}
	j := *job
	j.Options = vals
	return e.Export(ctx, w, &j)
}
