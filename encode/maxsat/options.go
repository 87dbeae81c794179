package maxsat

import (
	"fmt"

	"github.com/odtkit/odtkit/backend"
)

// Option names of the backends that take an external solver.
const (
	OptSolver = "maxsat-solver"
	OptFormat = "format"
	OptForm   = "wcnf-form"
)

// Params are the options of an exporting backend's file (format,
// wcnf-form) and of the external solver that may solve it in a solve
// (maxsat-solver).
func Params() []backend.Param {
	return []backend.Param{
		backend.StringParam(OptSolver, "", `solve the exported formula (see format, wcnf-form) with an external MaxSAT or PB solver instead: external:"CMD ARGS" with {in}/{out} placeholders, e.g. external:"clasp {in}" (WCNF) or external:"minisat+ {in}" with format=opb; its answer is verified like odt decode's`).Checked(CheckSpec),
		backend.EnumParam(OptFormat, "wcnf", []string{"wcnf", "opb"}, "file format of odt export (set by --to) and of the external MaxSAT/PB solver's input: weighted MaxSAT or pseudo-Boolean"),
		backend.TrustSolverParam(),
		backend.EnumParam(OptForm, "classic", []string{"classic", "2022"}, "WCNF form of odt export: classic (\"p wcnf\" header, weights before every clause, read by clasp, open-wbo, z3) or 2022 (no header, \"h\" before hard clauses, as in the MaxSAT evaluations since 2022)"),
	}
}

// Options are the options of an exporting backend's file and of the
// external solver that may solve it, read once (JobOptions).
type Options struct {
	// Argv is the command line of the external solver (maxsat-solver;
	// nil: the backend's in-process search).
	Argv []string
	// Format is the file format: "wcnf" or "opb" (format).
	Format string
	// Form is the WCNF form: "classic" or "2022" (wcnf-form).
	Form string
}

// JobOptions reads the options Params declares. A malformed
// maxsat-solver, which backend.NewJob refuses before any work, wraps
// backend.ErrInvalid for a job made without it.
func JobOptions(v backend.Values) (Options, error) {
	o := Options{Format: v.String(OptFormat), Form: v.String(OptForm)}
	argv, err := Command(v.String(OptSolver))
	if err != nil {
		return o, backend.Invalid(fmt.Errorf("%s: %w", OptSolver, err))
	}
	o.Argv = argv
	return o, nil
}
