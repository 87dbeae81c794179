// Package dptest holds test helpers shared by the dp solver packages:
// reference optima computed by definition, to check the solvers against.
package dptest

import "github.com/odtkit/odtkit/model"

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
