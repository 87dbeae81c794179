package blossom

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// treeString renders a tree for comparisons.
func treeString(t *Tree) string {
	if t.Feature < 0 {
		return fmt.Sprint(t.Class)
	}
	return fmt.Sprintf("(%d %s %s)", t.Feature, treeString(t.Low), treeString(t.High))
}

// At 2 and 4 workers the search finds the brute-force optimum and the
// very tree of the sequential search, under every option, and its
// reports strictly improve and tell the truth.
func TestParallelAgreesWithSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	trials := 25
	if testing.Short() {
		trials = 8
	}
	parallelRuns := 0
	for trial := range trials {
		n := 20 + rng.IntN(150)
		m := 3 + rng.IntN(8)
		C := 2 + rng.IntN(2)
		d := randomData(t, rng, n, m, C, 1+int64(trial%3))
		rows := allRows(d)
		for depth := 2; depth <= 4; depth++ {
			want := bruteForce(d, rows, depth)
			for _, o := range allOptions(depth) {
				seq := Solve(context.Background(), d, o, nil)
				for _, workers := range []int{2, 4} {
					o.Workers = workers
					var mu sync.Mutex
					last := int64(-1)
					res := Solve(context.Background(), d, o, func(e int64, tr *Tree) {
						mu.Lock()
						defer mu.Unlock()
						if last >= 0 && e >= last {
							t.Errorf("incumbent %d does not improve %d", e, last)
						}
						last = e
						if got := treeError(d, tr); got != e {
							t.Errorf("incumbent claims %d, makes %d", e, got)
						}
					})
					parallelRuns += int(min(res.Stats.RootTests, 1))
					if !res.Optimal || res.Error != want || res.LowerBound != want {
						t.Fatalf("trial %d depth %d %+v: got %d (bound %d, optimal %v), brute force %d",
							trial, depth, o, res.Error, res.LowerBound, res.Optimal, want)
					}
					if got := treeError(d, res.Tree); got != res.Error || res.Tree.Depth() > depth {
						t.Fatalf("trial %d depth %d %+v: tree makes %d errors at depth %d, claims %d",
							trial, depth, o, got, res.Tree.Depth(), res.Error)
					}
					if a, b := treeString(seq.Tree), treeString(res.Tree); a != b {
						t.Fatalf("trial %d depth %d %+v: sequential tree %s, parallel %s", trial, depth, o, a, b)
					}
					if last != res.Error {
						t.Fatalf("last report %d, result %d", last, res.Error)
					}
				}
			}
		}
	}
	if parallelRuns == 0 {
		t.Fatal("no search ran in parallel")
	}
}

// A cancelled parallel search stops promptly, leaves no worker running,
// returns a verified tree and a bound no larger than the optimum; one
// stopped at every point reports bounds that hold.
func TestParallelStops(t *testing.T) {
	d := viewData(t, model.Binarize(modeltest.Numeric(3000, 12, 2)))
	atStart := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	r := Solve(ctx, d, Options{MaxDepth: 5, Workers: 2}, nil)
	cancel()
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("stopped after %v with a cancel at 200 ms", el)
	}
	if r.Optimal {
		t.Skip("solved before the cancel")
	}
	checkResult(t, d, r, 5)
	after := runtime.NumGoroutine()
	for end := time.Now().Add(2 * time.Second); after > atStart && time.Now().Before(end); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond) // the timer's goroutine may still be ending
	}
	if after > atStart {
		t.Errorf("%d goroutines at the start, %d after the search", atStart, after)
	}

	// Whether a bound below the optimum is reported before a run's end
	// depends on the workers' timing (under load one worker may end the
	// root's last tests alone): up to five sweeps of 12 cases look for one.
	rising := 0
	for sweep := uint64(0); sweep < 5 && rising == 0; sweep++ {
		rising = stopSweep(t, rand.New(rand.NewPCG(5+sweep, 6)))
	}
	if rising == 0 {
		t.Error("no parallel run reported a positive bound before its end")
	}
}

// stopSweep stops parallel searches of 12 random cases at every point
// (doubling the context checks allowed), checks their bounds against the
// optimum, and returns how many reported a positive bound before their
// last.
func stopSweep(t *testing.T, rng *rand.Rand) int {
	t.Helper()
	rising := 0
	for it := range 12 {
		d := randomData(t, rng, 60+rng.IntN(60), 6+rng.IntN(4), 2+rng.IntN(2), 1+rng.Int64N(3))
		depth := 3 + it%2
		full := Solve(context.Background(), d, Options{MaxDepth: depth}, nil)
		for after := int64(1); after < 3000; after = after*2 + 1 {
			var mu sync.Mutex // reports come from the workers
			var bounds []int64
			o := Options{MaxDepth: depth, CheckEvery: 1, Workers: 2, OnBound: func(lb int64) {
				mu.Lock()
				bounds = append(bounds, lb)
				mu.Unlock()
			}}
			r := Solve(modeltest.StopAfter(int(after)), d, o, nil)
			checkResult(t, d, r, depth)
			if r.LowerBound > full.Error || r.Error < full.Error || r.Optimal && r.Error != full.Error {
				t.Fatalf("case %d stopped after %d: %d (bound %d, optimal %v), optimum %d",
					it, after, r.Error, r.LowerBound, r.Optimal, full.Error)
			}
			for i, b := range bounds {
				if b > full.Error || b > r.LowerBound || (i > 0 && b <= bounds[i-1]) {
					t.Fatalf("case %d stopped after %d: bounds %v, final %d, optimum %d", it, after, bounds, r.LowerBound, full.Error)
				}
			}
			if len(bounds) == 0 || bounds[len(bounds)-1] != r.LowerBound {
				t.Fatalf("case %d stopped after %d: bounds %v, final %d", it, after, bounds, r.LowerBound)
			}
			if len(bounds) > 1 && bounds[len(bounds)-2] > 0 {
				rising++
			}
		}
	}
	return rising
}

// A budget too small for the workers' branch slots stops the search
// with a memory cause and a verified tree; one large enough changes
// nothing.
func TestParallelBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	d := randomData(t, rng, 5000, 20, 2, 1)
	want := Solve(context.Background(), d, Options{MaxDepth: 3}, nil)
	tight := backend.NewBudget(d.Bytes() + 3*(&search{d: d}).slotBytes())
	r := Solve(context.Background(), d, Options{MaxDepth: 3, Workers: 2, Budget: tight}, nil)
	checkResult(t, d, r, 3)
	if r.Cause == nil || r.Optimal {
		t.Errorf("tight budget: cause %v, optimal %v", r.Cause, r.Optimal)
	}
	if tight.Used() != 0 {
		t.Errorf("%d bytes still reserved", tight.Used())
	}
	ample := backend.NewBudget(1 << 30)
	r = Solve(context.Background(), d, Options{MaxDepth: 3, Workers: 2, Budget: ample}, nil)
	if r.Cause != nil || !r.Optimal || r.Error != want.Error || treeString(r.Tree) != treeString(want.Tree) {
		t.Errorf("ample budget: %d (optimal %v, cause %v), sequential %d", r.Error, r.Optimal, r.Cause, want.Error)
	}
	if ample.Used() != 0 {
		t.Errorf("%d bytes still reserved", ample.Used())
	}
}
