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
	"slices"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
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

// String is the option value (none for "").
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

// String is the option value (totalizer for "").
func (c Counter) String() string {
	if c == "" {
		return string(CounterTotalizer)
	}
	return string(c)
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
	// Guarded is the formula and what its building answers to (Err,
	// Release).
	satjob.Guarded
	View *model.BinaryView
	// Tests maps the encoding's features to binary-view tests.
	Tests []int
	Depth int
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
	tree []treeNode
	root int32
}

// add appends a clause to the formula: to CNF, or to the sink.
func (e *Encoding) add(lits ...sat.Lit) {
	if !e.Admit(len(lits)) {
		return
	}
	if e.sink != nil {
		e.sink.AddClause(lits...)
		e.streamed++
		return
	}
	e.CNF.Add(lits...)
}

// stream passes the clauses in CNF to dst and every later clause to dst
// alone: the incremental loop's solver holds the formula, and a second copy
// of it (megabytes at depth 6, rebuilt per depth) would only cost the depth
// search allocation (figures in docs/benchmarks.md, "Figures behind
// constants and defaults").
func (e *Encoding) stream(dst sat.ClauseAdder) {
	sat.AddCNF(dst, e.CNF, 0)
	e.streamed += e.CNF.NumClauses()
	e.CNF = &sat.CNF{NumVars: e.CNF.NumVars, Groups: e.CNF.Groups, Comments: e.CNF.Comments}
	e.sink = dst
}

// NumClauses is the number of clauses of the formula, streamed or not.
func (e *Encoding) NumClauses() int { return e.CNF.NumClauses() + e.streamed }

// NewEncoding starts the encoding of a perfect tree of depth k (k >= 0)
// over the given binary-view tests, with one example slot per row in
// rows (no example clause yet; see AddExample): an encoding that grows,
// where Encode builds one whole. It adds clauses (1) (at least one
// feature per node) and the chosen at-most-one clauses. The formula
// checks ctx every few thousand literals and accounts its clauses and
// variables in budget (nil: no cap), now and as it grows; when either
// stops it, NewEncoding returns the error, and later additions stop
// with Err set.
func NewEncoding(ctx context.Context, budget *backend.Budget, v *model.BinaryView, tests []int, rows []int, k int, opt Options) (*Encoding, error) {
	amo := opt.AMO
	if k < 0 || k > 20 {
		return nil, fmt.Errorf("depth %d out of range [0, 20]", k)
	}
	if k > 0 && len(tests) == 0 {
		return nil, fmt.Errorf("depth %d needs at least one test, the data has none", k)
	}
	m, nc := len(tests), len(v.Class)
	inner, leaves := (1<<k)-1, 1<<k
	e := &Encoding{Guarded: satjob.NewGuarded(ctx, budget), cutLevel: k, View: v, Tests: tests, Depth: k, rows: rows, added: make([]bool, len(rows)), opt: opt}
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
