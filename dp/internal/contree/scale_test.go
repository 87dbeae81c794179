package contree

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

func input(d *model.Dataset) Input {
	in := Input{Labels: d.Labels, Classes: d.NumClasses()}
	for _, f := range d.Features {
		in.Columns = append(in.Columns, f.Values)
	}
	return in
}

// predict is t's class for row r of the input.
func predict(in Input, t *Node, r int) int {
	for !t.Leaf {
		if in.Columns[t.Feature][r] <= t.Threshold {
			t = t.Low
		} else {
			t = t.High
		}
	}
	return t.Class
}

// treeErrors re-evaluates t on the input.
func treeErrors(in Input, t *Node) int {
	e := 0
	for r, l := range in.Labels {
		if predict(in, t, r) != l {
			e++
		}
	}
	return e
}

func checkResult(t *testing.T, in Input, r Result) {
	t.Helper()
	if e := treeErrors(in, r.Tree); e != r.Errors {
		t.Fatalf("tree makes %d errors, result says %d", e, r.Errors)
	}
	if r.LowerBound > r.Errors || (r.Optimal && r.LowerBound != r.Errors) {
		t.Fatalf("bound %d for %d errors (optimal %v)", r.LowerBound, r.Errors, r.Optimal)
	}
}

// The 10k × 20 numeric file at depth 2 under a 300 MB budget: solved
// (or stopped by its deadline) with a verified tree, within the budget.
func TestScaleNumeric10kBudget(t *testing.T) {
	in := input(modeltest.Numeric(10_000, 20, 1))
	budget := backend.NewBudget(300 << 20)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := Solve(ctx, in, Config{MaxDepth: 2, Budget: budget}, nil)
	checkResult(t, in, r)
	if r.Cause != nil || budget.Peak() > budget.Limit() || budget.Used() != 0 {
		t.Errorf("cause %v, peak %d, left %d", r.Cause, budget.Peak(), budget.Used())
	}
	t.Logf("optimal %v, %d errors, peak %s", r.Optimal, r.Errors, backend.MB(budget.Peak()))
}

// A cancel stops depth-2 and depth-3 searches on 300k rows quickly (the
// depth-2 scans used to look at the context every 256 of them).
func TestScaleCancel(t *testing.T) {
	in := input(modeltest.Numeric(300_000, 12, 2))
	for _, depth := range []int{2, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		r := Solve(ctx, in, Config{MaxDepth: depth}, nil)
		cancel()
		el := time.Since(start) - 300*time.Millisecond
		t.Logf("depth %d: stopped %v after the cancel", depth, el)
		if el > 3*time.Second || r.Optimal || !r.Stopped {
			t.Errorf("depth %d: %v after the cancel, optimal %v", depth, el, r.Optimal)
		}
		checkResult(t, in, r)
	}
}

// A budget that holds the sorted columns but not a level's split buffers
// stops a depth-3 search with ErrMemoryLimit and a verified tree; one
// below the columns returns the leaf.
func TestScaleBudgetExhausted(t *testing.T) {
	in := input(modeltest.Numeric(2000, 5, 3))
	cols := int64(5*2000*8 + 2000*21)
	r := Solve(context.Background(), in, Config{MaxDepth: 3, Budget: backend.NewBudget(cols + 1000)}, nil)
	if !errors.Is(r.Cause, model.ErrMemoryLimit) || r.Optimal || !r.Stopped {
		t.Fatalf("cause %v, optimal %v", r.Cause, r.Optimal)
	}
	checkResult(t, in, r)
	r = Solve(context.Background(), in, Config{MaxDepth: 3, Budget: backend.NewBudget(1000)}, nil)
	if !errors.Is(r.Cause, model.ErrMemoryLimit) || !r.Tree.Leaf {
		t.Fatalf("tiny budget: cause %v", r.Cause)
	}
	checkResult(t, in, r)
	// Depth 2 needs no split buffers at all.
	b := backend.NewBudget(cols + 1000)
	if r := Solve(context.Background(), in, Config{MaxDepth: 2, Budget: b}, nil); r.Cause != nil || !r.Optimal {
		t.Fatalf("depth 2: cause %v optimal %v", r.Cause, r.Optimal)
	}
}

// A stopped search reports the irreducible error of rows equal on every
// column: never above the optimum, and not 0 on data with such rows.
func TestScaleStoppedBound(t *testing.T) {
	d := modeltest.Numeric(30_000, 3, 4)
	for _, f := range d.Features {
		for r, x := range f.Values {
			f.Values[r] = float64(int(x * 6)) // 216 distinct rows
		}
	}
	in := input(d)
	for _, depth := range []int{2, 3} {
		full := Solve(context.Background(), in, Config{MaxDepth: depth}, nil)
		if !full.Optimal {
			t.Fatal("full search not optimal")
		}
		positive := 0
		for after := 0; after < 2000; after = after*2 + 1 {
			r := Solve(modeltest.StopAfter(after), in, Config{MaxDepth: depth}, nil)
			checkResult(t, in, r)
			if r.LowerBound > full.Errors {
				t.Fatalf("depth %d stopped after %d looks: bound %d above the optimum %d", depth, after, r.LowerBound, full.Errors)
			}
			if r.Stopped && r.LowerBound > 0 {
				positive++
			}
		}
		if positive == 0 {
			t.Errorf("depth %d: no stopped run reported a positive bound", depth)
		}
	}
}
