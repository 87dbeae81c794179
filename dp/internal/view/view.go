// Package view builds the binary view a dp backend searches, within the
// solve's memory budget, and keeps the backends honest when that view had
// to be coarsened.
package view

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// MaxBytes caps the view's bitsets (a quarter of the solve's memory cap
// when that is smaller): beyond some thousands of tests on a million rows
// building the view alone would take the whole time limit, while 256 MiB
// still holds the exact view of 10,000 rows of 20 numeric columns (figures
// in docs/benchmarks.md, "Figures behind constants and defaults").
const MaxBytes = 256 << 20

// of builds the binary view of the job's data within a quarter of its
// memory cap and at most MaxBytes, accounted in the job's budget
// (release it with release). A view that does not fit keeps fewer
// thresholds of the big numeric columns (see model.BinarizeBudget).
func of(ctx context.Context, job *backend.Job) (*model.BinaryView, error) {
	limit := int64(MaxBytes)
	if l := job.Budget.Limit(); l > 0 {
		limit = min(limit, l/4)
	}
	v, err := model.BinarizeBudget(ctx, job.Data, limit)
	if err != nil {
		return nil, err
	}
	if err := job.Budget.Reserve(bytesOf(v), "the binary view"); err != nil {
		return nil, err
	}
	return v, nil
}

// Solve builds the job's view (see of), runs solve on it and returns the
// view's memory to the budget; a view that cannot be built ends as Early
// says. It is the frame of every backend that searches the binary view.
func Solve(ctx context.Context, job *backend.Job, solve func(v *model.BinaryView) (*model.Result, error)) (*model.Result, error) {
	v, err := of(ctx, job)
	if err != nil {
		return Early(ctx, job, err)
	}
	defer release(job, v)
	return solve(v)
}

// bytesOf is the memory of v's bitsets.
func bytesOf(v *model.BinaryView) int64 {
	return int64(len(v.True)+len(v.Class)) * int64((v.N+63)/64) * 8
}

// release returns v's bytes to the job's budget.
func release(job *backend.Job, v *model.BinaryView) { job.Budget.Release(bytesOf(v)) }

// Honest fixes a result found on v for the data: on a coarse view an
// exact search proves optimality among the view's thresholds only, so the
// result is not optimal for the problem and its lower bound is one that
// holds for the data (the conflict floor of unweighted data up to
// floorCells values, which takes well under a second; else 0).
func Honest(v *model.BinaryView, res *model.Result) {
	if v == nil || !v.Coarse || res == nil {
		return
	}
	if res.Stats == nil {
		res.Stats = map[string]any{}
	}
	res.Stats["binary_view"] = fmt.Sprintf("coarse: %d of %d tests (the exact view does not fit the memory cap)", len(v.Tests), v.FullTests)
	res.Proved = false
	lb := 0.0
	if d := v.Data; d.Weights == nil && d.Rows()*d.NumFeatures() <= floorCells {
		lb = float64(v.Data.ConflictFloor())
	}
	res.LowerBound = min(lb, res.Objective)
}

// floorCells bounds the data on which Honest computes the conflict floor (a
// hash of every row, seconds on a million rows, past a deadline).
const floorCells = 4 << 20

// Stopped marks a result whose search stopped on its own for memory
// (cause wraps model.ErrMemoryLimit): its stop is the memory limit.
func Stopped(res *model.Result, cause error) {
	if cause == nil || res == nil {
		return
	}
	res.Stop = model.StopMemory
	if res.Stats == nil {
		res.Stats = map[string]any{}
	}
	res.Stats["stopped"] = cause.Error()
}

// Early is the result of a search stopped (ctx done) before it had a
// tree: the majority leaf, which every error problem whose rows meet the
// minimum support admits (a first model and an upper bound, not
// nothing); otherwise no model. With ctx not done the error is returned
// (one wrapping model.ErrMemoryLimit ends the solve with status
// memory-limit).
func Early(ctx context.Context, job *backend.Job, err error) (*model.Result, error) {
	if ctx.Err() == nil {
		return nil, err
	}
	res := &model.Result{}
	d, p := job.Data, job.Problem
	if p.Objective != model.MinError || d.Rows() == 0 || d.Rows() < p.MinSupport {
		return res, nil
	}
	res.Model = model.MajorityLeaf(d)
	res.Errors, res.Objective = res.Model.Errors(d), p.Evaluate(d, res.Model)
	return res, nil
}
