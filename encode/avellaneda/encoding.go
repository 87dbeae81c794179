// Package avellaneda is Avellaneda's SAT encoding of a perfect decision
// tree of depth k consistent with examples (AAAI 2020, "Efficient
// Inference of Optimal Decision Trees"), its node limit, its decoder, and
// the incremental loop (Algorithm 3) behind DT_depth (minimum depth) and
// DT_size (fewest nodes at minimum depth).
//
// The features of the encoding are the tests of the binary view
// (model.BinaryView): a true test sends an example right, which is the
// high side of a decision-graph node. Internal nodes are numbered 1 ..
// 2^k−1 (children of q: 2q left, 2q+1 right); leaf v (0 .. 2^k−1) is the
// node 2^k+v, so the bits of v, most significant first, are the branches
// taken from the root.
//
// Variables (see the groups of the formula):
//   - F[q][f]: internal node q+1 tests feature f;
//   - C[v][a]: leaf v is labelled with class a (a leaf with no class is
//     unlabelled and removed by the decoder, Theorem 2);
//   - X[e][j]: example e goes right at depth j (the bits of its leaf);
//   - U[v], H[i][j] (node limit only): leaf v is labelled; among the
//     first i leaves at least j are labelled.
package avellaneda

import (
	"fmt"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// AMO chooses the encoding of "at most one feature per node".
type AMO int

const (
	// AMONone leaves it out: the example clauses force every feature
	// chosen at a node to route the examples reaching it the same way,
	// so the decoder may pick any of them (the first); the formula stays
	// sound and complete without it.
	AMONone AMO = iota
	// AMOSequential is Sinz's sequential counter: m−1 auxiliary
	// variables and 3m−4 binary clauses per node.
	AMOSequential
	// AMOPairwise is the paper's clauses (2): m(m−1)/2 binary clauses
	// per node.
	AMOPairwise
)

// ParseAMO reads "none", "sequential" or "pairwise".
func ParseAMO(s string) (AMO, error) {
	switch s {
	case "none", "":
		return AMONone, nil
	case "sequential", "seq":
		return AMOSequential, nil
	case "pairwise":
		return AMOPairwise, nil
	}
	return 0, fmt.Errorf("at-most-one encoding %q: want none, sequential or pairwise", s)
}

func (a AMO) String() string {
	return [...]string{"none", "sequential", "pairwise"}[a]
}

// Encoding is the formula of a perfect tree of depth Depth over a set of
// examples that grows on demand (AddExample). Clauses accumulate in CNF;
// an incremental solver is fed the clauses added since it last looked.
type Encoding struct {
	View *model.BinaryView
	// Tests maps the encoding's features to binary-view tests.
	Tests []int
	Depth int
	CNF   *sat.CNF
	// Variable groups.
	F, C, X sat.Group
	// Node limit (zero groups until LimitLeaves).
	U, H     sat.Group
	limitCap int
	// rows[e] is the binary-view row of example slot e.
	rows  []int
	added []bool
	// value[e][f]: feature f on example slot e.
	classOf []int
	nAdded  int
	amo     AMO
}

// New starts the encoding of a perfect tree of depth k (k >= 0) over the
// given binary-view tests, with one example slot per row in rows (no
// example clause yet; see AddExample). It adds clauses (1) (at least one
// feature per node) and the chosen at-most-one clauses.
func New(v *model.BinaryView, tests []int, rows []int, k int, amo AMO) (*Encoding, error) {
	if k < 0 || k > 20 {
		return nil, fmt.Errorf("depth %d out of range [0, 20]", k)
	}
	if k > 0 && len(tests) == 0 {
		return nil, fmt.Errorf("depth %d needs at least one test, the data has none", k)
	}
	m, nc := len(tests), len(v.Class)
	inner, leaves := (1<<k)-1, 1<<k
	e := &Encoding{View: v, Tests: tests, Depth: k, CNF: &sat.CNF{}, rows: rows, added: make([]bool, len(rows)), amo: amo}
	e.classOf = make([]int, len(rows))
	for i, r := range rows {
		e.classOf[i] = -1
		for c := range v.Class {
			if v.Class[c].Has(r) {
				e.classOf[i] = c
			}
		}
	}
	e.F = e.CNF.NewGroup("F", "F[q][f]: internal node q+1 (root 1, children 2q 2q+1) tests feature f", inner, m)
	e.C = e.CNF.NewGroup("C", "C[v][a]: leaf v (bits = branches from the root, 1 = right = high) has class a", leaves, nc)
	e.X = e.CNF.NewGroup("X", "X[e][j]: example slot e goes right (test true) at depth j", len(rows), k)
	e.CNF.Comments = append(e.CNF.Comments,
		"odtkit Avellaneda depth encoding (AAAI 2020): perfect tree of depth "+fmt.Sprint(k),
		fmt.Sprintf("%d features (binary-view tests), %d classes, %d example slots, at-most-one: %s", m, nc, len(rows), amo))
	lits := make([]sat.Lit, m)
	for q := range inner {
		for f := range m {
			lits[f] = e.F.Lit(q, f)
		}
		e.CNF.Add(lits...) // (1)
		switch amo {
		case AMOPairwise:
			for a := range m {
				for b := a + 1; b < m; b++ {
					e.CNF.Add(-lits[a], -lits[b]) // (2)
				}
			}
		case AMOSequential:
			if m > 1 {
				s := make([]sat.Lit, m-1)
				for i := range s {
					s[i] = e.CNF.NewVar()
				}
				e.CNF.Add(-lits[0], s[0])
				for i := 1; i < m-1; i++ {
					e.CNF.Add(-lits[i], s[i])
					e.CNF.Add(-s[i-1], s[i])
					e.CNF.Add(-lits[i], -s[i-1])
				}
				e.CNF.Add(-lits[m-1], -s[m-2])
			}
		}
	}
	return e, nil
}

// NumExamples is the number of example slots; Added how many have their
// clauses in the formula.
func (e *Encoding) NumExamples() int { return len(e.rows) }

// Added is the number of examples whose clauses are in the formula.
func (e *Encoding) Added() int { return e.nAdded }

// IsAdded reports whether example slot i is in the formula.
func (e *Encoding) IsAdded(i int) bool { return e.added[i] }

// Row returns the binary-view row of example slot i.
func (e *Encoding) Row(i int) int { return e.rows[i] }

// AddExample appends the clauses of example slot i: formulas (3)-(4)
// (Algorithm 1: the feature at each node on its path must route it the
// way X says) and (5)-(6) (Algorithm 2: its leaf has its class and no
// other). Adding a slot twice does nothing.
func (e *Encoding) AddExample(i int) {
	if e.added[i] {
		return
	}
	e.added[i] = true
	e.nAdded++
	k, m := e.Depth, len(e.Tests)
	r := e.rows[i]
	val := make([]bool, m)
	for f, t := range e.Tests {
		val[f] = e.View.True[t].Has(r)
	}
	a := e.classOf[i]
	// path holds the negated path condition: for each level above, the
	// literal that is false when the example takes that branch.
	path := make([]sat.Lit, 0, k+2)
	var feat func(q, lvl int)
	feat = func(q, lvl int) {
		if lvl == k {
			leaf := q - (1 << k)
			e.CNF.Add(append(path, e.C.Lit(leaf, a))...) // (5)
			for b := range e.View.Class {
				if b != a {
					e.CNF.Add(append(path, -e.C.Lit(leaf, b))...) // (6)
				}
			}
			return
		}
		x := e.X.Lit(i, lvl)
		// Going right (x true): no feature false on the example.
		for f := range m {
			if !val[f] {
				e.CNF.Add(append(path, -x, -e.F.Lit(q-1, f))...) // (3)
			}
		}
		path = append(path, -x)
		feat(2*q+1, lvl+1)
		path = path[:len(path)-1]
		// Going left: no feature true on the example.
		for f := range m {
			if val[f] {
				e.CNF.Add(append(path, x, -e.F.Lit(q-1, f))...) // (4)
			}
		}
		path = append(path, x)
		feat(2*q, lvl+1)
		path = path[:len(path)-1]
	}
	feat(1, 0)
}

// LimitLeaves adds the node limit's variables and clauses (7)-(9) and the
// start of the counter (10, H[0][0]) for bounds up to capLeaves labelled
// leaves. The bound itself is not asserted: pass LeafBound(L) as
// assumptions (or add it as unit clauses), so that it can change between
// solves without rebuilding the formula. Calling it again does nothing.
func (e *Encoding) LimitLeaves(capLeaves int) {
	if e.limitCap > 0 {
		return
	}
	leaves := 1 << e.Depth
	capLeaves = max(1, min(capLeaves, leaves))
	e.limitCap = capLeaves
	w := capLeaves + 2 // counts 0 .. cap+1
	e.U = e.CNF.NewGroup("U", "U[v]: leaf v is labelled", leaves)
	e.H = e.CNF.NewGroup("H", "H[i][j]: at least j of the leaves 0..i-1 are labelled (unary counter)", leaves+1, w)
	for v := range leaves {
		for a := range e.View.Class {
			e.CNF.Add(-e.C.Lit(v, a), e.U.Lit(v)) // (7)
		}
	}
	for i := range leaves {
		for j := range w {
			e.CNF.Add(-e.H.Lit(i, j), e.H.Lit(i+1, j)) // (8)
			if j+1 < w {
				e.CNF.Add(-e.U.Lit(i), -e.H.Lit(i, j), e.H.Lit(i+1, j+1)) // (9)
			}
		}
	}
	e.CNF.Add(e.H.Lit(0, 0)) // (10), start
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
	return -e.H.Lit(1<<e.Depth, L+1), nil
}

// Decode reads a model (value of each literal) as a decision tree over
// the view's data. Unlabelled leaves are removed and their parents
// replaced by the other child (Theorem 2); a node whose two children are
// leaves of the same class becomes that leaf. Every example in the
// formula reaches the leaf its X variables name, so the tree classifies
// them all correctly. With no labelled leaf at all (no example added)
// the tree is a single leaf of the most frequent class.
func (e *Encoding) Decode(value func(sat.Lit) bool) *model.Graph {
	d := e.View.Data
	b := model.NewBuilder(d, model.KindTree)
	k := e.Depth
	type sub struct {
		id    int
		leaf  bool
		class int
	}
	var build func(q, lvl int) (sub, bool)
	build = func(q, lvl int) (sub, bool) {
		if lvl == k {
			v := q - (1 << k)
			for a := range e.View.Class {
				if value(e.C.Lit(v, a)) {
					return sub{id: b.Leaf(a), leaf: true, class: a}, true
				}
			}
			return sub{}, false
		}
		lo, lok := build(2*q, lvl+1)
		hi, hok := build(2*q+1, lvl+1)
		switch {
		case !lok && !hok:
			return sub{}, false
		case !lok:
			return hi, true
		case !hok:
			return lo, true
		case lo.leaf && hi.leaf && lo.class == hi.class:
			return lo, true
		}
		f := 0
		for j := range e.Tests {
			if value(e.F.Lit(q-1, j)) {
				f = j
				break
			}
		}
		return sub{id: b.Split(e.View.Tests[e.Tests[f]], lo.id, hi.id)}, true
	}
	root, ok := build(1, 0)
	if !ok {
		best := 0
		for c := range e.View.Class {
			if e.View.Class[c].Count() > e.View.Class[best].Count() {
				best = c
			}
		}
		root = sub{id: b.Leaf(best)}
	}
	return b.Graph(root.id)
}
