package backend

import (
	"context"

	"github.com/odtkit/odtkit/model"
)

// Settle names r's Status and Optimal from the facts its backend
// reported (Model, LowerBound, Infeasible, Unchecked, Stop, the claim of
// an external solver). It is the one place that does: backends, job
// packages and the race report facts and settle their results through
// it as reported (SettleReported, Settled), for callers that read them
// directly; the registry settles every result again once its model is
// verified, under the user's trust in external solvers. The facts are
// read in this order:
//
//  1. The trust rule for external solvers. A claim (ClaimedBy: an
//     external solver's optimum, refutation or infeasibility that odtkit
//     could not check) proves nothing unless trusted (the backend option
//     trust-solver): trusted, ClaimedBound raises LowerBound (to at most
//     the objective); untrusted, an infeasibility resting on it is
//     dropped, and a claim no higher than the bound odtkit proved itself
//     is removed (nothing was taken on trust). TrustedSolver records the
//     choice.
//  2. The stop. Stop, when unsaid, becomes the context's (model.StopOf)
//     or none; gave-up becomes the context's stop or the time limit.
//  3. Optimality. A model is optimal when the search Proved it, or when
//     its LowerBound meets its Objective, whatever stopped the search
//     afterwards — unless the proof or bound is Unchecked (a certificate
//     whose check was stopped), or Proved rests on an untrusted claim. An
//     optimal result's LowerBound is its Objective.
//  4. The status: optimal; else infeasible when there is no model and
//     Infeasible says none exists (neither untrusted nor Unchecked);
//     else the stop's status (time-limit, cancelled, memory-limit, gap),
//     or, when the search ended on its own, feasible with a model and
//     no-solution without. A result without a model has no errors and no
//     objective.
//
// A Status or Optimal already named — by an earlier Settle, or by a
// backend that names them itself — is read back as the fact it names
// (infeasible as Infeasible, a stop as Stop, feasible and no-solution as
// a search that ended on its own, optimal as a proof unless a claim is
// untrusted or the backend named a stop), so settling twice changes
// nothing.
func Settle(ctx context.Context, r *model.Result, trusted bool) { settle(ctx, r, true, trusted) }

// SettleReported is Settle with the claims of external solvers not yet
// judged, as the backend reported them: a claimed bound raises nothing,
// a claimed infeasibility stands, and Proved alone makes a model optimal
// (a bound that meets the objective is left to Settle). It names
// Optimal and the status of a result whose user's trust is not known
// yet (a backend's own answer, a decoded solution), but for an optimal
// one, whose Status it leaves empty (Optimal says it).
func SettleReported(ctx context.Context, r *model.Result) { settle(ctx, r, false, false) }

// Settled settles the result *res a backend returns for job: as
// reported (SettleReported), or, when the job trusts external solvers
// (trust-solver), by Settle with the claims taken as proofs. A backend
// defers it in Solve and Decode, so that its results are complete for a
// caller that runs it directly (a race, a test). It does nothing when
// the backend returns an error or no result; job may be nil (no trust).
func Settled(ctx context.Context, job *Job, res **model.Result, err *error) {
	switch {
	case *err != nil || *res == nil:
	case job != nil && job.Options.Bool(OptTrustSolver):
		Settle(ctx, *res, true)
	default:
		SettleReported(ctx, *res)
	}
}

// settle is the rule of Settle; judged says whether the claims are
// judged, under trusted.
func settle(ctx context.Context, r *model.Result, judged, trusted bool) {
	if judged {
		r.TrustedSolver = trusted
	}
	doubted := judged && r.ClaimedBy != "" && !trusted
	switch r.Status {
	case model.StatusInfeasible:
		r.Infeasible = true
	case model.StatusTimeLimit, model.StatusCancelled, model.StatusMemory, model.StatusGap:
		if r.Stop == model.StopUnsaid {
			r.Stop = model.StopReason(r.Status)
		}
	case model.StatusFeasible, model.StatusNoSolution:
		if r.Stop == model.StopUnsaid {
			r.Stop = model.StopNone
		}
	}
	limit := r.Stop == model.StopTimeLimit || r.Stop == model.StopCancelled || r.Stop == model.StopMemory
	named := (r.Optimal || r.Status == model.StatusOptimal) && !limit
	proved := r.Model != nil && (r.Proved || named) && !doubted && !r.Unchecked

	if judged && r.ClaimedBy != "" {
		switch {
		case trusted && r.ClaimedBound != nil:
			b := *r.ClaimedBound
			if r.Model != nil {
				b = min(b, r.Objective)
			}
			r.LowerBound = max(r.LowerBound, b)
		case doubted && r.Model != nil && r.ClaimedBound != nil && r.LowerBound >= *r.ClaimedBound:
			r.ClaimedBound, r.ClaimedBy = nil, ""
		}
	}

	switch r.Stop {
	case model.StopUnsaid, model.StopGaveUp:
		s := model.StopOf(ctx)
		switch {
		case s != model.StopUnsaid:
		case r.Stop == model.StopGaveUp:
			s = model.StopTimeLimit
		default:
			s = model.StopNone
		}
		r.Stop = s
	}

	r.Optimal = proved || judged && r.Model != nil && r.LowerBound >= r.Objective && !r.Unchecked
	switch {
	case r.Optimal && judged:
		r.LowerBound, r.Status = r.Objective, model.StatusOptimal
	case r.Optimal:
		// As reported, Optimal says it and the registry names it; a
		// bound a pending claim may yet void is not raised.
		r.Status = ""
		if r.ClaimedBy == "" {
			r.LowerBound = r.Objective
		}
	case r.Model == nil && r.Infeasible && !doubted && !r.Unchecked:
		r.Status = model.StatusInfeasible
	case r.Stop != model.StopNone:
		r.Status = model.Status(r.Stop)
	case r.Model != nil:
		r.Status = model.StatusFeasible
	default:
		r.Status = model.StatusNoSolution
	}
	if r.Model == nil {
		r.Errors, r.Objective = 0, 0
	}
}
