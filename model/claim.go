package model

// Claim records a lower bound that the external solver by claims
// without a proof odtkit checks (its "optimum", its refutations): the
// highest claim is kept, and its solver named. The bound never enters
// LowerBound or Optimal by itself; the selector decides from it only
// when the user trusts the solver (Result.TrustedSolver).
func (r *Result) Claim(bound float64, by string) {
	if r.ClaimedBound != nil && *r.ClaimedBound >= bound {
		return
	}
	r.ClaimedBound, r.ClaimedBy = &bound, by
}
