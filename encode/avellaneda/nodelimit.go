package avellaneda

import (
	"fmt"
	"math/bits"

	"github.com/odtkit/odtkit/sat"
)

// LimitLeaves adds the node limit's variables U (clauses 7: a leaf with
// a class is labelled) and a counter of the labelled leaves able to bound
// them by any L up to capLeaves. The bound itself is not asserted: pass
// LeafBound(L) as an assumption (or add it as a unit clause), so that it
// can change between solves without rebuilding the formula. Calling it
// again does nothing.
func (e *Encoding) LimitLeaves(capLeaves int) {
	if e.limitCap > 0 {
		return
	}
	leaves := 1 << e.Depth
	capLeaves = max(1, min(capLeaves, leaves))
	e.limitCap = capLeaves
	w := capLeaves + 2 // counts 0 .. cap+1
	e.U = e.CNF.NewGroup("U", "U[v]: leaf v is labelled", leaves)
	for v := range leaves {
		for a := range e.View.Class {
			e.add(-e.C.Lit(v, a), e.U.Lit(v)) // (7)
		}
	}
	if e.opt.Symmetry && e.Depth > 0 && e.numClasses() > 1 {
		e.breakSymmetry()
	}
	if e.opt.Counter == CounterSequential {
		e.H = e.CNF.NewGroup("H", "H[i][j]: at least j of the leaves 0..i-1 are labelled (unary counter)", leaves+1, w)
		for i := range leaves {
			for j := range w {
				e.add(-e.H.Lit(i, j), e.H.Lit(i+1, j)) // (8)
				if j+1 < w {
					e.add(-e.U.Lit(i), -e.H.Lit(i, j), e.H.Lit(i+1, j+1)) // (9)
				}
			}
		}
		e.add(e.H.Lit(0, 0)) // (10), start
		e.bound = make([]sat.Lit, w)
		for j := range w {
			e.bound[j] = e.H.Lit(leaves, j)
		}
		return
	}
	// Totalizer along the tree. Outputs of a subtree with s leaves:
	// "at least j labelled", j = 1 .. min(s, cap+1).
	width := func(s int) int { return min(s, capLeaves+1) }
	total := 0
	for lvl := 0; lvl < e.Depth; lvl++ {
		total += (1 << lvl) * width(1<<(e.Depth-lvl))
	}
	e.T = e.CNF.NewGroup("T", "T: totalizer along the tree, per internal node q (breadth first) the unary outputs \"its subtree has at least j labelled leaves\", j = 1..min(leaves below, cap+1)", total)
	var count func(q, lvl int) []sat.Lit
	count = func(q, lvl int) []sat.Lit {
		if lvl == e.Depth {
			return []sat.Lit{e.U.Lit(q - leaves)}
		}
		a := count(2*q, lvl+1)
		b := count(2*q+1, lvl+1)
		// Outputs numbered breadth first: node q at level lvl is the
		// (q - 2^lvl)-th of its level.
		off := e.T.First
		for l := 0; l < lvl; l++ {
			off += (1 << l) * width(1<<(e.Depth-l))
		}
		wq := width(1 << (e.Depth - lvl))
		off += (q - 1<<lvl) * wq
		o := make([]sat.Lit, wq)
		for j := range o {
			o[j] = sat.Lit(off + j)
		}
		e.tOut[q-1] = o
		for i := range a { // a[i]: left has >= i+1
			e.add(-a[i], o[min(i, wq-1)])
		}
		for j := range b {
			e.add(-b[j], o[min(j, wq-1)])
		}
		for i := range a {
			for j := range b {
				e.add(-a[i], -b[j], o[min(i+j+1, wq-1)])
			}
		}
		return o
	}
	var out []sat.Lit
	e.tOut = make([][]sat.Lit, leaves-1)
	if e.Depth == 0 {
		out = []sat.Lit{e.U.Lit(0)}
	} else {
		out = count(1, 0)
	}
	if !e.opt.NoClassCuts && e.Depth > 0 && e.numClasses() > 1 {
		e.classCuts()
	}
	e.bound = make([]sat.Lit, w)
	for j := 1; j < w; j++ {
		if j-1 < len(out) {
			e.bound[j] = out[j-1]
		}
	}
}

// classCuts adds the class-count cuts of the totalizer: examples of j
// different classes reaching a subtree end in j different leaves, all
// labelled. P and R only imply (the cuts need no converse).
func (e *Encoding) classCuts() {
	e.classCounters()
	e.cutLevels(0)
	nc := len(e.View.Class)
	for q := range e.tOut {
		for j := 1; j < min(nc, len(e.tOut[q])); j++ {
			e.add(-e.R.Lit(q, nc-1, j), e.tOut[q][j])
		}
	}
}

// depthCuts bounds the classes reaching a node by the leaves below it:
// at most 2^h at height h, which the perfect tree otherwise learns only
// from its leaves' classes. NewEncoding adds them with more than four classes
// (see Options.NoClassCuts).
func (e *Encoding) depthCuts() {
	e.classCounters()
	nc := len(e.View.Class)
	from := e.Depth
	for q := 1; q < 1<<e.Depth; q++ {
		if h := e.Depth - (bits.Len(uint(q)) - 1); 1<<h < nc {
			e.add(-e.R.Lit(q-1, nc-1, 1<<h))
			from = min(from, e.Depth-h)
		}
	}
	e.cutLevels(from)
}

// classCounters creates P and R, once, with R's counting clauses.
func (e *Encoding) classCounters() {
	if e.P.Count > 0 {
		return
	}
	inner, nc := (1<<e.Depth)-1, len(e.View.Class)
	e.P = e.CNF.NewGroup("P", "P[q][a]: an example of class a reaches internal node q+1", inner, nc)
	e.R = e.CNF.NewGroup("R", "R[q][a][j]: examples of at least j+1 of the classes 0..a reach internal node q+1", inner, nc, nc)
	for q := range inner {
		for a := range nc {
			e.add(-e.P.Lit(q, a), e.R.Lit(q, a, 0))
			if a == 0 {
				continue
			}
			for j := range a + 1 {
				e.add(-e.R.Lit(q, a-1, j), e.R.Lit(q, a, j))
				if j > 0 {
					e.add(-e.P.Lit(q, a), -e.R.Lit(q, a-1, j-1), e.R.Lit(q, a, j))
				}
			}
		}
	}
}

// exampleCuts adds, for example slot i and every internal node at a
// level in [from, to), "if the example reaches the node, its class is
// present there".
func (e *Encoding) exampleCuts(i, from, to int) {
	a := e.classOf[i]
	e.walkPaths(i, from, to, func(q, _ int, path []sat.Lit) {
		e.add(append(path, e.P.Lit(q-1, a))...)
	})
}

// cutLevels makes the nodes of levels from on hold P's example clauses,
// for the examples added so far and later ones.
func (e *Encoding) cutLevels(from int) {
	if from >= e.cutLevel {
		return
	}
	for i := range e.rows {
		if e.added[i] {
			e.exampleCuts(i, from, e.cutLevel)
		}
	}
	e.cutLevel = from
}

// numClasses counts the classes among the example slots.
func (e *Encoding) numClasses() int {
	seen := map[int]bool{}
	for _, c := range e.classOf {
		seen[c] = true
	}
	return len(seen)
}

// breakSymmetry restricts the node-limited formula to the canonical
// perfect trees of Theorem 2's proof, which exist whenever a tree does
// (the data has two classes, so the tree's root is a real test): every
// node with a labelled leaf below is either a real test (labelled leaves
// on both sides) or a dummy that tests the root's feature and sends all
// its rows to the side the root sends them (right in the root's right
// half, left in its left half), its other side holding no labelled leaf.
// A[q] ("a leaf below node q+1 is labelled") makes that expressible.
func (e *Encoding) breakSymmetry() {
	inner, leaves := (1<<e.Depth)-1, 1<<e.Depth
	e.A = e.CNF.NewGroup("A", "A[q]: a leaf below internal node q+1 is labelled (U)", inner)
	below := func(q int) sat.Lit { // q a node index 1 .. 2^(k+1)-1
		if q >= leaves {
			return e.U.Lit(q - leaves)
		}
		return e.A.Lit(q - 1)
	}
	for q := 1; q <= inner; q++ {
		a, l, r := below(q), below(2*q), below(2*q+1)
		e.add(-a, l, r)
		e.add(-l, a)
		e.add(-r, a)
	}
	m := len(e.Tests)
	// The root is a real test.
	e.add(below(2))
	e.add(below(3))
	for q := 2; q <= inner; q++ {
		lvl := 0
		for x := q; x > 1; x >>= 1 {
			lvl++
		}
		right := (q>>(lvl-1))&1 == 1 // in the root's right half
		keep, empty := below(2*q+1), below(2*q)
		if !right {
			keep, empty = empty, keep
		}
		a := below(q)
		e.add(-a, keep)
		for f := range m {
			e.add(-a, empty, -e.F.Lit(0, f), e.F.Lit(q-1, f))
		}
	}
}

// LeafBound returns the assumption that at most L leaves are labelled
// (the end of (10)); a tree with L labelled leaves has 2L−1 nodes after
// decoding. It needs LimitLeaves with a cap of at least L.
func (e *Encoding) LeafBound(L int) (sat.Lit, error) {
	if e.limitCap == 0 {
		return 0, fmt.Errorf("LeafBound before LimitLeaves")
	}
	if L < 0 || L > e.limitCap {
		return 0, fmt.Errorf("leaf bound %d outside [0, %d]", L, e.limitCap)
	}
	if e.bound[L+1] == 0 {
		return 0, fmt.Errorf("leaf bound %d is vacuous with %d leaves", L, 1<<e.Depth)
	}
	return -e.bound[L+1], nil
}
