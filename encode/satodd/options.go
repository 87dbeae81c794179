package satodd

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
)

// params are sat-odd's options.
func params() []backend.Param {
	ps := []backend.Param{satjob.SolverParam("once per bound")}
	ps = append(ps, satjob.CertifyParams("")...)
	ps = append(ps, backend.BoolParam("per-root", true, "refute each bound one root test at a time (a refuted root test is kept as a clause) instead of on the whole diagram at once"))
	return append(ps, maxsat.Params()...)
}

// Options are a sat-odd job's options, read once (JobOptions).
type Options struct {
	// PerRoot refutes each bound one root test at a time (per-root).
	PerRoot bool
	// SAT are the SAT solver and the certificate; MaxSAT the exported
	// file and the external MaxSAT solver that may solve it.
	SAT    satjob.Options
	MaxSAT maxsat.Options
}

// JobOptions reads the job's options.
func JobOptions(job *backend.Job) (Options, error) {
	o := Options{PerRoot: job.Options.Bool("per-root"), SAT: satjob.JobOptions(job)}
	var err error
	o.MaxSAT, err = maxsat.JobOptions(job.Options)
	return o, err
}
