package oct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// The option that chooses the MILP, and its values.
const (
	// OptFormulation chooses the MILP: FormulationPublished (the
	// default) or FormulationAggregated.
	OptFormulation = "formulation"
	// FormulationPublished is OCT exactly as Bertsimas & Dunn state it.
	FormulationPublished = "published"
	// FormulationAggregated is OCT with its path constraints aggregated
	// (Options.Aggregate), a strengthening not in the paper.
	FormulationAggregated = "aggregated"
)

// Options state the MILP.
type Options struct {
	Depth int
	// MinSupport is N_min, the least number of rows of a leaf that holds
	// rows (1: any).
	MinSupport int
	// LeafCost is the problem's λ (0: the error objective).
	LeafCost float64
	// MaxSplits caps Σ d_t, the paper's constraint form of the complexity
	// (0: no cap).
	MaxSplits int
	// Aggregate states each path constraint once per row and branch node,
	// over the z_it of every leaf on that side (a row is in one leaf),
	// instead of once per leaf and ancestor: fewer rows and a stronger LP
	// relaxation. Not in the paper; off for the published MILP.
	Aggregate bool
}

// params are milp-oct's options.
func params() []backend.Param {
	return []backend.Param{
		backend.EnumParam(OptFormulation, FormulationPublished, []string{FormulationPublished, FormulationAggregated}, "the MILP: published is OCT as Bertsimas & Dunn state it (the paper's ε_j, M = 1 + ε_max and 1, N_min, α through --leaf-cost); aggregated (a strengthening, not in the paper) states each path constraint once per row and branch node over the z of every leaf on that side, instead of once per leaf and ancestor: fewer rows, a stronger LP"),
		milpjob.SolverParam(""),
		milpjob.GapParam(),
		milpjob.LPBoundParam(true),
		milpjob.HiGHSParam(),
		backend.TrustSolverParam(),
	}
}

// JobOptions states the MILP of a job: the problem's depth, minimum
// leaf size, leaf cost and cap on the splits, and the formulation its
// options choose (the paper's unless formulation says otherwise). A
// formulation it does not know is refused with backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	p := job.Problem
	o := Options{Depth: p.MaxDepth, MinSupport: p.MinSupport, LeafCost: p.LeafCost, MaxSplits: p.MaxNodes}
	switch f := job.Options.String(OptFormulation); f {
	case "", FormulationPublished:
	case FormulationAggregated:
		o.Aggregate = true
	default:
		return o, backend.Invalidf("milp-oct: option %s=%q: want %s or %s", OptFormulation, f, FormulationPublished, FormulationAggregated)
	}
	return o, nil
}
