package cpodt

import (
	"fmt"

	"github.com/odtkit/odtkit/backend"
)

// OptSolver is the option naming the solver.
const OptSolver = "cp-solver"

// Options say how a job's model is solved.
type Options struct {
	// Solver is the cp-solver option: a MiniZinc solver ID, or
	// external:"CMD ARGS" (see CheckSpec).
	Solver string
	// Trust takes the solver's word that its search is complete as a
	// proof (trust-solver).
	Trust bool
	// Threads is the number of threads a solver ID is given (minizinc
	// -p N, which MiniZinc drops for a solver that runs on one); 0 leaves
	// the solver's default, one thread. An external command is run as
	// written.
	Threads int
}

// params are cp-odt's options.
func params() []backend.Param {
	return []backend.Param{
		backend.StringParam(OptSolver, "gecode", `the MiniZinc solver: a solver ID that minizinc --solvers lists (gecode, chuffed, cp-sat, ...), run as minizinc --solver ID -a --time-limit MS [-p THREADS] MODEL DATA (-p with --threads N); or external:"CMD ARGS" with {model} and {data} placeholders, a command printing MiniZinc's solution stream (dzn or JSON output)`).Checked(CheckSpec),
		backend.TrustSolverParam(),
	}
}

// JobOptions reads how the job's model is solved: its options and its
// thread count (Job.Threads). A cp-solver that is neither a solver ID
// nor an external command is refused with backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	o := Options{Solver: job.Options.String(OptSolver), Trust: job.Options.Bool(backend.OptTrustSolver), Threads: max(job.Threads, 0)}
	if !job.Options.Has(OptSolver) {
		o.Solver = "gecode" // a job made without NewJob: the default
	}
	if err := CheckSpec(o.Solver); err != nil {
		return o, backend.Invalid(fmt.Errorf("%s: %w", OptSolver, err))
	}
	return o, nil
}
