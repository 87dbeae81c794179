package odd

import (
	"fmt"
	"math"

	"github.com/odtkit/odtkit/model"
)

// noLevel names a category no row has: a categorical test on it sends
// every row to its low side.
const noLevel = "\x00(no level)"

// Decode turns a solution of the MILP (column values) into a decision
// graph over the dataset's raw features: a diagram, or a tree in the tree
// special case. The negative side a·x + ε ≤ b becomes the low side of a
// test sum ≤ t with t = b − ε/2, mapped back to raw feature values; a
// univariate test with a < 0 has its sides swapped. The graph's errors
// must be recomputed on the data: solver tolerances may misroute a row.
func (e *Encoding) Decode(x []float64) (*model.Graph, error) {
	if len(x) != len(e.Model.Columns) {
		return nil, fmt.Errorf("odd: decode: %d values for %d columns", len(x), len(e.Model.Columns))
	}
	on := func(j int) bool { return j >= 0 && x[j] > 0.5 }
	kind := model.KindDiagram
	if e.Opts.Tree {
		kind = model.KindTree
	}
	b := model.NewBuilder(e.data, kind)
	id := make([]int, e.nInt)
	leaf := make([]int, e.nCls)
	for c := range leaf {
		leaf[c] = -1
	}
	target := func(v int) int {
		if v < e.nInt {
			return id[v]
		}
		c := v - e.nInt
		if kind == model.KindTree {
			return b.Leaf(c)
		}
		if leaf[c] < 0 {
			leaf[c] = b.Leaf(c)
		}
		return leaf[c]
	}
	for l := len(e.layer) - 1; l >= 0; l-- {
		for _, u := range e.layer[l] {
			id[u] = -1
			if !on(e.D[u]) {
				if u == 0 {
					return nil, fmt.Errorf("odd: decode: the root is inactive")
				}
				continue
			}
			var tg [2]int
			for s := range 2 {
				tg[s] = -1
				for k, v := range e.succ[u] {
					if on(e.Y[s][u][k]) {
						if tg[s] >= 0 {
							return nil, fmt.Errorf("odd: decode: node %d has two arcs on one side", u)
						}
						if v < e.nInt && id[v] < 0 {
							return nil, fmt.Errorf("odd: decode: node %d links to inactive node %d", u, v)
						}
						tg[s] = v
					}
				}
				if tg[s] < 0 {
					return nil, fmt.Errorf("odd: decode: active node %d has no arc on one side", u)
				}
			}
			// A side to the empty terminal of one-class data carries no
			// row of the data: the node is its other side.
			if empty := e.nInt + e.data.NumClasses(); tg[Neg] >= empty || tg[Pos] >= empty {
				other := tg[Neg]
				if other >= empty {
					other = tg[Pos]
				}
				if other >= empty {
					other = e.nInt // both sides empty: the one class
				}
				id[u] = target(other)
				continue
			}
			id[u] = e.test(b, x, u, func(s int) int { return target(tg[s]) })
		}
	}
	g := b.Graph(id[0])
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("odd: decode: %w", err)
	}
	return g, nil
}

// test adds node u's split to b; succ(side) creates the successor of a side.
func (e *Encoding) test(b *model.Builder, x []float64, u int, succ func(side int) int) int {
	bu := x[e.B[u]]
	t := bu - e.eps/2 // negative side: a·x ≤ t (univariate: the column's margin, below)
	a := make([]float64, len(e.cols))
	for j := range a {
		a[j] = x[e.A[u][j]]
		if math.Abs(a[j]) < 1e-12 {
			a[j] = 0
		}
	}
	// The order of creation matters only for trees (fresh leaves); low
	// first keeps the output stable.
	add := func(lowSide int, mk func(low, high int) int) int {
		low := succ(lowSide)
		high := succ(1 - lowSide)
		return mk(low, high)
	}
	if !e.Opts.Multivariate {
		j := 0
		for k := range e.cols {
			if x[e.E[u][k]] > x[e.E[u][j]] {
				j = k
			}
		}
		c := e.cols[j]
		t = bu - c.eps/2
		f := c.feature
		if c.level >= 0 {
			// x ∈ {0,1}: which side does each value take?
			side0, side1 := Pos, Pos
			if 0 <= t {
				side0 = Neg
			}
			if a[j] <= t {
				side1 = Neg
			}
			level := e.data.Features[f].Levels[c.level]
			if side0 == side1 {
				level = noLevel // every row goes to side0
			}
			return add(side0, func(lo, hi int) int { return b.Category(f, level, lo, hi) })
		}
		vals := e.data.Features[f].Values
		if a[j] == 0 || c.rng == 0 {
			// Every row takes the same side: a threshold at the largest value.
			side := Pos
			if 0 <= t {
				side = Neg
			}
			top := math.Inf(-1)
			for _, v := range vals {
				top = max(top, v)
			}
			return add(side, func(lo, hi int) int { return b.Threshold(f, top, lo, hi) })
		}
		ts := t / a[j] // scaled threshold
		raw := c.raw(ts)
		if a[j] > 0 {
			return add(Neg, func(lo, hi int) int { return b.Threshold(f, raw, lo, hi) })
		}
		return add(Pos, func(lo, hi int) int { return b.Threshold(f, raw, lo, hi) })
	}
	// Multivariate: Σ a_j (v_j − min_j)/rng_j ≤ t  ⇔  Σ (a_j/rng_j) v_j ≤ t + Σ a_j min_j/rng_j.
	w := map[int]float64{}
	thr := t
	for j, c := range e.cols {
		if a[j] == 0 || c.rng == 0 {
			continue
		}
		w[c.feature] += a[j] / c.rng
		thr += a[j] * c.min / c.rng
	}
	if len(w) == 0 {
		w[e.cols[0].feature] = 0
	}
	return add(Neg, func(lo, hi int) int { return b.Linear(w, thr, lo, hi) })
}
