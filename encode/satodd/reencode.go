package satodd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// encoding is what a certificate's formula is built from beside the
// problem: the cap of the cost counter (the stump's scaled cost).
type encoding struct {
	Cap int `json:"cap"`
}

func encodingOf(cap int) []byte {
	b, _ := json.Marshal(encoding{Cap: cap})
	return b
}

// Reencode builds the formula of a sat-odd certificate's proof again,
// through the code a solve builds it with: the prepared data, the
// diagram formula of the skeleton (Encode), the sum counter of its
// scaled cost cut at the recorded cap and, with per-root, the clauses
// ordering the counter's outputs. Bound k stands for the assumption
// that the scaled cost stays below k.
func (b Backend) Reencode(ctx context.Context, job *backend.Job, pr lrat.Proof) (*satjob.Formula, error) {
	if pr.Name != proofName {
		return nil, fmt.Errorf("sat-odd writes no proof named %q", pr.Name)
	}
	var enc encoding
	if err := json.Unmarshal(pr.Encoding, &enc); err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
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
	if enc.Cap < 1 {
		return nil, fmt.Errorf("counter cap %d is below 1", enc.Cap)
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
	tot, err := sat.NewSumCounter(ctx, f.CNF, lits, ws, enc.Cap, 0)
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
	refuted := satjob.Refuted(proofs)
	for name := range refuted {
		if name != proofName {
			return cl, fmt.Errorf("sat-odd writes no proof named %q", name)
		}
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
	if k, ok := refuted[proofName]; ok {
		cost = max(cost, k)
	}
	cl.Bound = objectiveOf(cost, costs, totalWeight(d))
	return cl, nil
}
