package binoct

import (
	"fmt"

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
type Backend struct{ milpjob.Whole[spec] }

// spec states milp-binoct for milpjob.Whole: its Info and how a job plans
// its MILP.
type spec struct{}

// The optional interfaces milp-binoct implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
	_ backend.Sizer          = Backend{}
)

// Info describes milp-binoct.
func (spec) Info() backend.Info {
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

// Plan plans the job's MILP (see JobOptions) without building it.
func (spec) Plan(j *backend.Job) (milpjob.Form, error) {
	o, err := JobOptions(j)
	if err != nil {
		return nil, err
	}
	return Plan(j.Data, o), nil
}

// MILP is the built MILP.
func (e *Encoding) MILP() *milp.Model { return e.Model }

// Stats are the figures of the MILP a solve reports.
func (e *Encoding) Stats() map[string]any {
	return map[string]any{"columns_split": len(e.Cols), "threshold_bits": e.Bits}
}

// Header is the comment block of an exported MILP.
func (e *Encoding) Header(job *backend.Job) []string {
	h := []string{
		fmt.Sprintf("odtkit milp-binoct: BinOCT (Verwer & Zhang 2019), depth %d, %d threshold bits per node; %d rows, %d columns split",
			e.Opts.Depth, e.Bits, e.Data.Rows(), len(e.Cols)),
		milpjob.SolveLine,
		milpjob.DecodeLine("milp-binoct", milpjob.TreeFlags(job.Problem)),
		"branch nodes n in heap order (root 0, children 2n+1 low and 2n+2 high); leaves numbered 0.. left to right",
		"f_n_j: node n tests column j; t_n_i: bit i (most significant first) of its threshold index tau (values at index <= tau go low)",
		"l_r_l: row r reaches leaf l; p_l_c: leaf l predicts class c; e_l_c: its rows of class c when it predicts another; u_l: leaf l holds rows (leaf cost, min support, max nodes only)",
	}
	return append(h, milpjob.ColumnLines(e.Data, e.Cols, func(j int, c milpjob.Column) string {
		return fmt.Sprintf("[%d values %v..%v]", len(c.Values), c.Values[0], c.Values[len(c.Values)-1])
	})...)
}
