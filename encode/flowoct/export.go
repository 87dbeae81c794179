package flowoct

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// ExportFormat is "mps".
func (Backend) ExportFormat() string { return "mps" }

// exportEncoding builds the MILP an export or a decode is about: the
// error objective at --depth, or for min-depth and min-size the MILP of
// one depth (--depth K).
func exportEncoding(ctx context.Context, job *backend.Job) (*Encoding, Settings, error) {
	pr, err := prepare(ctx, job)
	if err != nil {
		return nil, Settings{}, err
	}
	if k := pr.set.SolveOnly; k != "" {
		return nil, pr.set, milpjob.SolveOnlyError(k)
	}
	k := job.Problem.MaxDepth
	if job.Problem.Objective != model.MinError {
		k = depthCap(job.Problem)
	}
	if job.Problem.Objective != model.MinError && k < 1 {
		return nil, pr.set, backend.Invalidf("the exported MILP of %s is that of one depth: give --depth K", job.Problem.Objective)
	}
	e, err := plan(ctx, job, pr.view, options(job, pr, k), false)
	if err != nil {
		return nil, pr.set, err
	}
	return e, pr.set, e.Build(ctx)
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
	e, set, err := exportEncoding(ctx, job)
	if err != nil {
		return err
	}
	e.Model.Comments = e.Header(job, set)
	return milp.Write(w, e.Model, format)
}

// Header is the comment block of an exported MILP of the job (its
// options set).
func (e *Encoding) Header(job *backend.Job, set Settings) []string {
	p := job.Problem
	flags := []string{"--objective " + string(p.Objective), fmt.Sprintf("--depth %d", p.MaxDepth)}
	if p.MaxNodes > 0 {
		flags = append(flags, fmt.Sprintf("--max-nodes %d", p.MaxNodes))
	}
	if p.LeafCost > 0 {
		flags = append(flags, fmt.Sprintf("--leaf-cost %v", p.LeafCost))
	}

	if set.DropConflicts {
		flags = append(flags, "--opt drop-conflicts=true")
	}
	what := map[Objective]string{Errors: "minimise the weighted errors", Nodes: "no error, fewest nodes", Feasible: "no error (feasibility)"}[e.Opts.Objective]
	h := []string{
		fmt.Sprintf("odtkit milp-flowoct: FlowOCT (Aghaei, Gomez & Vayanos 2024), depth %d, %s; %d rows in %d groups of identical tests, %d binary tests",
			e.Opts.Depth, what, e.View.N, len(e.groups), len(e.Tests)),
		milpjob.SolveLine,
		milpjob.DecodeLine("milp-flowoct", flags),
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
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	e, _, err := exportEncoding(ctx, job)
	if err != nil {
		return nil, err
	}
	return milpjob.Decode(r, e.Model, e.Decode, job.Data, job.Problem, e.witness)
}

// witness is a point of the MILP known without a solver: the greedy
// tree's (pruned in the general form), nil when it is not one (the
// min-depth and min-size MILPs ask for no error, which it may make).
func (e *Encoding) witness() []float64 {
	t := e.Greedy()
	if x, ok := e.Point(t); ok && e.Model.CheckPoint(x, 1e-9) == nil {
		return x
	}
	return nil
}
