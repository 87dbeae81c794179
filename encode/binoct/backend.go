package binoct

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

// Backend is the milp-binoct backend: BinOCT as published, on HiGHS (or
// any MILP solver by command), for the fewest (weighted) errors at a
// depth, and with a used-leaf variable per leaf for a minimum leaf size,
// a leaf cost and a cap on the splits. It exports the MILP and decodes a
// MILP solver's solution file for it.
type Backend struct{}

// The optional interfaces milp-binoct implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
	_ backend.Sizer          = Backend{}
)

// Info describes milp-binoct.
func (Backend) Info() backend.Info {
	return backend.Info{
		Name:        "milp-binoct",
		Family:      backend.FamilyMILP,
		Paper:       "Verwer & Zhang, Learning Optimal Classification Trees Using a Binary Linear Program Formulation, AAAI 2019",
		Description: "optimal tree by BinOCT, the binary linear program of Verwer & Zhang (2019): thresholds by a binary encoding over each column's sorted values, path constraints over value ranges, as published (a baseline: milp-flowoct and milp-odt are stronger), on HiGHS (build with -tags highs) or any MILP solver by command; MPS/LP export",
		Objectives:  []model.Objective{model.MinError},
		Input:       "numeric (categorical columns as 0/1 indicators)",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{MaxNodes: true, LeafCost: true, MinSupport: true, Weights: backend.AnyWeights},
		Params: []backend.Param{
			backend.EnumParam("formulation", "published", []string{"published", "binary-leaves"}, "the MILP: published is BinOCT as Verwer & Zhang state it (errors only; a leaf cost, --min-support and --max-nodes add one used-leaf variable per leaf); binary-leaves declares the row-to-leaf variables binary rather than continuous (an option of the authors' code: the same points and LP relaxation)"),
			milpjob.SolverParam(""),
			milpjob.GapParam(),
			milpjob.LPBoundParam(true),
			milpjob.HiGHSParam(),
			backend.TrustSolverParam(),
		},
	}
}

// options states the MILP of the job.
func options(job *backend.Job) Options {
	p := job.Problem
	return Options{Depth: p.MaxDepth, MinSupport: p.MinSupport, LeafCost: p.LeafCost, MaxSplits: p.MaxNodes,
		BinaryLeaves: job.Options.String("formulation") == "binary-leaves"}
}

// plan checks the job and plans its MILP, refusing (wrapped in
// backend.ErrInvalid) one whose estimate passes the memory cap.
func plan(ctx context.Context, job *backend.Job, solving bool) (*Encoding, error) {
	// A job made without NewJob is checked here too: never ignore a field.
	if err := backend.Check(Backend{}.Info(), job.Data, job.Problem); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	e := Plan(job.Data, options(job))
	s := e.Size(solving)
	what := fmt.Sprintf("the milp-binoct MILP of depth %d", e.Opts.Depth)
	if s.Variables > math.MaxInt32 || s.Constraints > math.MaxInt32 || s.NonZeros > math.MaxInt32 {
		return nil, backend.Invalidf("%s would have %s, more than a MILP solver can index (2^31-1 of each) (lower --depth)", what, s)
	}
	if err := job.Budget.Admit(s, what); err != nil {
		return nil, err
	}
	return e, nil
}

// Size estimates the job's MILP (with HiGHS's copy).
func (Backend) Size(job *backend.Job) (backend.Size, error) {
	if err := backend.Check(Backend{}.Info(), job.Data, job.Problem); err != nil {
		return backend.Size{}, err
	}
	return Plan(job.Data, options(job)).Size(true), nil
}

// Solve builds the MILP and solves it.
func (Backend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	start := time.Now()
	e, err := plan(ctx, job, true)
	if err != nil {
		if ctx.Err() != nil && !isInvalid(err) {
			return &model.Result{Status: model.StoppedStatus(ctx)}, nil
		}
		return nil, err
	}
	solver, err := milpjob.NewSolver(job)
	if err != nil {
		return nil, err
	}
	hopts, err := milpjob.HiGHSOptions(job.Options.String(milpjob.OptHiGHS))
	if err != nil {
		return nil, err
	}
	stats := map[string]any{"columns_split": len(e.Cols), "threshold_bits": e.Bits}
	if res, ok := milpjob.OneLeaf(job); ok {
		res.Stats = stats
		return res, nil
	}
	if err := e.Build(ctx); err != nil {
		if ctx.Err() != nil {
			return &model.Result{Status: model.StoppedStatus(ctx), Stats: stats}, nil
		}
		return nil, err
	}
	stats["columns"], stats["rows"] = len(e.Model.Columns), len(e.Model.Rows)
	stats["binaries"], stats["nonzeros"] = e.Model.NumIntegers(), e.Model.NumNonzeros()
	_, fractional := job.Data.FractionalWeight()
	s := milpjob.Single{Model: e.Model, Decode: e.Decode, Whole: job.Problem.LeafCost == 0 && !fractional}
	res, err := milpjob.SolveSingle(ctx, job, solver, hopts, s, stats)
	if err != nil {
		return nil, err
	}
	res.Stats = stats
	res.Stats["seconds_total"] = time.Since(start).Seconds()
	return res, nil
}

func isInvalid(err error) bool { return errors.Is(err, backend.ErrInvalid) }

// solveOnly are the options that steer the solve but not the MILP; an
// export refuses them.
var solveOnly = []string{"gap", "lp-bound", "highs", "milp-solver"}

// exportEncoding builds the MILP an export or a decode is about.
func exportEncoding(ctx context.Context, job *backend.Job) (*Encoding, error) {
	for _, k := range solveOnly {
		if job.Options.IsSet(k) {
			return nil, backend.Invalidf("option %s steers the solve, not the MILP: export and decode do not take it", k)
		}
	}
	e, err := plan(ctx, job, false)
	if err != nil {
		return nil, err
	}
	return e, e.Build(ctx)
}

// ExportFormat is "mps".
func (Backend) ExportFormat() string { return "mps" }

// ExportFormats are "mps" and "lp" (CPLEX LP).
func (Backend) ExportFormats() []string { return []string{"mps", "lp"} }

// Export writes the MILP in free MPS format.
func (b Backend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	return b.ExportAs(ctx, w, job, "mps")
}

// ExportAs writes the MILP as MPS or CPLEX LP, with a comment header that
// maps the columns and gives the decode command.
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
	flags := []string{fmt.Sprintf("--depth %d", p.MaxDepth)}
	if p.MaxNodes > 0 {
		flags = append(flags, fmt.Sprintf("--max-nodes %d", p.MaxNodes))
	}
	if p.LeafCost > 0 {
		flags = append(flags, fmt.Sprintf("--leaf-cost %v", p.LeafCost))
	}
	if p.MinSupport > 1 {
		flags = append(flags, fmt.Sprintf("--min-support %d", p.MinSupport))
	}
	h := []string{
		fmt.Sprintf("odtkit milp-binoct: BinOCT (Verwer & Zhang 2019), depth %d, %d threshold bits per node; %d rows, %d columns split",
			e.Opts.Depth, e.Bits, e.Data.Rows(), len(e.Cols)),
		"solve it with one of: highs --solution_file SOL FILE; cbc FILE solve solu SOL; glpsol --freemps FILE.mps -w SOL (or glpsol --lp FILE.lp -w SOL)",
		fmt.Sprintf("decode a solution with: odt decode --backend milp-binoct %s DATA SOL", strings.Join(flags, " ")),
		"branch nodes n in heap order (root 0, children 2n+1 low and 2n+2 high); leaves numbered 0.. left to right",
		"f_n_j: node n tests column j; t_n_i: bit i (most significant first) of its threshold index tau (values at index <= tau go low)",
		"l_r_l: row r reaches leaf l; p_l_c: leaf l predicts class c; e_l_c: its rows of class c when it predicts another; u_l: leaf l holds rows (leaf cost, min support, max nodes only)",
	}
	var cs []string
	for j, c := range e.Cols {
		f := e.Data.Features[c.Feature]
		name := f.Name
		if c.Level >= 0 {
			name += "==" + f.Levels[c.Level]
		}
		cs = append(cs, fmt.Sprintf("%d=%s[%d values %v..%v]", j, name, len(c.Values), c.Values[0], c.Values[len(c.Values)-1]))
	}
	// Short comment lines: CBC reads a long one as data.
	for k := 0; k < len(cs); k += 6 {
		h = append(h, "columns j: "+strings.Join(cs[k:min(k+6, len(cs))], " "))
	}
	return h
}

// Decode reads a MILP solver's solution file for the exported MILP,
// checks it against the MILP and decodes it.
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (*model.Result, error) {
	e, err := exportEncoding(ctx, job)
	if err != nil {
		return nil, err
	}
	return milpjob.Decode(r, e.Model, e.Decode, job.Data, job.Problem, nil) // no point built without a solver: a claimed infeasibility is taken as a claim
}
