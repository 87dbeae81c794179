package binoct

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
		Description: "optimal tree by BinOCT, the binary linear program of Verwer & Zhang (2019): thresholds by a binary encoding over each column's sorted values, path constraints over value ranges, as published by default (a baseline: milp-flowoct and milp-odt are stronger; formulation=strengthened adds valid inequalities that route 0/1 columns without a big-M and lift the LP bound), on HiGHS (build with -tags highs) or any MILP solver by command; MPS/LP export",
		Objectives:  []model.Objective{model.MinError},
		Input:       "numeric (categorical columns as 0/1 indicators)",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{MaxNodes: true, LeafCost: true, MinSupport: true, Weights: backend.AnyWeights},
		Params:      params(),
	}
}

// job is milp-binoct's run of the shared steps of a tree MILP solved whole.
func job() milpjob.FormJob {
	return milpjob.FormJob{Info: Backend{}.Info(), Plan: func(j *backend.Job) (milpjob.Form, error) {
		o, err := JobOptions(j)
		if err != nil {
			return nil, err
		}
		return Plan(j.Data, o), nil
	}}
}

// Size estimates the job's MILP (with HiGHS's copy).
func (Backend) Size(j *backend.Job) (backend.Size, error) { return job().Size(j) }

// Solve builds the MILP and solves it.
func (Backend) Solve(ctx context.Context, j *backend.Job) (*model.Result, error) {
	return job().Solve(ctx, j)
}

// MILP is the built MILP.
func (e *Encoding) MILP() *milp.Model { return e.Model }

// Stats are the figures of the MILP a solve reports.
func (e *Encoding) Stats() map[string]any {
	return map[string]any{"columns_split": len(e.Cols), "threshold_bits": e.Bits}
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
func (Backend) ExportAs(ctx context.Context, w io.Writer, j *backend.Job, format string) error {
	return job().ExportAs(ctx, w, j, format)
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
func (Backend) Decode(ctx context.Context, j *backend.Job, r io.Reader) (*model.Result, error) {
	return job().Decode(ctx, j, r)
}
