package avellaneda

import "github.com/odtkit/odtkit/sat"

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
	// rank[c]: how many thresholds of chain c the example is above (the
	// true ones are a prefix).
	rank := make([]int, len(e.chains))
	for c, ch := range e.chains {
		for _, f := range ch.feats {
			if val[f] {
				rank[c]++
			}
		}
	}
	// path holds the negated path condition: for each level above, the
	// literal that is false when the example takes that branch.
	path := make([]sat.Lit, 0, k+2)
	var feat func(q, lvl int)
	feat = func(q, lvl int) {
		if lvl == k {
			leaf := q - (1 << k)
			e.add(append(path, e.C.Lit(leaf, a))...) // (5)
			for b := range e.View.Class {
				if b != a {
					e.add(append(path, -e.C.Lit(leaf, b))...) // (6)
				}
			}
			return
		}
		x := e.X.Lit(i, lvl)
		// Going right (x true): no feature false on the example.
		for f := range m {
			if !val[f] && (!e.inChain[f] || e.direct) {
				e.add(append(path, -x, -e.F.Lit(q-1, f))...) // (3)
			}
		}
		for c, ch := range e.chains {
			if rank[c] < len(ch.feats) { // (3) for the thresholds above the example
				e.add(append(path, -x, -e.GE.Lit(q-1, ch.off+rank[c]))...)
			}
		}
		path = append(path, -x)
		feat(2*q+1, lvl+1)
		path = path[:len(path)-1]
		// Going left: no feature true on the example.
		for f := range m {
			if val[f] && (!e.inChain[f] || e.direct) {
				e.add(append(path, x, -e.F.Lit(q-1, f))...) // (4)
			}
		}
		for c, ch := range e.chains {
			if rank[c] > 0 { // (4) for the thresholds below the example
				e.add(append(path, x, -e.LE.Lit(q-1, ch.off+rank[c]-1))...)
			}
		}
		path = append(path, x)
		feat(2*q, lvl+1)
		path = path[:len(path)-1]
	}
	feat(1, 0)
	if e.P.Count > 0 {
		e.exampleCuts(i, e.cutLevel, k)
	}
}

// AddDirectClauses makes the order encoding of numeric columns also carry
// the paper's per-threshold clauses (3)-(4), which the order variables
// imply: for the examples already in the formula now, for the others when
// they are added. Implied clauses change no model, but they propagate a
// node's feature choice to the examples in one step, which shortens long
// refutations of DT_size on numeric data (the order variables alone find
// the trees of DT_depth faster; see docs/benchmarks.md, "Figures behind
// constants and defaults"). Calling it again does nothing.
func (e *Encoding) AddDirectClauses() {
	if e.direct || len(e.chains) == 0 {
		return
	}
	e.direct = true
	for i := range e.rows {
		if e.added[i] {
			e.addDirect(i)
		}
	}
}

// addDirect writes the per-threshold clauses (3)-(4) of the chained
// columns for example slot i (AddExample writes them for the examples
// added after AddDirectClauses).
func (e *Encoding) addDirect(i int) {
	r := e.rows[i]
	e.walkPaths(i, 0, e.Depth, func(q, lvl int, path []sat.Lit) {
		x := e.X.Lit(i, lvl)
		for _, ch := range e.chains {
			for _, f := range ch.feats {
				if e.View.True[e.Tests[f]].Has(r) {
					e.add(append(path, x, -e.F.Lit(q-1, f))...) // (4)
				} else {
					e.add(append(path, -x, -e.F.Lit(q-1, f))...) // (3)
				}
			}
		}
	})
}

// walkPaths calls visit for every internal node q (1-based) at a level
// in [from, to), with path holding the literals that are false when
// example slot i takes the branches from the root down to q. visit may
// append to path (its backing array has room for two more literals).
func (e *Encoding) walkPaths(i, from, to int, visit func(q, lvl int, path []sat.Lit)) {
	path := make([]sat.Lit, 0, to+2)
	var walk func(q, lvl int)
	walk = func(q, lvl int) {
		if lvl == to {
			return
		}
		if lvl >= from {
			visit(q, lvl, path)
		}
		x := e.X.Lit(i, lvl)
		path = append(path, -x)
		walk(2*q+1, lvl+1)
		path[len(path)-1] = x
		walk(2*q, lvl+1)
		path = path[:len(path)-1]
	}
	walk(1, 0)
}
