package satjob

import (
	"context"
	"errors"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// OptSolver names the option of every SAT backend that picks its SAT
// solver (sat.NewSolver).
const OptSolver = "sat-solver"

// SolverParam is the sat-solver option; calls says how an external
// solver is run (once per bound, per depth, ...).
func SolverParam(calls string) backend.Param {
	return backend.StringParam(OptSolver, "cdcl", `SAT solver: cdcl (odtkit's own, in process), cdcl-glue (the same with restarts and clause deletion by glue, as Glucose and CaDiCaL's focused mode: faster on some hard refutations, slower on others), gini (in process) or external:"CMD ARGS" (any DIMACS solver, run `+calls+`; {in}/{out} placeholders, e.g. external:"minisat {in} {out}"; with {drat} or {proof} its UNSAT answers come with a DRAT or LRAT proof that odtkit checks, e.g. external:"cadical -q {in} {drat}", and count as proofs)`).Checked(sat.CheckSpec)
}

// CertifyParams are the options that ask for a certificate (certify,
// its help followed by more when not empty) and let it replace one
// (certify-force).
func CertifyParams(more string) []backend.Param {
	help := sat.CertifyHelp
	if more != "" {
		help += "; " + more
	}
	return []backend.Param{
		backend.StringParam(sat.CertifyOption, "", help),
		backend.BoolParam(sat.CertifyForceOption, false, sat.CertifyForceHelp),
	}
}

// Options are the options every SAT backend shares, read once
// (JobOptions).
type Options struct {
	// Solver is the SAT solver's specification (sat-solver).
	Solver string
	// Certify is the directory of the certificate asked for ("" none;
	// certify), CertifyForce whether it may replace one there
	// (certify-force).
	Certify      string
	CertifyForce bool
}

// JobOptions reads the options SolverParam and CertifyParams declare.
func JobOptions(job *backend.Job) Options {
	v := job.Options
	return Options{Solver: v.String(OptSolver), Certify: v.String(sat.CertifyOption), CertifyForce: v.Bool(sat.CertifyForceOption)}
}

// NewSolver makes the SAT solver the options name.
func (o Options) NewSolver() (sat.Solver, error) { return sat.NewSolver(o.Solver) }

// Certifiable refuses (backend.ErrInvalid) a certificate asked of a
// solve that writes no proof: another SAT solver than odtkit's CDCL, or
// an external MaxSAT solver (maxsat, its command line; nil: none).
func (o Options) Certifiable(maxsat []string) error {
	if err := sat.Certifiable(o.Solver); err != nil {
		return backend.Invalid(err)
	}
	if maxsat != nil {
		return backend.Invalid(fmt.Errorf("%w, not the MaxSAT solver %q", sat.ErrNotCertifiable, maxsat[0]))
	}
	return nil
}

// CertifiableCalls is Certifiable for a search whose solver calls have
// no assumptions and whose refutations each end a solver's formula
// (sat-dt1, sat-depth), where an external solver that writes proofs is
// certifiable too (sat.CertifiableCalls).
func (o Options) CertifiableCalls() error {
	if err := sat.CertifiableCalls(o.Solver); err != nil {
		return backend.Invalid(err)
	}
	return nil
}

// OptProof names the decode option of the DIMACS backends that gives the
// proof an external solver wrote of its UNSAT answer.
const OptProof = "proof"

// ProofParam is the proof option (odt decode --proof).
func ProofParam() backend.Param {
	return backend.StringParam(OptProof, "", "odt decode only: FILE, the proof the solver wrote of its UNSAT answer, LRAT (text; a name ending in .lrat) or DRAT (text or binary, e.g. cadical F.cnf FILE); checked against the formula built again, it makes the answer's bound odtkit's proof instead of the solver's claim")
}

// RefuseProof refuses the proof option in a solve: only a decode reads
// a proof.
func RefuseProof(job *backend.Job) error {
	if job.Options.String(OptProof) != "" {
		return backend.Invalidf("the option %s is read by odt decode, with the solver's answer; a solve runs its own solver (for checked refutations give it {drat} or {proof} in %s)", OptProof, OptSolver)
	}
	return nil
}

// Unsatisfiable puts a decoded UNSAT answer for the formula f into res:
// infeasible, with bound as its lower bound — proven when the job's
// proof option names a proof that refutes f (checked_refutations 1),
// else the solver's claim. A proof that does not refute f is an error
// of the answer (backend.Answer), naming the file.
func Unsatisfiable(ctx context.Context, job *backend.Job, f *sat.CNF, res *model.Result, bound float64) error {
	res.Infeasible = true
	checked, err := checkAnswerProof(ctx, job, f)
	if err != nil {
		return err
	}
	if checked {
		res.LowerBound = bound
		NoteChecked(res, 1)
		return nil
	}
	res.Claim(bound, "the solver's answer (s UNSATISFIABLE)")
	return nil
}

// checkAnswerProof checks the proof the job's proof option names (if
// any) against the formula f; it reports whether a proof was given.
func checkAnswerProof(ctx context.Context, job *backend.Job, f *sat.CNF) (bool, error) {
	path := job.Options.String(OptProof)
	if path == "" {
		return false, nil
	}
	if err := f.CheckRefutation(ctx, path, max(job.Budget.Limit(), 0)); err != nil {
		if ctx.Err() != nil || errors.Is(err, model.ErrMemoryLimit) {
			return false, err
		}
		return false, backend.Answer(backend.Invalidf("the proof %s does not refute the formula: %w", path, err))
	}
	return true, nil
}
