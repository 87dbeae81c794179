package flowoct

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// exactView is the binary view of the job's data within a quarter of its
// memory cap: a view that does not fit is refused (wrapped in
// backend.ErrInvalid), as the MILP over it, with a column per node and
// test and a row per group and node, could not fit either.
func exactView(ctx context.Context, job *backend.Job) (*model.BinaryView, error) {
	limit := job.Budget.Limit() / 4
	v, err := model.BinarizeBudget(ctx, job.Data, limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if v.Coarse {
		return nil, backend.Invalidf("the binary view of the data (%d tests over %d rows) does not fit a quarter of the memory cap (%s), and the MILP over it could not fit the cap: refused before building it (raise --memory-limit)",
			v.FullTests, v.N, backend.MB(limit))
	}
	return v, nil
}

// plan groups the rows for the MILP of o and refuses it, wrapped in
// backend.ErrInvalid, when it cannot be stated (ErrInput) or its
// estimate (with solving: HiGHS's copy included) passes the job's memory
// cap or what a MILP solver can index.
func plan(ctx context.Context, job *backend.Job, v *model.BinaryView, o Options, solving bool) (*Encoding, error) {
	e, err := Plan(ctx, v, o)
	if errors.Is(err, ErrInput) {
		return nil, backend.Invalid(err)
	}
	if err != nil {
		return nil, err
	}
	if err := admit(job, e, solving); err != nil {
		return nil, err
	}
	return e, nil
}

// admit refuses the MILP of e, wrapped in backend.ErrInvalid, when its
// estimate (with solving: HiGHS's copy included) passes the job's memory
// cap or what a MILP solver can index.
func admit(job *backend.Job, e *Encoding, solving bool) error {
	s := e.Estimate(solving)
	what := fmt.Sprintf("the milp-flowoct MILP of depth %d", e.Opts.Depth)
	if s.Variables > math.MaxInt32 || s.Constraints > math.MaxInt32 || s.NonZeros > math.MaxInt32 {
		return backend.Invalidf("%s would have %s, more than a MILP solver can index (2^31-1 of each) (lower --depth)", what, s)
	}
	return job.Budget.Admit(s, what)
}

// Size estimates the MILP a solve of the job builds first (see
// Encoding.Estimate): the error objective's at its depth (decomposed: the
// largest subtree MILP below the enumerated levels), the depth-0 MILP of
// the depth-by-depth search of min-depth and min-size, the Benders
// master without its cuts.
func (b Backend) Size(job *backend.Job) (backend.Size, error) {
	pr, err := prepare(context.Background(), job)
	if err != nil {
		return backend.Size{}, err
	}
	e, err := firstPlan(context.Background(), job, pr)
	if err != nil {
		return backend.Size{}, err
	}
	return e.Estimate(true), nil
}

// firstPlan plans (without building it) the MILP a solve of the job
// admits before it builds any: the error objective's at its depth, or
// for a decomposed solve the largest subtree MILP below the enumerated
// levels (over every row: each one it builds is at most that); the
// depth-0 MILP of min-depth and min-size; the Benders master without its
// cuts.
func firstPlan(ctx context.Context, job *backend.Job, pr *prepared) (*Encoding, error) {
	k, levels := 0, 0
	if job.Problem.Objective == model.MinError {
		k = job.Problem.MaxDepth
		if decomposes(job, pr.set) {
			levels = min(pr.set.Decompose, k-1)
			k -= levels
		}
	}
	o := options(job, pr, k)
	o.Benders = pr.set.Benders
	o.Tight = pr.set.Tight
	e, err := Plan(ctx, pr.view, o)
	if e != nil {
		e.subtree = levels > 0
	}
	if errors.Is(err, ErrInput) && levels > 0 {
		return nil, backend.Invalidf("the subtree MILPs of depth %d below the %d enumerated levels of a depth-%d tree: %w", k, levels, job.Problem.MaxDepth, err)
	}
	if errors.Is(err, ErrInput) {
		return nil, backend.Invalid(err)
	}
	return e, err
}
