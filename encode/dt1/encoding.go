// Package dt1 is the SAT encoding of Narodytska, Ignatiev, Pereira &
// Marques-Silva (IJCAI 2018, "Learning Optimal Decision Trees with SAT"):
// a decision tree of exactly N nodes (N odd) that classifies every
// example correctly, over Boolean features. A search over N (upward from
// the least count the classes allow, or by bisection) finds the fewest
// nodes of a tree with no training error at any depth: the min-nodes
// objective (backend sat-dt1). Avellaneda (AAAI 2020) compares against it
// under the name DT1.
//
// The features are the tests of the binary view (model.BinaryView), less
// duplicates, complements and constant tests; the examples are one row
// per distinct vector of those tests (satjob.PrepareExamples). A true test
// sends an example to the right child, the high side of a decision-graph
// node; the paper's value 1 is a true test.
//
// Nodes are numbered 1..N, the root 1. The variables, in the paper's
// names (see the groups of the formula):
//   - v[i]: node i is a leaf;
//   - l[i][j], j ∈ LR(i) = even([i+1, min(2i, N−1)]): node i's left child
//     is j; r[i][j], j ∈ RR(i) = odd([i+2, min(2i+1, N)]): its right child;
//   - p[j][i]: node j's parent is i (j ≥ 2, i from ⌊j/2⌋ to j−1, only where
//     j ∈ LR(i) ∪ RR(i));
//   - a[r][j]: node j tests feature r; u[r][j]: feature r is tested at j or
//     an ancestor of j;
//   - d0[r][j] (d1[r][j]): feature r is discriminated for value 0 (1) by j
//     or an ancestor: an ancestor tests r and j lies on its true (false)
//     side, so no example whose feature r is 0 (1) reaches j;
//   - c[j]: leaf j's class is the second class (two classes, as the paper);
//     with more classes, c[j][k]: leaf j has class k (a generalisation:
//     one variable per class, at least one per leaf);
//   - λ[t][i], τ[t][i] (the paper's refinement, Options.NoCounting): at
//     least t of nodes 1..i are leaves, internal nodes;
//   - x[j][e] (strengthenings, not the paper's: Options.NonEmptyLeaves,
//     Options.ImpureSplits): example e reaches node j.
package dt1

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// AMO chooses the encoding of the formula's "exactly one" constraints
// (one left child, one parent, one feature per internal node): its
// at-most-one half.
type AMO string

const (
	// AMOSequential is Sinz's sequential counter: m−1 auxiliary variables
	// and 3m−4 binary clauses for m literals.
	AMOSequential AMO = "sequential"
	// AMOPairwise is one binary clause per pair of literals.
	AMOPairwise AMO = "pairwise"
)

// Encoding is the formula of a tree of exactly N nodes over every
// example (one per distinct row).
type Encoding struct {
	// Guarded is the formula and what its building answers to (Err,
	// Release).
	satjob.Guarded
	View *model.BinaryView
	// Tests maps the encoding's features to binary-view tests.
	Tests []int
	// Rows holds the examples' binary-view rows.
	Rows []int
	N    int
	opt  Options
	nc   int // classes of the view (c variables: 1 when nc ≤ 2)
	// Literals by the paper's indices, 1-based nodes (index 0 unused);
	// 0 where the variable does not exist.
	v      []sat.Lit
	l, r   [][]sat.Lit // l[i][j], r[i][j]
	p      [][]sat.Lit // p[j][i]
	a, u   [][]sat.Lit // a[j][r], u[j][r]
	d0, d1 [][]sat.Lit // d0[j][r], d1[j][r]
	c      [][]sat.Lit // c[j][k]; one column (k = 0: the second class) with two classes
}

// add appends a clause to the formula.
func (e *Encoding) add(lits ...sat.Lit) {
	if e.Admit(len(lits)) {
		e.CNF.Add(lits...)
	}
}

// LR is the paper's LR(i): the possible left children of node i in a tree
// of n nodes, the even numbers from i+1 to min(2i, n−1).
func LR(i, n int) []int {
	var out []int
	for j := i + 1; j <= min(2*i, n-1); j++ {
		if j%2 == 0 {
			out = append(out, j)
		}
	}
	return out
}

// RR is the paper's RR(i): the possible right children of node i, the odd
// numbers from i+2 to min(2i+1, n).
func RR(i, n int) []int {
	var out []int
	for j := i + 2; j <= min(2*i+1, n); j++ {
		if j%2 == 1 {
			out = append(out, j)
		}
	}
	return out
}

// Encode builds the formula of a tree of exactly n nodes over the given
// binary-view tests and example rows, under ctx and budget (nil: no cap).
func Encode(ctx context.Context, budget *backend.Budget, v *model.BinaryView, tests, rows []int, n int, opt Options) (*Encoding, error) {
	if n < 1 || n%2 == 0 {
		return nil, fmt.Errorf("a tree has an odd number of nodes, not %d", n)
	}
	if n > 1 && len(tests) == 0 {
		return nil, fmt.Errorf("a tree of %d nodes needs at least one test, the data has none", n)
	}
	if opt.AMO == "" {
		opt.AMO = AMOSequential
	}
	K := len(tests)
	e := &Encoding{View: v, Tests: tests, Rows: rows, N: n, opt: opt, nc: len(v.Class),
		Guarded: satjob.NewGuarded(ctx, budget)}
	cnf := e.CNF
	cnf.Comments = append(cnf.Comments,
		fmt.Sprintf("odtkit DT1 encoding (Narodytska, Ignatiev, Pereira & Marques-Silva, IJCAI 2018): a tree of exactly %d nodes", n),
		fmt.Sprintf("%d features (binary-view tests), %d classes, %d examples, at-most-one: %s, leaf counting: %v, nonempty leaves: %v, impure splits: %v", K, e.nc, len(rows), opt.AMO, !opt.NoCounting, opt.NonEmptyLeaves, opt.ImpureSplits))
	// Variables, group by group, in the paper's order.
	g := cnf.NewGroup("v", "v[i-1]: node i (1..N, root 1) is a leaf", n)
	e.v = make([]sat.Lit, n+1)
	for i := 1; i <= n; i++ {
		e.v[i] = g.Lit(i - 1)
	}
	e.l, e.r, e.p = make([][]sat.Lit, n+1), make([][]sat.Lit, n+1), make([][]sat.Lit, n+1)
	for i := range n + 1 {
		e.l[i], e.r[i], e.p[i] = make([]sat.Lit, n+1), make([]sat.Lit, n+1), make([]sat.Lit, n+1)
	}
	pairs := func(name, meaning string, set func(i, j int, x sat.Lit), ranges func(i int) []int) {
		count := 0
		for i := 1; i <= n; i++ {
			count += len(ranges(i))
		}
		g := cnf.NewGroup(name, meaning, count)
		k := 0
		for i := 1; i <= n; i++ {
			for _, j := range ranges(i) {
				set(i, j, g.Lit(k))
				k++
			}
		}
	}
	pairs("l", "l: node i has left child j, for i = 1..N then j in LR(i) = even([i+1, min(2i, N-1)]) ascending, one variable each",
		func(i, j int, x sat.Lit) { e.l[i][j] = x }, func(i int) []int { return LR(i, n) })
	pairs("r", "r: node i has right child j, for i = 1..N then j in RR(i) = odd([i+2, min(2i+1, N)]) ascending, one variable each",
		func(i, j int, x sat.Lit) { e.r[i][j] = x }, func(i int) []int { return RR(i, n) })
	parents := func(j int) []int {
		var out []int
		for i := j / 2; i <= j-1; i++ {
			if i >= 1 && (e.l[i][j] != 0 || e.r[i][j] != 0) {
				out = append(out, i)
			}
		}
		return out
	}
	pairs("p", "p: node j's parent is i, for j = 1..N then i ascending from floor(j/2) to j-1 where j is a possible child of i",
		func(j, i int, x sat.Lit) { e.p[j][i] = x }, parents)
	e.a, e.u, e.d0, e.d1 = make([][]sat.Lit, n+1), make([][]sat.Lit, n+1), make([][]sat.Lit, n+1), make([][]sat.Lit, n+1)
	ga := cnf.NewGroup("a", "a[j-1][r]: node j tests feature r", n, K)
	gu := cnf.NewGroup("u", "u[j-1][r]: feature r is tested at node j or an ancestor", n, K)
	g0 := cnf.NewGroup("d0", "d0[j-1][r]: an ancestor of node j tests feature r and j is on its true side (examples with r false do not reach j)", n, K)
	g1 := cnf.NewGroup("d1", "d1[j-1][r]: an ancestor of node j tests feature r and j is on its false side (examples with r true do not reach j)", n, K)
	for j := 1; j <= n; j++ {
		e.a[j], e.u[j], e.d0[j], e.d1[j] = make([]sat.Lit, K), make([]sat.Lit, K), make([]sat.Lit, K), make([]sat.Lit, K)
		for r := range K {
			e.a[j][r], e.u[j][r], e.d0[j][r], e.d1[j][r] = ga.Lit(j-1, r), gu.Lit(j-1, r), g0.Lit(j-1, r), g1.Lit(j-1, r)
		}
	}
	cols := 1
	meaning := "c[j-1][0]: leaf j has the second class (false: the first)"
	if e.nc > 2 {
		cols = e.nc
		meaning = "c[j-1][k]: leaf j has class k"
	}
	gc := cnf.NewGroup("c", meaning, n, cols)
	e.c = make([][]sat.Lit, n+1)
	for j := 1; j <= n; j++ {
		e.c[j] = make([]sat.Lit, cols)
		for k := range cols {
			e.c[j][k] = gc.Lit(j-1, k)
		}
	}
	e.tree()
	if !opt.NoCounting {
		e.counting()
	}
	e.discrimination()
	e.examples()
	if opt.NonEmptyLeaves || opt.ImpureSplits {
		e.reach()
	}
	if err := e.Err(); err != nil {
		e.Release()
		return nil, err
	}
	return e, nil
}

// exactlyOne adds "exactly one of xs" when guard is true (guard 0: always):
// at least one (guard's negation joins that clause) and, unconditionally,
// at most one.
func (e *Encoding) exactlyOne(guard sat.Lit, xs []sat.Lit) {
	cl := make([]sat.Lit, 0, len(xs)+1)
	if guard != 0 {
		cl = append(cl, -guard)
	}
	e.add(append(cl, xs...)...)
	e.atMostOne(xs)
}

func (e *Encoding) atMostOne(xs []sat.Lit) {
	m := len(xs)
	if m < 2 {
		return
	}
	if e.opt.AMO == AMOPairwise || m <= 4 {
		for a := range m {
			for b := a + 1; b < m; b++ {
				e.add(-xs[a], -xs[b])
			}
		}
		return
	}
	s := make([]sat.Lit, m-1)
	for i := range s {
		s[i] = e.CNF.NewVar()
	}
	e.add(-xs[0], s[0])
	for i := 1; i < m-1; i++ {
		e.add(-xs[i], s[i])
		e.add(-s[i-1], s[i])
		e.add(-xs[i], -s[i-1])
	}
	e.add(-xs[m-1], -s[m-2])
}

// tree adds the paper's constraints on the shape: the root is not a leaf;
// a leaf has no child; node i's left child j and right child j+1 come
// together; an internal node has exactly one left child; p mirrors l and
// r; every node but the root has exactly one parent.
func (e *Encoding) tree() {
	n := e.N
	e.add(-e.v[1])
	for i := 1; i <= n; i++ {
		lr := LR(i, n)
		ls := make([]sat.Lit, 0, len(lr))
		for _, j := range lr {
			e.add(-e.v[i], -e.l[i][j])       // a leaf has no child
			e.add(-e.l[i][j], e.r[i][j+1])   // l[i][j] ↔ r[i][j+1]
			e.add(e.l[i][j], -e.r[i][j+1])   //
			e.add(-e.p[j][i], e.l[i][j])     // p[j][i] ↔ l[i][j]
			e.add(e.p[j][i], -e.l[i][j])     //
			e.add(-e.p[j+1][i], e.r[i][j+1]) // p[j+1][i] ↔ r[i][j+1]
			e.add(e.p[j+1][i], -e.r[i][j+1]) //
			ls = append(ls, e.l[i][j])
		}
		// An internal node has exactly one left child (none possible: a leaf).
		cl := []sat.Lit{e.v[i]}
		e.add(append(cl, ls...)...)
		e.atMostOne(ls)
	}
	for j := 2; j <= n; j++ {
		var ps []sat.Lit
		for i := 1; i < j; i++ {
			if e.p[j][i] != 0 {
				ps = append(ps, e.p[j][i])
			}
		}
		e.exactlyOne(0, ps)
	}
}

// counting adds the paper's λ/τ refinement: λ[t][i] (τ[t][i]) holds when
// at least t of nodes 1..i are leaves (internal nodes), and node i's left
// child is at most 2(i−t) when λ[t][i] (its right child at most 2(i−t)+1)
// and at least 2t when τ[t][i]. A tree numbered breadth first satisfies
// them (the m-th internal node's children are 2m and 2m+1) and every tree
// has that numbering, so they cut no tree off.
func (e *Encoding) counting() {
	n := e.N
	count := func(name, meaning string, leaf bool) [][]sat.Lit {
		x := make([][]sat.Lit, n+1) // x[i][t], t = 0..i; x[i][0] true (0: no variable)
		g := e.CNF.NewGroup(name, meaning, n*(n+1)/2)
		k := 0
		for i := 1; i <= n; i++ {
			x[i] = make([]sat.Lit, i+1)
			for t := 1; t <= i; t++ {
				x[i][t] = g.Lit(k)
				k++
			}
		}
		for i := 1; i <= n; i++ {
			mark := e.v[i]
			if !leaf {
				mark = -e.v[i]
			}
			for t := 1; t <= i; t++ {
				prev := sat.Lit(0) // x[i-1][t] (false when t > i-1)
				if t <= i-1 {
					prev = x[i-1][t]
				}
				// x[i][t] ↔ x[i-1][t] ∨ (x[i-1][t-1] ∧ mark), x[·][0] true.
				if prev != 0 {
					e.add(-prev, x[i][t])
				}
				if t == 1 {
					e.add(-mark, x[i][t])
				} else {
					e.add(-x[i-1][t-1], -mark, x[i][t])
				}
				cl := []sat.Lit{-x[i][t], mark}
				if prev != 0 {
					cl = append(cl, prev)
				}
				e.add(cl...)
				if t > 1 {
					cl := []sat.Lit{-x[i][t], x[i-1][t-1]}
					if prev != 0 {
						cl = append(cl, prev)
					}
					e.add(cl...)
				}
			}
		}
		return x
	}
	lambda := count("lambda", "lambda: at least t of nodes 1..i are leaves, for i = 1..N then t = 1..i", true)
	tau := count("tau", "tau: at least t of nodes 1..i are internal, for i = 1..N then t = 1..i", false)
	for i := 1; i <= n; i++ {
		for t := 1; t <= i; t++ {
			if j := 2 * (i - t + 1); j < len(e.l[i]) && e.l[i][j] != 0 {
				e.add(-lambda[i][t], -e.l[i][j])
				e.add(-lambda[i][t], -e.r[i][j+1])
			}
			if j := 2 * (t - 1); j >= 2 && j < len(e.l[i]) && e.l[i][j] != 0 {
				e.add(-tau[i][t], -e.l[i][j])
			}
		}
	}
}

// discrimination adds the constraints on a, u, d0 and d1: an internal node
// tests exactly one feature and a leaf none; a feature tested at a node is
// not tested again below it (u); d0 and d1 hold exactly when the node's
// parent has them or tests the feature with the node on the matching side.
// The "only if" halves are written per parent, (d[j] ∧ p[j][i] → d[i] ∨
// a[i] ∧ side), which given exactly one parent is the paper's disjunction
// over the parents without auxiliary variables.
func (e *Encoding) discrimination() {
	n, K := e.N, len(e.Tests)
	for j := 1; j <= n; j++ {
		e.exactlyOne(-e.v[j], e.a[j]) // ¬v[j] → exactly one feature
		for r := range K {
			e.add(-e.v[j], -e.a[j][r]) // a leaf tests nothing
			e.add(-e.a[j][r], e.u[j][r])
		}
	}
	for r := range K {
		e.add(-e.d0[1][r])
		e.add(-e.d1[1][r])
		e.add(-e.u[1][r], e.a[1][r])
	}
	for j := 2; j <= n; j++ {
		right := j%2 == 1
		for i := j / 2; i < j; i++ {
			pji := e.p[j][i]
			if pji == 0 {
				continue
			}
			for r := range K {
				// u: inherited from the parent, and not tested again.
				e.add(-e.u[i][r], -pji, e.u[j][r])
				e.add(-e.u[i][r], -pji, -e.a[j][r])
				e.add(-e.u[j][r], -pji, e.a[j][r], e.u[i][r])
				// d0, d1: inherited from the parent.
				e.add(-e.d0[i][r], -pji, e.d0[j][r])
				e.add(-e.d1[i][r], -pji, e.d1[j][r])
				if right {
					// j = r[i][j]: the parent's test of r is true here, so
					// examples with r false are out (d0).
					e.add(-e.a[i][r], -pji, e.d0[j][r])
					e.add(-e.d0[j][r], -pji, e.d0[i][r], e.a[i][r])
					e.add(-e.d1[j][r], -pji, e.d1[i][r])
				} else {
					e.add(-e.a[i][r], -pji, e.d1[j][r])
					e.add(-e.d1[j][r], -pji, e.d1[i][r], e.a[i][r])
					e.add(-e.d0[j][r], -pji, e.d0[i][r])
				}
			}
		}
	}
}

// examples adds the classification constraints: a leaf labelled with a
// class that is not an example's is discriminated against that example
// (some feature on its path takes the other value). With more than two
// classes every leaf has at least one class.
func (e *Encoding) examples() {
	n, K := e.N, len(e.Tests)
	v := e.View
	cl := make([]sat.Lit, 0, K+2)
	for j := 1; j <= n; j++ {
		if e.nc > 2 {
			c := []sat.Lit{-e.v[j]}
			e.add(append(c, e.c[j]...)...)
		}
	}
	for _, row := range e.Rows {
		y := -1
		for k := range v.Class {
			if v.Class[k].Has(row) {
				y = k
			}
		}
		for j := 1; j <= n; j++ {
			cl = cl[:0]
			for r, t := range e.Tests {
				if v.True[t].Has(row) {
					cl = append(cl, e.d1[j][r])
				} else {
					cl = append(cl, e.d0[j][r])
				}
			}
			base := len(cl)
			switch {
			case e.nc <= 2:
				// Leaf j with the other class must exclude the example.
				cls := e.c[j][0]
				if y == 1 {
					cls = -cls
				}
				e.add(append(cl[:base], -e.v[j], -cls)...)
			default:
				for k := range e.nc {
					if k != y {
						e.add(append(cl[:base], -e.v[j], -e.c[j][k])...)
					}
				}
			}
		}
	}
}

// reach adds the strengthenings Options.NonEmptyLeaves and
// Options.ImpureSplits, which are not the paper's, over variables
// x[j][e] that hold only if example e reaches node j (no ancestor's test
// sends it elsewhere: no d0 or d1 of j against its values); x[j][e] on a
// leaf gives the leaf e's class. NonEmptyLeaves: every leaf has some
// x[j][e]. ImpureSplits: every internal node has x[j][e] for examples
// of two classes (for each class k, an example not of class k).
//
// Both keep the fewest nodes: a consistent tree with an empty leaf
// becomes one of fewer nodes when the leaf's parent is replaced by the
// leaf's sibling, and one with an internal node all of whose examples
// have one class becomes one of fewer nodes when that node is replaced
// by a leaf of the class; a tree of the fewest nodes has neither.
// NonEmptyLeaves keeps the lemma of MinNodes (a refuted count refutes
// the smaller ones): a leaf that holds two distinct examples splits on
// a test that tells them apart (no test on its path does) into two
// leaves of its class, neither empty, so below 2E−1 nodes for E examples
// a tree of N nodes without an empty leaf gives one of N+2. ImpureSplits
// does not (that split is pure): with it a refuted count refutes that
// count alone.
func (e *Encoding) reach() {
	n, E := e.N, len(e.Rows)
	v := e.View
	g := e.CNF.NewGroup("x", "x[j-1][e]: example e (the e-th distinct row) reaches node j", n, E)
	class := make([]int, E)
	for k, row := range e.Rows {
		class[k] = -1
		for c := range v.Class {
			if v.Class[c].Has(row) {
				class[k] = c
			}
		}
	}
	cl := make([]sat.Lit, 0, E+1)
	for j := 1; j <= n; j++ {
		for k, row := range e.Rows {
			x := g.Lit(j-1, k)
			for r, t := range e.Tests {
				if v.True[t].Has(row) {
					e.add(-x, -e.d1[j][r])
				} else {
					e.add(-x, -e.d0[j][r])
				}
			}
			switch y := class[k]; {
			case e.nc <= 2 && y == 1:
				e.add(-x, -e.v[j], e.c[j][0])
			case e.nc <= 2:
				e.add(-x, -e.v[j], -e.c[j][0])
			default:
				e.add(-x, -e.v[j], e.c[j][y])
			}
		}
		if e.opt.NonEmptyLeaves {
			cl = append(cl[:0], -e.v[j])
			for k := range E {
				cl = append(cl, g.Lit(j-1, k))
			}
			e.add(cl...)
		}
		if e.opt.ImpureSplits {
			for c := range e.nc {
				cl = append(cl[:0], e.v[j])
				for k := range E {
					if class[k] != c {
						cl = append(cl, g.Lit(j-1, k))
					}
				}
				e.add(cl...)
			}
		}
	}
}
