package oct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// The option that chooses the MILP, and its values.
const (
	// OptFormulation chooses the MILP: FormulationPublished (the
	// default) or FormulationAggregated.
	OptFormulation = milpjob.OptFormulation
	// FormulationPublished is OCT exactly as Bertsimas & Dunn state it.
	FormulationPublished = milpjob.FormulationPublished
	// FormulationAggregated is OCT with its path constraints aggregated
	// (Options.Aggregate), a strengthening not in the paper.
	FormulationAggregated = "aggregated"
)

// Options state the MILP.
type Options struct {
	// Tree is what the MILP takes from the problem (for OCT, MinSupport
	// is the paper's N_min and MaxSplits caps Σ d_t).
	milpjob.Tree
	// Aggregate states each path constraint once per row and branch node,
	// over the z_it of every leaf on that side (a row is in one leaf),
	// instead of once per leaf and ancestor: fewer rows and a stronger LP
	// relaxation. Not in the paper; off for the published MILP.
	Aggregate bool
}

// params are milp-oct's options.
func params() []backend.Param {
	return milpjob.SingleParams(FormulationAggregated, "the MILP: published is OCT as Bertsimas & Dunn state it (the paper's ε_j, M = 1 + ε_max and 1, N_min, α through --leaf-cost); aggregated (a strengthening, not in the paper) states each path constraint once per row and branch node over the z of every leaf on that side, instead of once per leaf and ancestor: fewer rows, a stronger LP")
}

// JobOptions states the MILP of a job: the problem's depth, minimum
// leaf size, leaf cost and cap on the splits, and the formulation its
// options choose (the paper's unless formulation says otherwise). A
// formulation it does not know is refused with backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	o := Options{Tree: milpjob.TreeOf(job.Problem)}
	var err error
	o.Aggregate, err = milpjob.Alternative(job, "milp-oct", FormulationAggregated)
	return o, err
}
