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
