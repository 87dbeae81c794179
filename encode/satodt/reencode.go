package satodt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Reencode builds the formula of a sat-odt certificate's proof again,
// through the code a solve builds it with: the prepared data and depth
// of the job, the formula (Encode), the error counter cut at the
// recorded cap and, with per-root, the clauses ordering its outputs.
// Bound k stands for the assumption that the counter stays below k.
func (b Backend) Reencode(ctx context.Context, job *backend.Job, pr lrat.Proof) (*satjob.Formula, error) {
	capCost, err := satjob.ReadCap(pr, "sat-odt")
	if err != nil {
		return nil, err
	}
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	pl, err := newPlan(ctx, job, o)
	if err != nil {
		return nil, err
	}
	if pl.prep == nil || !pl.search {
		return nil, errors.New("the data needs no search: no formula is built")
	}
	if capCost > int(math.Round(pl.incErr)) {
		return nil, fmt.Errorf("counter cap %d is outside 1..%v (the incumbent's error)", capCost, pl.incErr)
	}
	s := Settings{Options: o, Counter: o.Counter}
	fo := s.Options
	fo.sidesOnly = s.Counter != CounterRows
	f, err := Encode(ctx, pl.prep, pl.depth, fo)
	if err != nil {
		return nil, err
	}
	tot, err := s.counter(ctx, f, pl.prep, capCost)
	if err != nil {
		return nil, err
	}
	if o.PerRoot {
		for _, c := range satjob.Ordered(tot.AtLeast, tot.Cap) {
			f.CNF.Add(c...)
		}
	}
	depth := pl.depth
	return &satjob.Formula{
		CNF:    f.CNF,
		Assume: satjob.CounterBound(tot.AtLeast, tot.Cap),
		Says: func(k int) string {
			return fmt.Sprintf("no tree of depth at most %d makes fewer than %d errors (weighted)", depth, k)
		},
	}, nil
}

// Bound derives the lower bound on the weighted error that the data
// (the floor of identical rows, or the single leaf when no tree splits)
// and the refuted bound prove.
func (b Backend) Bound(ctx context.Context, job *backend.Job, proofs []lrat.Proof) (satjob.Claim, error) {
	cl := satjob.Claim{Objective: model.MinError}
	o, err := JobOptions(job)
	if err != nil {
		return cl, err
	}
	pl, err := newPlan(ctx, job, o)
	if err != nil {
		return cl, err
	}
	k, refuted, err := satjob.DescentRefuted(proofs, "sat-odt")
	if err != nil {
		return cl, err
	}
	switch {
	case pl.prep == nil || pl.depth == 0:
		// No search: the incumbent is a single leaf, or makes no error.
		if pl.depth == 0 || pl.incErr == 0 {
			cl.Bound = pl.incErr
		}
	default:
		cl.Bound = float64(pl.prep.Floor)
		if refuted {
			cl.Bound = max(cl.Bound, float64(k))
		}
	}
	if pl.view.Coarse {
		cl.Bound = 0
		if job.Data.Weights == nil {
			cl.Bound = float64(job.Data.ConflictFloor())
		}
	}
	return cl, nil
}
