package dl85

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// settledGoroutines waits (up to 2 s) until no more than want goroutines
// run, and returns the count.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for end := time.Now().Add(2 * time.Second); n > want && time.Now().Before(end); n = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// A cancelled parallel search returns within a generous bound of the
// cancel with a valid tree and bound, and leaves no worker running.
func TestParallelCancel(t *testing.T) {
	v, err := model.BinarizeBudget(context.Background(), modeltest.Numeric(2000, 10, 2), 100<<20)
	if err != nil {
		t.Fatal(err)
	}
	d := viewData(t, v)
	for _, workers := range []int{2, 4} {
		for _, depth2 := range []bool{true, false} {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			r, err := Solve(ctx, d, Config{MaxDepth: 4, Depth2: depth2, Workers: workers}, NoRule{})
			el := time.Since(start)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if el > 3*time.Second {
				t.Errorf("%d workers, depth2 %v: stopped %v after the cancel", workers, depth2, el-300*time.Millisecond)
			}
			if r.Optimal {
				t.Errorf("%d workers, depth2 %v: a cancelled search claims optimality", workers, depth2)
			}
			checkResult(t, v, r, 4)
			if n := settledGoroutines(before); n > before {
				t.Errorf("%d workers: %d goroutines after Solve, %d before", workers, n, before)
			}
		}
	}
}

// ldsRule is limited discrepancy search (the sum of the heuristic
// positions along a path at most max, relaxed by one per restart): a
// CA-DL8.5 rule for the engine's own tests.
type ldsRule struct{ max int }

type ldsState struct {
	total    int
	terminal bool
}

func (r *ldsRule) InitialState(Context) ldsState         { return ldsState{} }
func (r *ldsRule) Update(t ldsState, c Context) ldsState { return ldsState{total: t.total + c.Index} }
func (r *ldsRule) Prune(t ldsState) bool                 { return !t.terminal && t.total > r.max }
func (r *ldsRule) TerminalState(t ldsState) ldsState     { t.terminal = true; return t }
func (r *ldsRule) Relax() bool                           { r.max++; return true }

// Once the root's tests run out, idle workers help with the level-1
// nodes the others are in (see board): on small random data at depth 4
// with 2 and 4 workers, DL8.5 and CA-DL8.5 (lds) prove the
// sequential optimum with a verified tree, DL8.5's tree is the
// sequential one, two runs at a count return the same tree, and helpers
// did take tests (the mechanism ran).
func TestParallelHelp(t *testing.T) {
	helped := int64(0)
	for seed := range uint64(6) {
		v := model.Binarize(modeltest.Numeric(40+8*int(seed), 3, seed))
		m := min(len(v.Tests), 24) // a few tests: depth 4 stays fast
		v.Tests, v.True = v.Tests[:m], v.True[:m]
		d := viewData(t, v)
		depth := 4
		for _, depth2 := range []bool{true, false} {
			seq, err := Solve(context.Background(), d, Config{MaxDepth: depth, Depth2: depth2}, NoRule{})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{2, 4} {
				cfg := Config{MaxDepth: depth, Depth2: depth2, Workers: w}
				var trees [2]*Tree
				for run := range trees {
					r := solveOptimal(t, v, d, cfg, NoRule{}, seq.Err)
					ca := solveOptimal(t, v, d, cfg, &ldsRule{}, seq.Err)
					helped += r.Helped + ca.Helped
					trees[run] = r.Tree
				}
				if !sameTree(trees[0], seq.Tree) || !sameTree(trees[1], seq.Tree) {
					t.Errorf("seed %d depth %d depth2 %v, %d workers: tree differs from the sequential one", seed, depth, depth2, w)
				}
			}
		}
	}
	if helped == 0 {
		t.Error("no worker ever helped another: the help board was not exercised")
	}
	t.Logf("%d level-1 tests searched by helpers", helped)
}

// solveOptimal solves d (the view v) and checks that the result is a
// verified tree proven optimal with error want.
func solveOptimal[T comparable](t *testing.T, v *model.BinaryView, d *Data, cfg Config, rule Rule[T], want float64) Result {
	t.Helper()
	r, err := Solve(context.Background(), d, cfg, rule)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, v, r, cfg.MaxDepth)
	if !r.Optimal || r.Err != want {
		t.Fatalf("%+v, rule %T: error %v (optimal %v), sequential %v", cfg, rule, r.Err, r.Optimal, want)
	}
	return r
}

func sameTree(a, b *Tree) bool {
	if a.Test != b.Test {
		return false
	}
	if a.Test < 0 {
		return a.Class == b.Class
	}
	return sameTree(a.Lo, b.Lo) && sameTree(a.Hi, b.Hi)
}

// TestParallelBounds checks the root's bound reported by a parallel
// search: on generated data at depths 3 to 5 with 2 and 3 workers, every
// bound reported is at most the optimum (brute force) and above the one
// before it, the search proves the optimum, and bounds below the optimum
// are reported before the end in some searches. A search stopped at its
// first bound returns a bound at most the optimum.
func TestParallelBounds(t *testing.T) {
	early := 0
	for seed := uint64(1); seed <= 8; seed++ {
		v := model.Binarize(modeltest.Binary(150+int(seed)*29, 9, seed))
		d := viewData(t, v)
		for _, depth := range []int{3, 4, 5} {
			want := bruteErr(v, allRows(v), depth)
			for _, workers := range []int{2, 3} {
				var bounds []float64
				cfg := Config{MaxDepth: depth, Depth2: true, Workers: workers,
					OnBound: func(lb float64) { bounds = append(bounds, lb) }}
				r, err := Solve(context.Background(), d, cfg, NoRule{})
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, v, r, depth)
				if !r.Optimal || r.Err != want {
					t.Fatalf("seed %d depth %d workers %d: error %v (optimal %v), brute force %v", seed, depth, workers, r.Err, r.Optimal, want)
				}
				for i, b := range bounds {
					if b > want || (i > 0 && b <= bounds[i-1]) {
						t.Fatalf("seed %d depth %d workers %d: bounds %v, optimum %v", seed, depth, workers, bounds, want)
					}
					if b < want && b > 0 {
						early++
					}
				}
				// Stopped at the first bound above 0.
				ctx, cancel := context.WithCancel(context.Background())
				cfg.OnBound = func(lb float64) {
					if lb > 0 {
						cancel()
					}
				}
				r, err = Solve(ctx, d, cfg, NoRule{})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, v, r, depth)
				if r.LB > want {
					t.Fatalf("seed %d depth %d workers %d: stopped with bound %v, optimum %v", seed, depth, workers, r.LB, want)
				}
			}
		}
	}
	if early == 0 {
		t.Fatal("no parallel search reported a bound below its optimum before the end")
	}
	t.Logf("%d bounds below the optimum", early)
}
