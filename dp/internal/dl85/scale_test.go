package dl85

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// viewData is the engine's form of a binary view.
func viewData(t testing.TB, v *model.BinaryView) *Data {
	t.Helper()
	cols := modeltest.Columns(v)
	d, err := NewData(context.Background(), v.N, cols, v.Data.Labels, len(v.Class), v.Data.Weights)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// treeErrors re-evaluates t on the view's rows (their weighted errors).
func treeErrors(v *model.BinaryView, t *Tree) float64 { return errorsOn(v, t, allRows(v)) }

func checkResult(t *testing.T, v *model.BinaryView, r Result, depth int) {
	t.Helper()
	if r.Tree == nil || r.Tree.Depth() > depth {
		t.Fatalf("no tree of depth <= %d: %+v", depth, r.Tree)
	}
	if e := treeErrors(v, r.Tree); e != r.Err {
		t.Fatalf("tree makes %v errors, result says %v", e, r.Err)
	}
	if r.LB > r.Err || r.LB < 0 || (r.Optimal && r.LB != r.Err) {
		t.Fatalf("bound %v for error %v (optimal %v)", r.LB, r.Err, r.Optimal)
	}
}

// The 10k × 20 random numeric file at depth 2 under a 300 MB budget: the
// view is coarsened to a quarter of it, the depth-2 tables do not fit
// and are replaced by the search, which a deadline stops with a
// verified tree.
func TestScaleNumeric10kBudget(t *testing.T) {
	d := modeltest.Numeric(10_000, 20, 1)
	budget := backend.NewBudget(300 << 20)
	v, err := model.BinarizeBudget(context.Background(), d, budget.Limit()/4)
	if err != nil {
		t.Fatal(err)
	}
	if err := budget.Reserve(v.Bytes(), "view"); err != nil {
		t.Fatal(err)
	}
	if !v.Coarse {
		t.Fatalf("view of %d tests not coarsened", v.NumTests())
	}
	data := viewData(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	r, err := Solve(ctx, data, Config{MaxDepth: 2, Depth2: true, Budget: budget}, NoRule{})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 6*time.Second {
		t.Errorf("stopped after %v with a 2 s deadline", el)
	}
	checkResult(t, v, r, 2)
	if r.Tree.Depth() == 0 {
		t.Error("only a leaf: the best single split is a free first incumbent")
	}
	if r.Depth2Skipped == 0 {
		t.Errorf("depth-2 tables of %d tests were not skipped", v.NumTests())
	}
	if budget.Peak() > budget.Limit() {
		t.Errorf("peak %d over the budget", budget.Peak())
	}
}

// 50 rows × 10,000 binary columns: without a budget the pair tables
// (1.6 GB) are skipped for the search, which finds the optimum in a few
// MB. A smaller instance checks that skipping the tables changes no
// optimum.
func TestScaleWide(t *testing.T) {
	v := model.Binarize(modeltest.Binary(50, 10_000, 3))
	r, err := Solve(context.Background(), viewData(t, v), Config{MaxDepth: 2, Depth2: true}, NoRule{})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, v, r, 2)
	if !r.Optimal || r.Depth2Skipped == 0 {
		t.Errorf("optimal %v, depth-2 skipped %d", r.Optimal, r.Depth2Skipped)
	}
	for _, depth := range []int{2, 3} {
		v := model.Binarize(modeltest.Binary(40, 600, 4))
		d := viewData(t, v)
		want, err := Solve(context.Background(), d, Config{MaxDepth: depth, Depth2: true}, NoRule{})
		if err != nil {
			t.Fatal(err)
		}
		// 2 MiB beside the data: room for the cache, not for the
		// depth-2 matrices of 600 tests (2 × 600² int32 = 2.9 MB).
		budget := backend.NewBudget(d.Bytes() + 2<<20)
		got, err := Solve(context.Background(), d, Config{MaxDepth: depth, Depth2: true, Budget: budget}, NoRule{})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, v, got, depth)
		if want.Depth2Skipped != 0 || got.Depth2Skipped == 0 || !got.Optimal || got.Err != want.Err {
			t.Errorf("depth %d: with tables %v (skipped %d), without %v (skipped %d, optimal %v)",
				depth, want.Err, want.Depth2Skipped, got.Err, got.Depth2Skipped, got.Optimal)
		}
	}
}

// A cancel during the depth-2 pair loop on a problem that runs for
// minutes stops the search within a generous bound.
func TestScaleCancelDepth2(t *testing.T) {
	v, err := model.BinarizeBudget(context.Background(), modeltest.Numeric(10_000, 20, 2), 100<<20)
	if err != nil {
		t.Fatal(err)
	}
	d := viewData(t, v)
	for _, depth2 := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		r, err := Solve(ctx, d, Config{MaxDepth: 3, Depth2: depth2}, NoRule{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		t.Logf("depth2 %v: stopped %v after the cancel", depth2, el-300*time.Millisecond)
		if el > 3*time.Second {
			t.Errorf("depth2 %v: stopped %v after the cancel", depth2, el-300*time.Millisecond)
		}
		if r.Optimal {
			t.Errorf("depth2 %v: a cancelled search claims optimality", depth2)
		}
		checkResult(t, v, r, 3)
	}
}

// A budget that holds the data (and a second worker's scratch) but not
// the cache (16 KiB) stops the search, sequential or parallel, with
// ErrMemoryLimit as its cause and the best tree so far.
func TestScaleBudgetExhausted(t *testing.T) {
	v := model.Binarize(rounded(modeltest.Numeric(300, 6, 5), 16))
	d := viewData(t, v)
	full, err := Solve(context.Background(), d, Config{MaxDepth: 3, Depth2: true}, NoRule{})
	if err != nil {
		t.Fatal(err)
	}
	scratch := int64(d.nGroups)*int64(8*d.NC+4) + int64(d.M)*8
	for _, workers := range []int{1, 2} {
		limit := d.Bytes() + scratch + 16<<10
		if workers == 2 {
			limit += int64(3+2)*int64(d.words)*8 + scratch
		}
		budget := backend.NewBudget(limit)
		r, err := Solve(context.Background(), d, Config{MaxDepth: 3, Depth2: true, Budget: budget, Workers: workers}, NoRule{})
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(r.Cause, model.ErrMemoryLimit) || r.Optimal {
			t.Fatalf("%d workers: cause %v, optimal %v", workers, r.Cause, r.Optimal)
		}
		checkResult(t, v, r, 3)
		if r.LB > full.Err {
			t.Errorf("%d workers: bound %v above the optimum %v", workers, r.LB, full.Err)
		}
		if budget.Used() != 0 {
			t.Errorf("%d workers: %d bytes still reserved after Solve", workers, budget.Used())
		}
	}
	// Not even the data fits: refused before the search.
	if _, err := Solve(context.Background(), d, Config{MaxDepth: 3, Budget: backend.NewBudget(1000)}, NoRule{}); !errors.Is(err, model.ErrMemoryLimit) {
		t.Errorf("tiny budget: %v", err)
	}
}

// rounded rounds d's values to k+1 levels a column (few tests).
func rounded(d *model.Dataset, k float64) *model.Dataset {
	for _, f := range d.Features {
		for r, x := range f.Values {
			f.Values[r] = math.Round(x * k)
		}
	}
	return d
}

// Bounds reported by stopped searches, sequential or parallel, never
// exceed the optimum, and the bound is not always trivial; the
// incumbents improve strictly, and an unstopped parallel search proves
// the sequential optimum.
func TestScaleStoppedBounds(t *testing.T) {
	v := model.Binarize(rounded(modeltest.Numeric(300, 4, 9), 8))
	d := viewData(t, v)
	for _, depth := range []int{3, 4} {
		full, err := Solve(context.Background(), d, Config{MaxDepth: depth, Depth2: true}, NoRule{})
		if err != nil || !full.Optimal {
			t.Fatalf("full run: %v, optimal %v", err, full.Optimal)
		}
		for _, workers := range []int{1, 2} {
			positive := 0
			for _, after := range []int{1, 2, 3, 5, 8, 13, 21, 1000} {
				ctx, cancel := context.WithCancel(context.Background())
				var mu sync.Mutex
				var errs []float64
				cfg := Config{MaxDepth: depth, Depth2: true, Workers: workers, OnIncumbent: func(_ *Tree, e float64) {
					mu.Lock()
					defer mu.Unlock()
					if errs = append(errs, e); len(errs) == after {
						cancel()
					}
				}}
				r, err := Solve(ctx, d, cfg, NoRule{})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, v, r, depth)
				for i := 1; i < len(errs); i++ {
					if errs[i] >= errs[i-1] {
						t.Fatalf("depth %d, %d workers: incumbent %d has error %v after %v", depth, workers, i, errs[i], errs[i-1])
					}
				}
				if r.LB > full.Err+1e-9 {
					t.Fatalf("depth %d, %d workers, stopped after %d incumbents: bound %v above the optimum %v", depth, workers, after, r.LB, full.Err)
				}
				if r.Optimal && r.Err != full.Err {
					t.Fatalf("depth %d, %d workers: proven %v, sequential %v", depth, workers, r.Err, full.Err)
				}
				if r.LB > 0 && !r.Optimal {
					positive++
				}
			}
			t.Logf("depth %d, %d workers: optimum %v, %d stopped runs with a positive bound", depth, workers, full.Err, positive)
		}
	}
}
