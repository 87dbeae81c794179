package binoct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// The option that chooses the MILP, and its values.
const (
	// OptFormulation chooses the MILP: FormulationPublished (the
	// default), FormulationBinaryLeaves or FormulationStrengthened.
	OptFormulation = milpjob.OptFormulation
	// FormulationPublished is BinOCT exactly as Verwer & Zhang state it.
	FormulationPublished = milpjob.FormulationPublished
	// FormulationBinaryLeaves declares the row-to-leaf variables binary
	// (Options.BinaryLeaves).
	FormulationBinaryLeaves = "binary-leaves"
	// FormulationStrengthened is BinOCT with the valid inequalities of
	// Options.Strengthen, not in the paper.
	FormulationStrengthened = milpjob.FormulationStrengthened
)

// Options state the MILP.
type Options struct {
	// Tree is what the MILP takes from the problem.
	milpjob.Tree
	// BinaryLeaves makes the l_rl binary instead of continuous (the
	// authors' code has it as an option, bool_decision); the MILP's
	// points and LP relaxation are the same.
	BinaryLeaves bool
	// Strengthen adds the inequalities of strengthen: a row at its
	// column's least value goes low and, for the error objective alone
	// (where no threshold may then send every row low), one at its
	// greatest value high, without a big-M; each row's error is stated on
	// its own through the class its leaf predicts per the parent's column.
	// It keeps an optimal tree of every problem and lifts the LP bound.
	// Not in the paper; off for the published MILP.
	Strengthen bool
}

// extended reports whether the MILP needs the used-leaf variables.
func (o Options) extended() bool { return o.MinSupport > 1 || o.LeafCost > 0 || o.MaxSplits > 0 }

// params are milp-binoct's options.
func params() []backend.Param {
	return milpjob.SingleParams("the MILP: published is BinOCT as Verwer & Zhang state it (errors only; a leaf cost, --min-support and --max-nodes add one used-leaf variable per leaf); binary-leaves declares the row-to-leaf variables binary rather than continuous (an option of the authors' code: the same points and LP relaxation); strengthened (not in the paper) adds valid inequalities that keep an optimal tree: a row at its column's least value goes low and, for the error objective alone, no threshold sends every row low, so one at the greatest value goes high, without a big-M (which routes 0/1 columns exactly), and a row counts as correct only in a leaf whose class, chosen per its parent's column, is the row's, which lifts the LP bound above 0 (docs/benchmarks.md)",
		FormulationBinaryLeaves, FormulationStrengthened)
}

// JobOptions states the MILP of a job: the problem's depth, minimum
// leaf size, leaf cost and cap on the splits, and the formulation its
// options choose (the paper's unless formulation says otherwise). A
// formulation it does not know is refused with backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	o := Options{Tree: milpjob.TreeOf(job.Problem)}
	f, err := milpjob.Formulation(job, "milp-binoct", FormulationBinaryLeaves, FormulationStrengthened)
	o.BinaryLeaves = f == FormulationBinaryLeaves
	o.Strengthen = f == FormulationStrengthened
	return o, err
}
