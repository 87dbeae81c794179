// Package dptest holds test helpers shared by the dp solver packages:
// reference optima computed by definition, to check the solvers against.
package dptest

import (
	"testing"

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

// ReportThreads reports a 1- against 2-worker benchmark: the wall and
// CPU seconds of each count summed over b.N rounds (wall1-s, wall2-s,
// cpu1-s, cpu2-s, per round), the wall-time speed-up (wall 1 / wall 2)
// and the CPU inflation (CPU 2 / CPU 1: what the parallelism costs).
func ReportThreads(b *testing.B, wall, cpu [2]float64) {
	n := float64(b.N)
	b.ReportMetric(wall[0]/n, "wall1-s")
	b.ReportMetric(wall[1]/n, "wall2-s")
	b.ReportMetric(cpu[0]/n, "cpu1-s")
	b.ReportMetric(cpu[1]/n, "cpu2-s")
	b.ReportMetric(wall[0]/wall[1], "speedup")
	b.ReportMetric(cpu[1]/cpu[0], "cpu-inflation")
}
