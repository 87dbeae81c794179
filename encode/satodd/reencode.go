package satodd

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Reencode builds the formula of a sat-odd certificate's proof again,
// through the code a solve builds it with: the prepared data, the
// diagram formula of the skeleton (Encode), the sum counter of its
// scaled cost cut at the recorded cap and, with per-root, the clauses
// ordering the counter's outputs. Bound k stands for the assumption
// that the scaled cost stays below k.
func (b Backend) Reencode(ctx context.Context, job *backend.Job, pr lrat.Proof) (*satjob.Formula, error) {
	capCost, err := satjob.ReadCap(pr, "sat-odd")
	if err != nil {
		return nil, err
	}
	d, sk := job.Data, job.Problem.Skeleton
	costs, err := ScaledCosts(totalWeight(d), sk, job.Problem.Alpha)
	if err != nil {
		return nil, err
	}
	_, p, err := prepare(ctx, job, false)
	if err != nil {
		return nil, err
	}
	f, err := Encode(ctx, p, sk, costs)
	if err != nil {
		return nil, err
	}
	lits := make([]sat.Lit, len(f.Soft))
	ws := make([]int, len(f.Soft))
	for i, s := range f.Soft {
		lits[i], ws[i] = s.Lit, int(s.Weight)
	}
	tot, err := sat.NewSumCounter(ctx, f.CNF, lits, ws, capCost, 0)
	if err != nil {
		return nil, err
	}
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	if o.PerRoot {
		for _, c := range satjob.Ordered(tot.AtLeast, tot.Cap) {
			f.CNF.Add(c...)
		}
	}
	return &satjob.Formula{
		CNF:    f.CNF,
		Assume: satjob.CounterBound(tot.AtLeast, tot.Cap),
		Says: func(k int) string {
			return fmt.Sprintf("no diagram on skeleton %v costs less than %d (the scaled objective: %d per error, %d per node)", sk, k, costs.Error, costs.Node)
		},
	}, nil
}

// Bound derives the lower bound on the diagram objective that the data
// (the floor of identical rows; the stump when no test splits) and the
// refuted scaled cost prove.
func (b Backend) Bound(ctx context.Context, job *backend.Job, proofs []lrat.Proof) (satjob.Claim, error) {
	cl := satjob.Claim{Objective: model.DiagramError}
	d, pr := job.Data, job.Problem
	costs, err := ScaledCosts(totalWeight(d), pr.Skeleton, pr.Alpha)
	if err != nil {
		return cl, err
	}
	v, p, err := prepare(ctx, job, false)
	if err != nil {
		return cl, err
	}
	k, refuted, err := satjob.DescentRefuted(proofs, "sat-odd")
	if err != nil {
		return cl, err
	}
	if v.Coarse {
		return cl, nil
	}
	if len(p.Tests) == 0 || p.Classes < 2 {
		// The stump is all a diagram can be.
		inc := stump(ctx, p)
		cl.Bound = pr.Evaluate(d, inc)
		return cl, nil
	}
	cost := p.Floor * costs.Error
	if refuted {
		cost = max(cost, k)
	}
	cl.Bound = objectiveOf(cost, costs, totalWeight(d))
	return cl, nil
}
