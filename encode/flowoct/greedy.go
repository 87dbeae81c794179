package flowoct

import (
	"math"
	"slices"

	"github.com/odtkit/odtkit/model"
)

// Greedy grows a tree top-down on the groups, choosing at each node the
// test of least weighted Gini impurity (CART's rule) until the depth or
// purity, and predicting each leaf's class of largest weight. It is a
// MIP start, not an optimum.
func (e *Encoding) Greedy() Tree { return e.greedy(-1) }

// greedy is Greedy with the root's test fixed to Tests[root] when root ≥ 0
// (the encoding must have a test node).
func (e *Encoding) greedy(root int) Tree {
	t := Tree{Test: make([]int, e.nInt), Class: make([]int, e.nNodes)}
	for n := range t.Test {
		t.Test[n] = -1
	}
	for n := range t.Class {
		t.Class[n] = -1
	}
	k := len(e.View.Class)
	all := make([]int, len(e.groups))
	for g := range all {
		all[g] = g
	}
	counts := func(gs []int) []float64 {
		w := make([]float64, k)
		for _, g := range gs {
			for c, v := range e.groups[g].w {
				w[c] += v
			}
		}
		return w
	}
	var grow func(n int, gs []int)
	grow = func(n int, gs []int) {
		w := counts(gs)
		c, errs := model.Majority(w)
		if n >= e.nInt || (errs == 0 && e.Opts.general()) || len(e.Tests) == 0 {
			t.Class[n] = c
			return
		}
		best, bestJ := math.Inf(1), -1
		for j := range e.Tests {
			if n == 0 && root >= 0 && j != root {
				continue
			}
			var lo, hi []float64 = make([]float64, k), make([]float64, k)
			nlo, nhi := 0, 0
			for _, g := range gs {
				dst := lo
				if e.value(g, j) {
					dst, nhi = hi, nhi+e.groups[g].rows
				} else {
					nlo += e.groups[g].rows
				}
				for cc, v := range e.groups[g].w {
					dst[cc] += v
				}
			}
			if e.Opts.MinSupport > 1 && min(nlo, nhi) < e.Opts.MinSupport {
				continue // a leaf below would hold too few rows
			}
			if s := model.Gini(lo) + model.Gini(hi); s < best-1e-12 {
				best, bestJ = s, j
			}
		}
		if bestJ < 0 {
			// No test keeps the support (the general form only: min
			// support states it).
			t.Class[n] = c
			return
		}
		t.Test[n] = bestJ
		var lo, hi []int
		for _, g := range gs {
			if e.value(g, bestJ) {
				hi = append(hi, g)
			} else {
				lo = append(lo, g)
			}
		}
		grow(2*n+1, lo)
		grow(2*n+2, hi)
	}
	grow(0, all)
	return t
}

// Prune turns every test whose two sides are leaves of one class into a
// leaf of that class, bottom-up (the general form's trees only).
func (e *Encoding) Prune(t Tree) Tree {
	t = Tree{Test: slices.Clone(t.Test), Class: slices.Clone(t.Class)}
	for n := e.nInt - 1; n >= 0; n-- {
		if t.Test[n] < 0 {
			continue
		}
		l, r := 2*n+1, 2*n+2
		leaf := func(c int) bool { return c >= e.nInt || t.Test[c] < 0 }
		if leaf(l) && leaf(r) && t.Class[l] >= 0 && t.Class[l] == t.Class[r] {
			t.Test[n], t.Class[n] = -1, t.Class[l]
			t.Class[l], t.Class[r] = -1, -1
		}
	}
	return t
}
