package blossom

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// viewData is the engine's form of a binary view (every row weighs 1).
func viewData(t testing.TB, v *model.BinaryView) *Data {
	t.Helper()
	cols := modeltest.Columns(v)
	w := make([]int64, v.N)
	for r := range w {
		w[r] = 1
	}
	d, err := NewData(v.N, len(v.Class), cols, v.Data.Labels, w)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func checkResult(t *testing.T, d *Data, r *Result, depth int) {
	t.Helper()
	if r.Tree == nil || r.Tree.Depth() > depth {
		t.Fatalf("no tree of depth <= %d", depth)
	}
	if e := treeError(d, r.Tree); e != r.Error {
		t.Fatalf("tree makes %d errors, result says %d", e, r.Error)
	}
	if r.LowerBound > r.Error || r.LowerBound < 0 || (r.Optimal && r.LowerBound != r.Error) {
		t.Fatalf("bound %d for error %d (optimal %v)", r.LowerBound, r.Error, r.Optimal)
	}
}

// The 10k × 20 numeric file at depth 2 under a 300 MB budget: coarsened
// view, pair tables skipped, a deadline, a verified tree.
func TestScaleNumeric10kBudget(t *testing.T) {
	budget := backend.NewBudget(300 << 20)
	v, err := model.BinarizeBudget(context.Background(), modeltest.Numeric(10_000, 20, 1), budget.Limit()/4)
	if err != nil {
		t.Fatal(err)
	}
	if err := budget.Reserve(v.Bytes(), "view"); err != nil {
		t.Fatal(err)
	}
	d := viewData(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	r := Solve(ctx, d, Options{MaxDepth: 2, Budget: budget}, nil)
	if el := time.Since(start); el > 6*time.Second {
		t.Errorf("stopped after %v with a 2 s deadline", el)
	}
	checkResult(t, d, r, 2)
	if r.Cause != nil || r.Stats.Depth2Skipped == 0 || budget.Peak() > budget.Limit() {
		t.Errorf("cause %v, skipped %d, peak %d", r.Cause, r.Stats.Depth2Skipped, budget.Peak())
	}
}

// 50 × 10,000 binary: the pair tables (8 GB) are skipped, the answer is
// still optimal; on a smaller instance skipping them changes no optimum.
func TestScaleWide(t *testing.T) {
	d := viewData(t, model.Binarize(modeltest.Binary(50, 10_000, 3)))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := Solve(ctx, d, Options{MaxDepth: 2}, nil)
	checkResult(t, d, r, 2)
	if !r.Optimal || r.Stats.Depth2Skipped == 0 {
		t.Errorf("optimal %v, skipped %d", r.Optimal, r.Stats.Depth2Skipped)
	}
	d = viewData(t, model.Binarize(modeltest.Binary(40, 400, 4)))
	for _, depth := range []int{2, 3} {
		want := Solve(context.Background(), d, Options{MaxDepth: depth}, nil)
		got := Solve(context.Background(), d, Options{MaxDepth: depth, Budget: backend.NewBudget(d.Bytes() + 1<<20)}, nil)
		checkResult(t, d, got, depth)
		if want.Stats.Depth2Skipped != 0 || got.Stats.Depth2Skipped == 0 || !got.Optimal || got.Error != want.Error {
			t.Errorf("depth %d: with tables %d, without %d (skipped %d)", depth, want.Error, got.Error, got.Stats.Depth2Skipped)
		}
	}
	if r := Solve(context.Background(), d, Options{MaxDepth: 2, Budget: backend.NewBudget(100)}, nil); r.Cause == nil || r.Tree.Feature >= 0 {
		t.Errorf("a budget below the data: cause %v", r.Cause)
	}
}

// A cancel during a long search (pair counts or feature by feature)
// stops it within a generous bound.
func TestScaleCancel(t *testing.T) {
	v, err := model.BinarizeBudget(context.Background(), modeltest.Numeric(10_000, 20, 2), 100<<20)
	if err != nil {
		t.Fatal(err)
	}
	d := viewData(t, v)
	for _, o := range []Options{{MaxDepth: 3}, {MaxDepth: 3, Budget: backend.NewBudget(d.Bytes() + 1<<20)}} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		r := Solve(ctx, d, o, nil)
		cancel()
		el := time.Since(start) - 300*time.Millisecond
		t.Logf("budget %v: stopped %v after the cancel", o.Budget != nil, el)
		if el > 3*time.Second || r.Optimal {
			t.Errorf("budget %v: stopped %v after the cancel, optimal %v", o.Budget != nil, el, r.Optimal)
		}
		checkResult(t, d, r, 3)
	}
}

// Bounds of stopped searches never exceed the optimum; so does every
// bound reported on the way, each above the one before and at most the
// final one.
func TestScaleStoppedBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	positive, rising := 0, 0
	for it := range 30 {
		d := randomData(t, rng, 60+rng.IntN(60), 6+rng.IntN(4), 2+rng.IntN(2), 1+rng.Int64N(3))
		depth := 2 + it%3
		full := Solve(context.Background(), d, Options{MaxDepth: depth}, nil)
		for after := 1; after < 5000; after = after*3/2 + 1 {
			ctx := modeltest.StopAfter(after)
			var bounds []int64
			o := Options{MaxDepth: depth, CheckEvery: 1, NoDepth2: it%2 == 0,
				OnBound: func(lb int64) { bounds = append(bounds, lb) }}
			r := Solve(ctx, d, o, nil)
			checkResult(t, d, r, depth)
			if r.LowerBound > full.Error {
				t.Fatalf("case %d stopped after %d: bound %d above the optimum %d", it, after, r.LowerBound, full.Error)
			}
			for i, b := range bounds {
				if b > full.Error || b > r.LowerBound || (i > 0 && b <= bounds[i-1]) {
					t.Fatalf("case %d stopped after %d: bounds reported %v, final %d, optimum %d", it, after, bounds, r.LowerBound, full.Error)
				}
			}
			if len(bounds) == 0 || bounds[len(bounds)-1] != r.LowerBound {
				t.Fatalf("case %d stopped after %d: bounds reported %v, final %d", it, after, bounds, r.LowerBound)
			}
			if len(bounds) > 1 && bounds[len(bounds)-2] > 0 {
				rising++ // a positive bound reported before the end
			}
			if !r.Optimal && r.LowerBound > 0 {
				positive++
			}
		}
	}
	t.Logf("%d stopped runs with a positive bound", positive)
	if rising == 0 {
		t.Error("no run reported a positive bound before its end")
	}
}
