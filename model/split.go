package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// shuffledByClass returns the row indices of d grouped by class (class 0
// first), each group shuffled by a generator seeded with seed. The order
// depends only on the labels and the seed.
func shuffledByClass(d *Dataset, seed int64) [][]int {
	groups := make([][]int, len(d.Classes))
	for r, l := range d.Labels {
		groups[l] = append(groups[l], r)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6f6474_6b6974)) // "odtkit"
	for _, g := range groups {
		for i := len(g) - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			g[i], g[j] = g[j], g[i]
		}
	}
	return groups
}

// StratifiedSplit divides the rows of d into len(fractions) parts of about
// those fractions of the rows (fractions are positive and sum to 1 within
// 1e-9), with each class split in the same proportions. Each part lists
// its rows in increasing order. The result depends only on the labels,
// the fractions and the seed.
//
// Rows of each class are shuffled, then dealt to the parts in order; the
// number of rows of a class given to each part is its share rounded so
// that the rounding left over by earlier classes is carried on, which
// keeps every part within one row of its share of the whole data. A part
// may still come out empty on tiny data: callers needing rows in every
// part check it.
func StratifiedSplit(d *Dataset, fractions []float64, seed int64) ([][]int, error) {
	if len(fractions) == 0 {
		return nil, fmt.Errorf("split: no fractions")
	}
	sum := 0.0
	for _, f := range fractions {
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("split: fraction %v is not positive", f)
		}
		sum += f
	}
	if math.Abs(sum-1) > 1e-9 {
		return nil, fmt.Errorf("split: fractions %v sum to %v, not 1", fractions, sum)
	}
	parts := make([][]int, len(fractions))
	carry := make([]float64, len(fractions))
	want := make([]float64, len(fractions))
	take := make([]int, len(fractions))
	for _, rows := range shuffledByClass(d, seed) {
		n := len(rows)
		total := 0
		for j, f := range fractions {
			want[j] = float64(n)*f + carry[j]
			take[j] = max(0, int(math.Floor(want[j])))
			total += take[j]
		}
		// Settle the rounding: give rows to the parts furthest below
		// their want, take them from those furthest above (lowest part
		// first on ties).
		for total < n {
			j := argBest(len(take), func(j int) float64 { return want[j] - float64(take[j]) }, func(int) bool { return true })
			take[j]++
			total++
		}
		for total > n {
			j := argBest(len(take), func(j int) float64 { return float64(take[j]) - want[j] }, func(j int) bool { return take[j] > 0 })
			take[j]--
			total--
		}
		at := 0
		for j := range fractions {
			parts[j] = append(parts[j], rows[at:at+take[j]]...)
			at += take[j]
			carry[j] = want[j] - float64(take[j])
		}
	}
	for _, p := range parts {
		slices.Sort(p)
	}
	return parts, nil
}

// argBest returns the index in [0,n) with the largest score among those
// that ok accepts (the lowest such index on ties).
func argBest(n int, score func(int) float64, ok func(int) bool) int {
	best := -1
	for j := range n {
		if ok(j) && (best < 0 || score(j) > score(best)) {
			best = j
		}
	}
	return best
}

// StratifiedFolds divides the rows of d into k folds for cross-validation:
// every row is in exactly one fold, each class is spread evenly over the
// folds, and fold sizes differ by at most one. Rows of each class are
// shuffled (seeded by seed), the classes are laid end to end and the i-th
// row of that sequence goes to fold i mod k. Each fold lists its rows in
// increasing order.
func StratifiedFolds(d *Dataset, k int, seed int64) ([][]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("cross-validation needs at least 2 folds, not %d", k)
	}
	if k > d.Rows() {
		return nil, fmt.Errorf("%d folds for %d rows: every fold needs a row", k, d.Rows())
	}
	folds := make([][]int, k)
	i := 0
	for _, rows := range shuffledByClass(d, seed) {
		for _, r := range rows {
			folds[i%k] = append(folds[i%k], r)
			i++
		}
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds, nil
}

// BalancedWeights returns row weights that make every class weigh the same
// in total: row r of class c gets weight w_r · n / (k · n_c), where n is the
// number of rows, k the number of classes present, n_c the rows of class c
// and w_r the row's own weight (1 without weights). It is scikit-learn's
// class_weight="balanced"; set the result as d.Weights to train on it.
func BalancedWeights(d *Dataset) []float64 {
	count := make([]int, len(d.Classes))
	for _, l := range d.Labels {
		count[l]++
	}
	present := 0
	for _, c := range count {
		if c > 0 {
			present++
		}
	}
	w := make([]float64, d.Rows())
	for r, l := range d.Labels {
		w[r] = d.Weight(r) * float64(d.Rows()) / float64(present*count[l])
	}
	return w
}
