package binoct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// The option that chooses the MILP, and its values.
const (
	// OptFormulation chooses the MILP: FormulationPublished (the
	// default) or FormulationBinaryLeaves.
	OptFormulation = milpjob.OptFormulation
	// FormulationPublished is BinOCT exactly as Verwer & Zhang state it.
	FormulationPublished = milpjob.FormulationPublished
	// FormulationBinaryLeaves declares the row-to-leaf variables binary
	// (Options.BinaryLeaves).
	FormulationBinaryLeaves = "binary-leaves"
)

// Options state the MILP.
type Options struct {
	// Tree is what the MILP takes from the problem.
	milpjob.Tree
	// BinaryLeaves makes the l_rl binary instead of continuous (the
	// authors' code has it as an option, bool_decision); the MILP's
	// points and LP relaxation are the same.
	BinaryLeaves bool
}

// extended reports whether the MILP needs the used-leaf variables.
func (o Options) extended() bool { return o.MinSupport > 1 || o.LeafCost > 0 || o.MaxSplits > 0 }

// params are milp-binoct's options.
func params() []backend.Param {
	return milpjob.SingleParams(FormulationBinaryLeaves, "the MILP: published is BinOCT as Verwer & Zhang state it (errors only; a leaf cost, --min-support and --max-nodes add one used-leaf variable per leaf); binary-leaves declares the row-to-leaf variables binary rather than continuous (an option of the authors' code: the same points and LP relaxation)")
}

// JobOptions states the MILP of a job: the problem's depth, minimum
// leaf size, leaf cost and cap on the splits, and the formulation its
// options choose (the paper's unless formulation says otherwise). A
// formulation it does not know is refused with backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	o := Options{Tree: milpjob.TreeOf(job.Problem)}
	var err error
	o.BinaryLeaves, err = milpjob.Alternative(job, "milp-binoct", FormulationBinaryLeaves)
	return o, err
}
