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
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// AMO chooses the encoding of "at most one feature per node" (the
// option amo; "" is AMONone).
type AMO string

const (
	// AMONone leaves it out: the example clauses force every feature
	// chosen at a node to route the examples reaching it the same way,
	// so the decoder may pick any of them (the first); the formula stays
	// sound and complete without it.
	AMONone AMO = "none"
	// AMOSequential is Sinz's sequential counter: m−1 auxiliary
	// variables and 3m−4 binary clauses per node.
	AMOSequential AMO = "sequential"
	// AMOPairwise is the paper's clauses (2): m(m−1)/2 binary clauses
	// per node.
	AMOPairwise AMO = "pairwise"
)

// ParseAMO reads "none", "sequential" or "pairwise".
func ParseAMO(s string) (AMO, error) {
	switch a := AMO(s); a {
	case "", AMONone, AMOSequential, AMOPairwise:
		return a, nil
	}
	return "", fmt.Errorf("at-most-one encoding %q: want none, sequential or pairwise", s)
}

func (a AMO) String() string {
	if a == "" {
		return string(AMONone)
	}
	return string(a)
}

// Counter chooses the encoding of the node limit's count of labelled
// leaves (the option counter; "" is CounterTotalizer).
type Counter string

const (
	// CounterTotalizer counts along the tree: for every internal node,
	// unary outputs "its subtree has at least j labelled leaves", each
	// node merging its children's outputs (a totalizer whose merge order
	// is the tree itself), capped at the bound + 1.
	CounterTotalizer Counter = "totalizer"
	// CounterSequential is the paper's counter (clauses 8-10): H[i][j]
	// "at least j of the first i leaves are labelled".
	CounterSequential Counter = "sequential"
)

// ParseCounter reads "totalizer" or "sequential" ("paper" is
// sequential).
func ParseCounter(s string) (Counter, error) {
	switch c := Counter(s); c {
	case "", CounterTotalizer, CounterSequential:
		return c, nil
	case "paper":
		return CounterSequential, nil
	}
	return "", fmt.Errorf("leaf counter %q: want totalizer or sequential", s)
}

func (c Counter) String() string {
	if c == "" {
		return string(CounterTotalizer)
	}
	return string(c)
}

// Options shape the formula (export and decode must use the same).
type Options struct {
	AMO     AMO
	Counter Counter
	// PaperClauses writes formulas (3)-(4) as the paper does, one clause
	// per feature, node and example. By default the thresholds of a
	// numeric column (ordered: an example is above a prefix of them) share
	// order variables per node, GE[q][t] "node q+1 tests a threshold of
	// t's column of rank >= t's rank" and LE[q][t] "... <= ...", so that
	// an example needs two clauses per column and node instead of one per
	// threshold (the formula is equivalent on F, C and X).
	PaperClauses bool
	// Symmetry adds the node limit's symmetry breaking (breakSymmetry).
	// Off by default: sound and tested, but not faster on the inferdt
	// rows (monk2, monk3, wine DT_size 64.8 s with it, 56.4 s without).
	Symmetry bool
	// NoClassCuts leaves out the class-count cuts, implied clauses that
	// are on by default. Under the totalizer node limit (classCuts), a
	// subtree that examples of j classes reach has at least j labelled
	// leaves: DT_size, process CPU s without -> with (alternately, min
	// of 4; monk2, wine one or two runs): iris 0.238 -> 0.215, zoo 0.209
	// -> 0.179, monk1 0.103 -> 0.060, monk3 1.14 -> 0.96, mouse 0.072 ->
	// 0.069, monk2 3.14 -> 2.14, wine 11.5 -> 9.2. With more than four
	// classes, at every depth (depthCuts), a node of height h is reached
	// by at most 2^h classes: zoo (7 classes) DT_depth 0.089 -> 0.065,
	// DT_size 0.20 -> 0.10 (min of 3); with three classes, where the cut
	// bites only just above the leaves, iris, its folds and wine's folds
	// took DT_size 2.36 -> 2.9-3.2 s in all, hence the four.
	NoClassCuts bool
}

// chain is the kept thresholds of one numeric column, ascending.
type chain struct {
	feats []int // encoding features, ascending threshold
	off   int   // offset of the chain in GE/LE rows
}

// Encoding is the formula of a perfect tree of depth Depth over a set of
// examples that grows on demand (AddExample). Clauses accumulate in CNF
// (variables and groups always do); the incremental loop of this package
// streams them to its solver instead (see stream).
type Encoding struct {
	View *model.BinaryView
	// Tests maps the encoding's features to binary-view tests.
	Tests []int
	Depth int
	CNF   *sat.CNF
	// Variable groups.
	F, C, X sat.Group
	// Node limit (zero groups until LimitLeaves): U, and the counter H
	// (sequential) or T (totalizer).
	U, H, T sat.Group
	A       sat.Group // symmetry breaking of the node limit
	// Class cuts (Options.NoClassCuts): P[q][a] "an example of class a
	// reaches internal node q+1", R[q][a][j] "examples of at least j+1 of
	// the classes 0..a reach it".
	P, R     sat.Group
	cutLevel int         // internal nodes from this level on hold P's example clauses
	tOut     [][]sat.Lit // tOut[q][j]: the subtree of node q+1 has >= j+1 labelled leaves
	limitCap int
	bound    []sat.Lit // bound[j]: at least j leaves labelled, j = 0..cap+1
	// Order variables of the numeric columns (see Options.PaperClauses).
	GE, LE  sat.Group
	chains  []chain
	inChain []bool // feature f belongs to a chain
	// rows[e] is the binary-view row of example slot e.
	rows  []int
	added []bool
	// value[e][f]: feature f on example slot e.
	classOf []int
	nAdded  int
	opt     Options
	// direct: examples also get the per-threshold clauses (3)-(4) of the
	// chained columns (AddDirectClauses).
	direct bool
	// sink, when set, receives the clauses instead of CNF; streamed
	// counts them.
	sink     sat.ClauseAdder
	streamed int
	// tree is the tree of the last model read (readTree), root its root.
	tree  []treeNode
	root  int32
	guard guard
}

// Bytes accounted per literal and per clause of the formula (its CNF
// slab as it grows by doubling, or the solver's copy of a streamed
// clause with its watches), and per variable (a solver's assignment,
// watch lists, activity and trail), with the garbage a collected heap
// holds. Calibrated on a 60-class random dataset (600 rows, 5 numeric
// columns; sat-depth for 5 s, 880k clauses, 665k variables: 268 MB
// peak resident; 2-core x86-64 Debian 12 VM, 2026-11-25).
const (
	litBytes    = 24
	clauseBytes = 48
	varBytes    = 128
	// guardEvery is how many literals are added between two checks of
	// the context and the budget.
	guardEvery = 1 << 16
)

// guard is what building a formula answers to: its context and the
// memory budget its clauses are accounted in.
type guard struct {
	ctx      context.Context
	budget   *backend.Budget
	pending  int64 // bytes added since the last check
	reserved int64 // bytes accounted in budget
	vars     int   // variables accounted
	err      error
}

// check accounts the pending bytes and stops the building (err) when
// the context has ended or the budget is exhausted.
func (e *Encoding) check() {
	g := &e.guard
	if g.err != nil {
		return
	}
	if e.CNF != nil && e.CNF.NumVars > g.vars {
		g.pending += int64(e.CNF.NumVars-g.vars) * varBytes
		g.vars = e.CNF.NumVars
	}
	n := g.pending
	g.pending = 0
	if g.ctx != nil && g.ctx.Err() != nil {
		g.err = fmt.Errorf("building the formula: %w", context.Cause(g.ctx))
		return
	}
	if err := g.budget.Reserve(n, "the SAT formula"); err != nil {
		g.err = fmt.Errorf("building the formula: %w", err)
		return
	}
	g.reserved += n
}

// Err is why building the formula stopped: its context ended or its
// memory budget was exhausted (nil while it grows; see NewContext). Once
// it is set, no clause is added any more: the formula is incomplete and
// must not be solved.
func (e *Encoding) Err() error {
	e.check()
	return e.guard.err
}

// Release returns the bytes the formula accounted in its budget.
func (e *Encoding) Release() {
	e.guard.budget.Release(e.guard.reserved)
	e.guard.reserved = 0
}

// add appends a clause to the formula: to CNF, or to the sink.
func (e *Encoding) add(lits ...sat.Lit) {
	g := &e.guard
	if g.err != nil {
		return
	}
	if g.pending += int64(len(lits))*litBytes + clauseBytes; g.pending >= guardEvery*litBytes {
		e.check()
		if g.err != nil {
			return
		}
	}
	if e.sink != nil {
		e.sink.AddClause(lits...)
		e.streamed++
		return
	}
	e.CNF.Add(lits...)
}

// stream passes the clauses in CNF to dst and every later clause to dst
// alone: the incremental loop's solver holds the formula, and keeping a
// second copy of it (megabytes at depth 6, rebuilt per depth) cost the
// depth search about a tenth of its CPU in allocation.
func (e *Encoding) stream(dst sat.ClauseAdder) {
	sat.AddCNF(dst, e.CNF, 0)
	e.streamed += e.CNF.NumClauses()
	e.CNF = &sat.CNF{NumVars: e.CNF.NumVars, Groups: e.CNF.Groups, Comments: e.CNF.Comments}
	e.sink = dst
}

// NumClauses is the number of clauses of the formula, streamed or not.
func (e *Encoding) NumClauses() int { return e.CNF.NumClauses() + e.streamed }

// New starts the encoding of a perfect tree of depth k (k >= 0) over the
// given binary-view tests, with one example slot per row in rows (no
// example clause yet; see AddExample). It adds clauses (1) (at least one
// feature per node) and the chosen at-most-one clauses.
func New(v *model.BinaryView, tests []int, rows []int, k int, opt Options) (*Encoding, error) {
	return NewContext(context.Background(), nil, v, tests, rows, k, opt)
}

// NewContext is New building under ctx and budget: the formula checks ctx
// every few thousand literals and accounts its clauses and variables in
// budget (nil: no cap), now and as it grows; when either stops it, New
// returns the error, and later additions stop with Err set.
func NewContext(ctx context.Context, budget *backend.Budget, v *model.BinaryView, tests []int, rows []int, k int, opt Options) (*Encoding, error) {
	amo := opt.AMO
	if k < 0 || k > 20 {
		return nil, fmt.Errorf("depth %d out of range [0, 20]", k)
	}
	if k > 0 && len(tests) == 0 {
		return nil, fmt.Errorf("depth %d needs at least one test, the data has none", k)
	}
	m, nc := len(tests), len(v.Class)
	inner, leaves := (1<<k)-1, 1<<k
	e := &Encoding{cutLevel: k, View: v, Tests: tests, Depth: k, CNF: &sat.CNF{}, rows: rows, added: make([]bool, len(rows)), opt: opt,
		guard: guard{ctx: ctx, budget: budget}}
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
	e.inChain = make([]bool, m)
	if !opt.PaperClauses && inner > 0 {
		byCol := map[int][]int{}
		var cols []int
		for f, t := range tests {
			if tt := v.Tests[t]; !tt.Categorical {
				if _, ok := byCol[tt.Feature]; !ok {
					cols = append(cols, tt.Feature)
				}
				byCol[tt.Feature] = append(byCol[tt.Feature], f)
			}
		}
		total := 0
		for _, c := range cols {
			fs := byCol[c]
			if len(fs) < 3 {
				continue // two clauses per column save nothing
			}
			slices.SortFunc(fs, func(a, b int) int { return cmp.Compare(v.Tests[tests[a]].Threshold, v.Tests[tests[b]].Threshold) })
			e.chains = append(e.chains, chain{feats: fs, off: total})
			total += len(fs)
			for _, f := range fs {
				e.inChain[f] = true
			}
		}
		if total > 0 {
			e.GE = e.CNF.NewGroup("GE", "GE[q][t]: node q+1 tests a threshold of the same column as chain position t with rank >= t's (chains: numeric columns, thresholds ascending)", inner, total)
			e.LE = e.CNF.NewGroup("LE", "LE[q][t]: node q+1 tests a threshold of the same column as chain position t with rank <= t's", inner, total)
			for q := range inner {
				for _, ch := range e.chains {
					n := len(ch.feats)
					for j, f := range ch.feats {
						e.add(-e.F.Lit(q, f), e.GE.Lit(q, ch.off+j))
						e.add(-e.F.Lit(q, f), e.LE.Lit(q, ch.off+j))
						if j > 0 {
							e.add(-e.GE.Lit(q, ch.off+j), e.GE.Lit(q, ch.off+j-1))
						}
						if j < n-1 {
							e.add(-e.LE.Lit(q, ch.off+j), e.LE.Lit(q, ch.off+j+1))
						}
					}
				}
			}
		}
	}
	e.CNF.Comments = append(e.CNF.Comments,
		"odtkit Avellaneda depth encoding (AAAI 2020): perfect tree of depth "+fmt.Sprint(k),
		fmt.Sprintf("%d features (binary-view tests), %d classes, %d example slots, at-most-one: %s", m, nc, len(rows), amo))
	lits := make([]sat.Lit, m)
	for q := range inner {
		for f := range m {
			lits[f] = e.F.Lit(q, f)
		}
		e.add(lits...) // (1)
		switch amo {
		case AMOPairwise:
			for a := range m {
				for b := a + 1; b < m; b++ {
					e.add(-lits[a], -lits[b]) // (2)
				}
			}
		case AMOSequential:
			if m > 1 {
				s := make([]sat.Lit, m-1)
				for i := range s {
					s[i] = e.CNF.NewVar()
				}
				e.add(-lits[0], s[0])
				for i := 1; i < m-1; i++ {
					e.add(-lits[i], s[i])
					e.add(-s[i-1], s[i])
					e.add(-lits[i], -s[i-1])
				}
				e.add(-lits[m-1], -s[m-2])
			}
		}
	}
	if !opt.NoClassCuts && k > 0 && e.numClasses() > 4 {
		e.depthCuts()
	}
	if err := e.Err(); err != nil {
		e.Release()
		return nil, err
	}
	return e, nil
}

// AddDirectClauses makes the order encoding of numeric columns also
// carry the paper's per-threshold clauses (3)-(4), which the order
// variables imply: for the examples already in the formula now, for the
// others when they are added. Implied clauses change no model, but they
// propagate a node's feature choice to the examples in one step; they
// made the refutations of DT_size several times faster on wine (the
// order variables alone find the trees of DT_depth faster). Calling it
// again does nothing.
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
// from its leaves' classes. New adds them with more than four classes
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

// Decode reads a model (value of each literal) as a decision tree over
// the view's data. Unlabelled leaves, and the branches no example slot
// (added or not) takes, are removed and their parents replaced by the
// other child (Theorem 2); a node whose two children are leaves of the
// same class becomes that leaf. The tree so classifies every example
// slot as the model's perfect tree does, with fewer leaves: DT_size's
// next bound starts lower, and DT_depth's tree has no branch the data
// never takes. Every example in the
// formula reaches the leaf its X variables name, so the tree classifies
// them all correctly. With no labelled leaf at all (no example added)
// the tree is a single leaf of the most frequent class.
func (e *Encoding) Decode(value func(sat.Lit) bool) *model.Graph {
	e.readTree(value)
	return e.treeGraph()
}

// treeNode is a node of the tree a model describes (readTree): a leaf
// with its class, or an internal node with its binary-view test and the
// indices of its children in Encoding.tree.
type treeNode struct {
	leaf   bool
	class  int
	test   int
	lo, hi int32
}

// readTree reads the perfect tree a model describes into e.tree, without
// its unlabelled leaves and with a node whose children are leaves of one
// class made that leaf (see Decode), its root at e.root. The
// incremental loop predicts the examples with it (predict) and builds a
// graph (treeGraph) only for the tree it returns: 43 graphs per DT_depth
// of monk3 were a seventh of the run's allocation.
func (e *Encoding) readTree(value func(sat.Lit) bool) {
	k := e.Depth
	e.tree = e.tree[:0]
	var build func(q, lvl int) int32
	build = func(q, lvl int) int32 {
		if lvl == k {
			v := q - (1 << k)
			for a := range e.View.Class {
				if value(e.C.Lit(v, a)) {
					e.tree = append(e.tree, treeNode{leaf: true, class: a})
					return int32(len(e.tree) - 1)
				}
			}
			return -1
		}
		lo, hi := build(2*q, lvl+1), build(2*q+1, lvl+1)
		switch {
		case lo < 0:
			return hi
		case hi < 0:
			return lo
		case e.tree[lo].leaf && e.tree[hi].leaf && e.tree[lo].class == e.tree[hi].class:
			return lo
		}
		f := 0
		for j := range e.Tests {
			if value(e.F.Lit(q-1, j)) {
				f = j
				break
			}
		}
		e.tree = append(e.tree, treeNode{test: e.Tests[f], lo: lo, hi: hi})
		return int32(len(e.tree) - 1)
	}
	if e.root = build(1, 0); e.root < 0 {
		best := 0
		for c := range e.View.Class {
			if e.View.Class[c].Count() > e.View.Class[best].Count() {
				best = c
			}
		}
		e.tree = append(e.tree, treeNode{leaf: true, class: best})
		e.root = int32(len(e.tree) - 1)
	}
}

// predict is the class the tree read last (readTree) gives row r of the
// view's data.
func (e *Encoding) predict(r int) int {
	n := &e.tree[e.root]
	for !n.leaf {
		if e.View.True[n.test].Has(r) {
			n = &e.tree[n.hi]
		} else {
			n = &e.tree[n.lo]
		}
	}
	return n.class
}

// treeGraph is the tree read last (readTree) as a graph, without the
// branches no example slot (added or not) takes.
func (e *Encoding) treeGraph() *model.Graph {
	b := model.NewBuilder(e.View.Data, model.KindTree)
	// emit writes n's subtree without the branches no example slot of rows
	// takes; it reports the leaf class when the subtree is one leaf.
	var emit func(i int32, rows []int) (id int, leaf bool, class int)
	emit = func(i int32, rows []int) (int, bool, int) {
		n := e.tree[i]
		if n.leaf {
			return b.Leaf(n.class), true, n.class
		}
		var left, right []int
		for _, r := range rows {
			if e.View.True[n.test].Has(r) {
				right = append(right, r)
			} else {
				left = append(left, r)
			}
		}
		switch {
		case len(left) == 0:
			return emit(n.hi, right)
		case len(right) == 0:
			return emit(n.lo, left)
		}
		lo, lleaf, lc := emit(n.lo, left)
		hi, hleaf, hc := emit(n.hi, right)
		if lleaf && hleaf && lc == hc {
			return lo, true, lc
		}
		return b.Split(e.View.Tests[n.test], lo, hi), false, 0
	}
	id, _, _ := emit(e.root, e.rows)
	return b.Graph(id)
}
