// Package dptest holds test helpers shared by the dp solver packages:
// reference optima computed by definition, to check the solvers against.
package dptest

import (
	"runtime"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// Brute is the optimum by definition: the best of a leaf and of every
// admissible split with optimal subtrees, over all tests of the view.
func Brute(v *model.BinaryView, rows []int, depth, minSup int) float64 {
	d := v.Data
	cnt := make([]float64, len(d.Classes))
	for _, r := range rows {
		cnt[d.Labels[r]] += d.Weight(r)
	}
	tot, mx := 0.0, 0.0
	for _, x := range cnt {
		tot += x
		mx = max(mx, x)
	}
	best := tot - mx
	if depth == 0 || best == 0 {
		return best
	}
	for t := range v.Tests {
		var lo, hi []int
		for _, r := range rows {
			if v.True[t].Has(r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if len(lo) < max(minSup, 1) || len(hi) < max(minSup, 1) {
			continue
		}
		if e := Brute(v, lo, depth-1, minSup) + Brute(v, hi, depth-1, minSup); e < best {
			best = e
		}
	}
	return best
}

// Threads records a 1- against 2-worker benchmark. Run each round at
// both counts, alternately, through Measure; Report gives, per count, the
// minimum wall and CPU seconds over the rounds (wall1-s, wall2-s, cpu1-s,
// cpu2-s: the machine's noise only ever adds time, so the minimum of a
// few rounds, as in the side-by-side peer measurements, is the steadiest
// figure), the wall-time speed-up (wall 1 / wall 2) and the CPU inflation
// (CPU 2 / CPU 1: what the parallelism costs).
type Threads struct {
	wall, cpu [2]float64
	rounds    [2]int
}

// Measure runs one round at count index k (0: 1 worker, 1: 2 workers)
// after a garbage collection, records its times and returns f's error.
func (t *Threads) Measure(k int, f func() error) error {
	runtime.GC()
	c0, t0 := CPUSeconds(), time.Now()
	err := f()
	wall, cpu := time.Since(t0).Seconds(), CPUSeconds()-c0
	if t.rounds[k] == 0 || wall < t.wall[k] {
		t.wall[k] = wall
	}
	if t.rounds[k] == 0 || cpu < t.cpu[k] {
		t.cpu[k] = cpu
	}
	t.rounds[k]++
	return err
}

// Wall and CPU are count index k's minimum wall and CPU seconds so far.
func (t *Threads) Wall(k int) float64 { return t.wall[k] }

// CPU: see Wall.
func (t *Threads) CPU(k int) float64 { return t.cpu[k] }

// Report reports the recorded minima, the speed-up and the CPU inflation.
func (t *Threads) Report(b *testing.B) {
	b.ReportMetric(t.wall[0], "wall1-s")
	b.ReportMetric(t.wall[1], "wall2-s")
	b.ReportMetric(t.cpu[0], "cpu1-s")
	b.ReportMetric(t.cpu[1], "cpu2-s")
	b.ReportMetric(t.wall[0]/t.wall[1], "speedup")
	b.ReportMetric(t.cpu[1]/t.cpu[0], "cpu-inflation")
}
