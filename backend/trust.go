package backend

// OptTrustSolver is the option of every backend that runs or decodes an
// external solver: set, the solver's unchecked claims (an optimum, a
// refutation, infeasibility) count as proofs, and the result records it.
const OptTrustSolver = "trust-solver"

// TrustSolverParam declares OptTrustSolver.
func TrustSolverParam() Param {
	return BoolParam(OptTrustSolver, false, "take the external solver's unchecked claims (OPTIMUM FOUND, UNSATISFIABLE, Optimal, infeasible) as proofs: the result may then be optimal on the solver's word, and records trusted_solver; unset, such a claim is reported as claimed_bound and the status stays feasible")
}
