package contree

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// randomInput has rows × cols values on a few levels (many ties between
// thresholds, so many equally good trees) and k random classes.
func randomInput(rows, cols, levels, k int, seed uint64) Input {
	rng := rand.New(rand.NewPCG(seed, 16))
	in := Input{Labels: make([]int, rows), Classes: k}
	for range cols {
		c := make([]float64, rows)
		for r := range c {
			c[r] = float64(rng.IntN(levels))
		}
		in.Columns = append(in.Columns, c)
	}
	for r := range in.Labels {
		in.Labels[r] = rng.IntN(k)
	}
	return in
}

// treeString renders a tree exactly (features, thresholds, classes).
func treeString(t *Node) string {
	if t.Leaf {
		return fmt.Sprintf("[%d]", t.Class)
	}
	return fmt.Sprintf("(x%d<=%v %s %s)", t.Feature, t.Threshold, treeString(t.Low), treeString(t.High))
}

// productionConfig is the configuration dp/contree runs the engine with.
func productionConfig(depth, workers int) Config {
	return Config{MaxDepth: depth, EtaLongest: true, FIFO: true, EtaSum: true, LargerFirst: true, Workers: workers}
}

// Every worker count finds the sequential optimum with a verified tree
// (the last cell by value tables, the two-class ones by bit sets);
// every count above one returns the same tree, run after run; improving
// trees are reported in strictly decreasing errors.
func TestParallelAgrees(t *testing.T) {
	type cell struct{ rows, cols, levels, k, depth int }
	cells := []cell{{120, 4, 6, 2, 2}, {150, 5, 8, 3, 3}, {200, 3, 30, 2, 3}, {60, 4, 5, 3, 4}, {2000, 3, 5, 3, 3}}
	for ci, c := range cells {
		for seed := range uint64(4) {
			in := randomInput(c.rows, c.cols, c.levels, c.k, seed+uint64(10*ci))
			name := fmt.Sprintf("%dx%d/k%d/d%d/seed%d", c.rows, c.cols, c.k, c.depth, seed)
			seq := Solve(context.Background(), in, productionConfig(c.depth, 1), nil)
			checkResult(t, in, seq)
			if !seq.Optimal {
				t.Fatalf("%s: sequential search not optimal", name)
			}
			if c.rows >= 2000 && seq.Stats.D2ByTable == 0 {
				t.Fatalf("%s: no depth-two call by value table (the cell is there for them)", name)
			}
			want := ""
			for _, w := range []int{2, 4, 2, 3} {
				var reported []int
				r := Solve(context.Background(), in, productionConfig(c.depth, w), func(n *Node) { reported = append(reported, n.Errors) })
				checkResult(t, in, r)
				if !r.Optimal || r.Errors != seq.Errors || r.LowerBound != seq.Errors {
					t.Fatalf("%s, %d workers: %d errors (bound %d, optimal %v), sequential %d", name, w, r.Errors, r.LowerBound, r.Optimal, seq.Errors)
				}
				if c.rows >= 2000 && r.Stats.D2ByTable == 0 {
					t.Fatalf("%s, %d workers: no depth-two call by value table counted", name, w)
				}
				for i := 1; i < len(reported); i++ {
					if reported[i] >= reported[i-1] {
						t.Fatalf("%s, %d workers: reported errors %v do not decrease", name, w, reported)
					}
				}
				if len(reported) == 0 || reported[len(reported)-1] < r.Errors {
					t.Fatalf("%s, %d workers: reported %v for a %d-error result", name, w, reported, r.Errors)
				}
				got := treeString(r.Tree)
				if want == "" {
					want = got
				} else if got != want {
					t.Fatalf("%s: %d workers returned\n%s\nanother count returned\n%s", name, w, got, want)
				}
			}
		}
	}
}

// A cancel stops every worker within a second, before Solve returns,
// with a verified tree and a valid bound.
func TestParallelCancel(t *testing.T) {
	in := input(modeltest.Numeric(20_000, 10, 5))
	for _, w := range []int{2, 4} {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		r := Solve(ctx, in, productionConfig(3, w), nil)
		el := time.Since(start) - 200*time.Millisecond
		cancel()
		if el > 3*time.Second || r.Optimal || !r.Stopped {
			t.Errorf("%d workers: returned %v after the cancel, optimal %v, stopped %v", w, el, r.Optimal, r.Stopped)
		}
		checkResult(t, in, r)
		// The workers have returned: at most the timer's goroutine may
		// still be winding down.
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("%d workers: %d goroutines after Solve, %d before", w, n, before)
		}
	}
}

// A budget that holds the sorted columns but not every worker's split
// buffers stops all workers with ErrMemoryLimit, a verified tree and
// everything released.
func TestParallelBudget(t *testing.T) {
	in := input(modeltest.Numeric(2000, 5, 3))
	cols := int64(5*2000*8 + 2000*21)
	split := int64(2 * 5 * 2000 * 8) // one level's split buffers
	for _, w := range []int{2, 4} {
		b := backend.NewBudget(cols + split + 1000) // one worker's root level only
		cfg := productionConfig(3, w)
		cfg.Budget = b
		r := Solve(context.Background(), in, cfg, nil)
		if !errors.Is(r.Cause, model.ErrMemoryLimit) || r.Optimal || !r.Stopped {
			t.Fatalf("%d workers: cause %v, optimal %v, stopped %v", w, r.Cause, r.Optimal, r.Stopped)
		}
		checkResult(t, in, r)
		if b.Used() != 0 || b.Peak() > b.Limit() {
			t.Fatalf("%d workers: %d bytes left reserved, peak %d of %d", w, b.Used(), b.Peak(), b.Limit())
		}
		if !strings.Contains(r.Cause.Error(), "split buffers") {
			t.Errorf("cause %q does not name the split buffers", r.Cause)
		}
	}
}

// A parallel search stopped at many points reports a verified tree and a
// bound never above the optimum, positive once the columns are sorted.
func TestParallelStoppedBound(t *testing.T) {
	in := randomInput(3000, 3, 6, 2, 7) // 216 distinct rows: a positive irreducible error
	full := Solve(context.Background(), in, productionConfig(3, 1), nil)
	positive := 0
	for after := int64(0); after < 3000; after = after*2 + 1 {
		r := Solve(modeltest.StopAfter(int(after)), in, productionConfig(3, 2), nil)
		checkResult(t, in, r)
		if r.LowerBound > full.Errors || r.Errors < full.Errors {
			t.Fatalf("stopped after %d looks: %d errors, bound %d, optimum %d", after, r.Errors, r.LowerBound, full.Errors)
		}
		if r.Stopped && r.LowerBound > 0 {
			positive++
		}
	}
	if positive == 0 {
		t.Error("no stopped run reported a positive bound")
	}
}

// TestStatsAdd checks that a parallel search's totals take every counter
// of its workers.
func TestStatsAdd(t *testing.T) {
	var a, b Stats
	bv := reflect.ValueOf(&b).Elem()
	for i := range bv.NumField() {
		bv.Field(i).SetInt(int64(i + 1))
	}
	a.add(b)
	a.add(b)
	av := reflect.ValueOf(a)
	for i := range av.NumField() {
		if got := av.Field(i).Int(); got != 2*int64(i+1) {
			t.Errorf("Stats.%s: %d after adding %d twice", av.Type().Field(i).Name, got, i+1)
		}
	}
}
