package oct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// The option that chooses the MILP, and its values.
const (
	// OptFormulation chooses the MILP: FormulationPublished (the
	// default), FormulationAggregated or FormulationStrengthened.
	OptFormulation = milpjob.OptFormulation
	// FormulationPublished is OCT exactly as Bertsimas & Dunn state it.
	FormulationPublished = milpjob.FormulationPublished
	// FormulationAggregated is OCT with its path constraints aggregated
	// (Options.Aggregate), a strengthening not in the paper.
	FormulationAggregated = "aggregated"
	// FormulationStrengthened is the aggregated MILP with the valid
	// inequalities of Options.Strengthen, not in the paper.
	FormulationStrengthened = milpjob.FormulationStrengthened
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
	// Strengthen adds to the MILP (aggregated) the inequalities of
	// strengthen: a split's threshold is at least its column's first gap,
	// a row at its column's least value goes low and one at its greatest
	// value high without a big-M, and each row's error is stated on its
	// own through the class its leaf predicts per the parent's column. It
	// keeps an optimal tree of every problem and lifts the LP bound. Not
	// in the paper; off for the published MILP.
	Strengthen bool
}

// params are milp-oct's options.
func params() []backend.Param {
	return milpjob.SingleParams("the MILP: published is OCT as Bertsimas & Dunn state it (the paper's ε_j, M = 1 + ε_max and 1, N_min, α through --leaf-cost); aggregated (a strengthening, not in the paper) states each path constraint once per row and branch node over the z of every leaf on that side, instead of once per leaf and ancestor: fewer rows, a stronger LP; strengthened (not in the paper) is aggregated plus valid inequalities that keep an optimal tree: a split's threshold is at least its column's first gap (a split sends rows low), a row at its column's least (greatest) value goes low (high) without a big-M, which routes 0/1 columns exactly, and a row counts as correct only in a leaf whose class, chosen per its parent's column, is the row's, which lifts the LP bound above 0 (docs/benchmarks.md)",
		FormulationAggregated, FormulationStrengthened)
}

// JobOptions states the MILP of a job: the problem's depth, minimum
// leaf size, leaf cost and cap on the splits, and the formulation its
// options choose (the paper's unless formulation says otherwise). A
// formulation it does not know is refused with backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	o := Options{Tree: milpjob.TreeOf(job.Problem)}
	f, err := milpjob.Formulation(job, "milp-oct", FormulationAggregated, FormulationStrengthened)
	o.Aggregate = f == FormulationAggregated || f == FormulationStrengthened
	o.Strengthen = f == FormulationStrengthened
	return o, err
}
