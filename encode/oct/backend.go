package oct

import (
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Backend is the milp-oct backend: OCT as published, on HiGHS (or any
// MILP solver by command), for the fewest (weighted) errors at a depth,
// with a minimum leaf size, a leaf cost (the paper's α) and a cap on the
// splits. It exports the MILP and decodes a MILP solver's solution file
// for it.
type Backend struct{ milpjob.Whole[spec] }

// spec states milp-oct for milpjob.Whole: its Info and how a job plans
// its MILP.
type spec struct{}

// The optional interfaces milp-oct implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
	_ backend.Sizer          = Backend{}
)

// Info describes milp-oct.
func (spec) Info() backend.Info {
	return backend.Info{
		Name:        "milp-oct",
		Family:      backend.FamilyMILP,
		Paper:       "Bertsimas & Dunn, Optimal Classification Trees, Machine Learning 106(7), 2017",
		Description: "optimal tree by OCT, the big-M MILP of Bertsimas & Dunn (2017) with univariate splits on data normalised to [0, 1], as published by default (a baseline: milp-flowoct and milp-odt are stronger; formulation=strengthened adds valid inequalities that route 0/1 columns without a big-M and lift the LP bound), on HiGHS (build with -tags highs) or any MILP solver by command; MPS/LP export",
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
	return map[string]any{"columns_split": len(e.Cols), "epsilon_min": e.epsMin, "epsilon_max": e.epsMax, "baseline_error": e.Baseline, "alpha": e.Alpha()}
}

// Header is the comment block of an exported MILP.
func (e *Encoding) Header(job *backend.Job) []string {
	h := []string{
		fmt.Sprintf("odtkit milp-oct: OCT (Bertsimas & Dunn 2017), univariate, depth %d, N_min %d, alpha %v (leaf cost %v), baseline error %v; %d rows, %d columns split",
			e.Opts.Depth, max(e.Opts.MinSupport, 1), e.Alpha(), e.Opts.LeafCost, e.Baseline, e.Data.Rows(), len(e.Cols)),
		milpjob.SolveLine,
		milpjob.DecodeLine("milp-oct", milpjob.TreeFlags(job.Problem)),
		"branch nodes t in heap order (root 0, children 2t+1 left/low and 2t+2 right/high); leaves numbered 0.. left to right",
		"d_t: node t splits; a_t_j: on column j; b_t: threshold on the normalised column (low: x + eps_j <= b_t, high: x >= b_t)",
		"z_i_t: row i in leaf t; l_t: leaf t holds rows; c_t_k: it predicts class k; N_t, N_t_k: its rows; L_t: its misclassified weight",
	}
	return append(h, milpjob.ColumnLines(e.Data, e.Cols, func(j int, c milpjob.Column) string {
		return fmt.Sprintf("[%v..%v,eps %.6g]", c.Values[0], c.Values[len(c.Values)-1], e.eps[j])
	})...)
}
