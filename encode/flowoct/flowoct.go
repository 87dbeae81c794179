// Package flowoct is FlowOCT, the flow-based MILP for optimal
// classification trees on binary tests (Aghaei, Gómez & Vayanos, "Strong
// Optimal Classification Trees", Operations Research 2024), as the
// milp-flowoct backend.
//
// The tree is the complete binary tree of depth d, nodes numbered in heap
// order (root 0, children of n are 2n+1 on the false side of n's test and
// 2n+2 on the true side). Every node either tests one binary-view test
// (b[n,t] = 1), predicts a class (p[n] = 1, w[n,k] = 1), or lies below a
// node that predicts. Each data point sends at most one unit of flow from
// a source into the root; the flow may follow an arc to a child only on
// the side the node's test sends the point to, and may leave to the sink
// at a prediction node only when the node predicts the point's class.
// The flow that reaches the sink is the correctly classified weight, so
// the LP relaxation is much tighter than that of big-M formulations: a
// point's flow is bounded by the tree variables directly, without a
// big-M coupling.
//
// Points with the same vector of tests go down the tree together: they
// share one flow (one commodity per distinct vector) whose sink arcs are
// per class, weighted by the group's weight of that class. Duplicate,
// complementary and constant tests are dropped first (a tree with a
// complementary test is the mirror image of one with the original).
//
// For the plain error objective every internal node tests something (a
// shallower tree is the same as a deeper one whose extra tests lead to
// leaves of one class), which drops the p variables of internal nodes.
// A node limit, a leaf cost and the perfect-tree objectives (min-depth,
// min-size: every point's flow must reach the sink, fewest nodes) and a
// minimum leaf support use the general form.
//
// A minimum leaf support (every leaf holds at least N rows, as dl85's
// --min-support) needs to know which leaf holds a misclassified point,
// which sends no flow: a second flow routes every group to the node that
// predicts for it, and each predicting node counts the rows routed to it.
//
// The Benders form (Options.Benders) keeps the tree variables and one
// variable per group and class, the share of its weight classified
// correctly, and leaves the flows out: for a fixed tree each group's flow
// problem is a maximum flow on a tree-shaped graph, whose minimum cuts
// (MinCut) bound the variable. A cut loop adds the violated ones.
//
// The LP relaxation of the flow form is weak at depth 2 and beyond
// (fractional tests let every point's flow reach a leaf whose class is
// split half and half, so that it is often 0: docs/benchmarks.md, "The
// tree MILPs against dl85 on cp4im"): the proof comes from
// HiGHS's branching and cuts, helped by the greedy warm start. The tight
// form (Options.Tight) states each leaf's class per its parent's test,
// which makes a depth-1 tree's LP bound its optimum; the backend's
// decomposition by root test (decompose.go) solves deeper trees as
// such subtrees' MILPs. With whole row weights the errors are whole, so the
// backend lets HiGHS stop once its bound is within one error of the
// incumbent and rounds its bounds up.
package flowoct

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// ErrInput is wrapped by the errors about a request the formulation
// cannot state.
var ErrInput = errors.New("flowoct")

// Objective is what the MILP minimises.
type Objective int

const (
	// Errors: the weighted misclassification (plus LeafCost × leaves as a
	// share of the total weight when LeafCost > 0).
	Errors Objective = iota
	// Nodes: every point classified correctly, fewest nodes (internal
	// plus leaves) in the tree.
	Nodes
	// Feasible: every point classified correctly, no objective (is there
	// a tree of this depth with no training error?).
	Feasible
)

// Options state the MILP.
type Options struct {
	// Depth of the complete tree (0: one leaf).
	Depth     int
	Objective Objective
	// MaxInternal caps the number of internal (test) nodes (0: no cap).
	MaxInternal int
	// LeafCost λ > 0 makes the error objective errors/total + λ·leaves.
	LeafCost float64
	// Rows restricts the data to these rows (nil: all), e.g. the rows a
	// perfect tree must classify once conflicting rows are dropped.
	Rows model.Bitset
	// MinSupport > 1 asks every leaf of the tree to hold at least that
	// many rows (counted, not weighted), as dl85's --min-support: every
	// row is routed to the leaf it reaches (a second flow that always
	// reaches a prediction node) and each prediction node's routed rows
	// are counted.
	MinSupport int
	// Benders states the master problem of the Benders decomposition
	// (error objective only): the tree variables and one variable
	// g[group][class] ≤ 1 per group and class (its weight is correctly
	// classified), with no flow; the flow constraints enter as the
	// min-cut cuts that Cut separates. The master with only some cuts is
	// a relaxation: its bound is a lower bound on the errors.
	Benders bool
	// Total, when positive, is the weight the errors are a share of
	// with a leaf cost (0: the total of the rows kept): a subtree's MILP
	// over some rows weighs its errors as the whole tree's do.
	Total float64
	// Local drops the tests that are constant, duplicate or
	// complementary on the rows kept (Rows), as the view's redundancy
	// does on all rows: a subtree's MILP chooses among fewer tests.
	Local bool
	// Tight states each leaf's class per its parent's test (plain form:
	// the error objective without leaf cost, node limit or min support):
	// v[L][j][c] is 1 when L's parent tests j and L predicts c, and a
	// group's flow to the sink of class c at L is bounded by the v of
	// the tests that send it to L, instead of by L's class alone. The LP
	// relaxation of a depth-1 tree is then its optimum (a convex
	// combination of the trees of each test), and deeper trees' leaves
	// are linked to their parents' tests.
	Tight bool
}

// compact reports whether the MILP is the tight form of depth 1, whose
// objective is stated on the leaves' classes per test, without flows.
func (e *Encoding) compact() bool { return e.Opts.tight() && e.Opts.Depth == 1 }

// tight reports whether the MILP states the leaves' classes per parent
// test (Options.Tight in the plain flow form of depth ≥ 1).
func (o Options) tight() bool {
	return o.Tight && !o.general() && !o.Benders && o.Depth >= 1
}

// general reports whether internal nodes may predict (the p variables).
func (o Options) general() bool {
	return o.Objective != Errors || o.MaxInternal > 0 || o.LeafCost > 0 || o.MinSupport > 1
}

// group is one distinct vector of kept tests.
type group struct {
	rep   int       // lowest row of the group
	rows  int       // rows in the group
	w     []float64 // weight per class
	total float64
}

// Encoding is a built FlowOCT model and what decoding it needs.
type Encoding struct {
	Model *milp.Model
	Opts  Options
	View  *model.BinaryView
	// Tests are the binary-view tests the nodes choose from.
	Tests  []int
	groups []group
	nInt   int // internal nodes: 2^Depth − 1
	nNodes int // all nodes: 2^(Depth+1) − 1
	// subtree marks a subtree MILP of a decomposed solve, which Size
	// estimates with its own base (subtreeBaseBytes).
	subtree bool
	// column indices (−1: absent)
	b     [][]int // b[n][j]: internal node n tests Tests[j]
	p     []int   // p[n]: node n predicts (general form); −1 when fixed
	w     [][]int // w[n][k]: node n predicts class k
	z     [][]int // z[g][n]: flow of group g into node n
	s     [][][2]int
	total float64
	// Benders master: gc[g][c] is the share of group g's class-c weight
	// classified correctly (−1: the group has no row of class c).
	gc [][]int
	// Min support: r[g][n] routes group g into node n, q[g][n] stops it
	// at n (n predicts).
	r, q [][]int
	// Tight: v[L][j][c], leaf L predicts c and its parent tests Tests[j].
	v [][][]int
}

// NumGroups is the number of distinct test vectors (one flow each).
func (e *Encoding) NumGroups() int { return len(e.groups) }

// NumTests is the number of tests the nodes choose from.
func (e *Encoding) NumTests() int { return len(e.Tests) }

// Encode builds the FlowOCT MILP of the view's data (Plan, then Build).
// ctx is checked while the rows are grouped and the constraints written.
func Encode(ctx context.Context, v *model.BinaryView, o Options) (*Encoding, error) {
	e, err := Plan(ctx, v, o)
	if err != nil {
		return nil, err
	}
	if err := e.Build(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// MaxDepth is the deepest complete tree the MILP states: every data
// point has a flow variable at each of its 2^(MaxDepth+1) − 1 nodes.
const MaxDepth = 12

// Plan checks the options, keeps the view's useful tests and groups the
// rows by them: an Encoding whose size (Size) is known and whose MILP is
// not built yet (Build). For the error objective the depth is lowered to
// the useful depth of the groups: no path of an optimal tree repeats a
// test, and each useful split leaves a group on either side.
func Plan(ctx context.Context, v *model.BinaryView, o Options) (*Encoding, error) {
	if o.Depth < 0 {
		return nil, fmt.Errorf("%w: depth %d is negative", ErrInput, o.Depth)
	}
	if o.LeafCost < 0 || math.IsNaN(o.LeafCost) || math.IsInf(o.LeafCost, 0) {
		return nil, fmt.Errorf("%w: leaf cost %v", ErrInput, o.LeafCost)
	}
	if o.Objective != Errors && o.LeafCost > 0 {
		return nil, fmt.Errorf("%w: a leaf cost weighs the error objective only", ErrInput)
	}
	if o.Benders && o.Objective != Errors {
		return nil, fmt.Errorf("%w: the Benders form states the error objective only", ErrInput)
	}
	if o.MinSupport < 0 {
		return nil, fmt.Errorf("%w: min support %d is negative", ErrInput, o.MinSupport)
	}
	e := &Encoding{Opts: o, View: v}
	var err error
	if e.Tests, err = v.KeptTests(ctx); err != nil {
		return nil, err
	}
	if err := e.group(ctx); err != nil {
		return nil, err
	}
	if o.Local {
		e.localTests()
	}
	depth := o.Depth
	if o.Objective == Errors {
		depth = max(min(depth, len(e.Tests), len(e.groups)-1), 0)
	}
	if len(e.Tests) == 0 && !o.general() {
		// Nothing to test: every node of a full tree would need a test.
		depth = 0
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: depth %d exceeds the deepest tree the flow MILP states (%d): it would need a flow variable at each of 2^%d-1 nodes for each group of identical rows", ErrInput, depth, MaxDepth, depth+1)
	}
	e.Opts.Depth = depth
	e.nInt = 1<<depth - 1
	e.nNodes = 1<<(depth+1) - 1
	return e, nil
}

// Build writes the planned MILP (the columns, then the constraints,
// checking ctx as it goes).
func (e *Encoding) Build(ctx context.Context) error {
	if e.Model != nil {
		return nil
	}
	e.build()
	return e.rows(ctx)
}

// group finds the distinct test vectors of the rows kept, numbered by
// their first row.
func (e *Encoding) group(ctx context.Context) error {
	v, d := e.View, e.View.Data
	k := len(v.Class)
	part, n, err := v.Partition(ctx, e.Tests, nil)
	if err != nil {
		return fmt.Errorf("grouping rows: %w", err)
	}
	index := make([]int32, n)
	for i := range index {
		index[i] = -1
	}
	for r := range v.N {
		if e.Opts.Rows != nil && !e.Opts.Rows.Has(r) {
			continue
		}
		g := index[part[r]]
		if g < 0 {
			g = int32(len(e.groups))
			index[part[r]] = g
			e.groups = append(e.groups, group{rep: r, w: make([]float64, k)})
		}
		wt := d.Weight(r)
		e.groups[g].w[d.Labels[r]] += wt
		e.groups[g].total += wt
		e.groups[g].rows++
		e.total += wt
	}
	return nil
}

// scale is the weight of one error in the objective: 1, or with a leaf
// cost the error's share of the total weight.
func (e *Encoding) scale() float64 {
	switch {
	case e.Opts.LeafCost <= 0:
		return 1
	case e.Opts.Total > 0:
		return 1 / e.Opts.Total
	case e.total > 0:
		return 1 / e.total
	}
	return 1
}

// localTests keeps the first of the tests that split the groups the same
// way (or the complementary way) and drops those that do not split them.
func (e *Encoding) localTests() {
	seen := map[string]bool{}
	kept := e.Tests[:0:0]
	bits := make([]byte, (len(e.groups)+7)/8)
	for j, t := range e.Tests {
		clear(bits)
		flip := len(e.groups) > 0 && e.View.True[t].Has(e.groups[0].rep)
		any := false
		for g := range e.groups {
			if e.value(g, j) != flip {
				bits[g/8] |= 1 << (g % 8)
				any = true
			}
		}
		if !any || seen[string(bits)] {
			continue
		}
		seen[string(bits)] = true
		kept = append(kept, t)
	}
	e.Tests = kept
}

// value is the outcome of test j on group g.
func (e *Encoding) value(g, j int) bool { return e.View.True[e.Tests[j]].Has(e.groups[g].rep) }

func (e *Encoding) isLeaf(n int) bool { return n >= e.nInt }

// ancestors of node n, nearest first.
func ancestors(n int) []int {
	var a []int
	for n > 0 {
		n = (n - 1) / 2
		a = append(a, n)
	}
	return a
}

// build adds the columns.
func (e *Encoding) build() {
	o := e.Opts
	m := &milp.Model{Name: "flowoct", ObjName: "obj"}
	switch o.Objective {
	case Errors:
		m.ObjName = "errors"
	case Nodes:
		m.ObjName = "nodes"
	case Feasible:
		m.ObjName = "none"
	}
	e.Model = m
	k := len(e.View.Class)
	gen := o.general()
	// Error scale: weighted errors, or their share of the total with a
	// leaf cost.
	scale := e.scale()
	e.b = make([][]int, e.nInt)
	for n := range e.nInt {
		e.b[n] = make([]int, len(e.Tests))
		for j := range e.Tests {
			cost := 0.0
			if o.Objective == Nodes {
				cost = 2 // each test adds an internal node and a leaf
			}
			e.b[n][j] = m.AddBinary(fmt.Sprintf("b_%d_%d", n, j), cost)
		}
	}
	e.p = make([]int, e.nNodes)
	for n := range e.nNodes {
		e.p[n] = -1
		if gen {
			e.p[n] = m.AddBinary(fmt.Sprintf("p_%d", n), o.LeafCost)
		}
	}
	e.w = make([][]int, e.nNodes)
	for n := range e.nNodes {
		if !gen && !e.isLeaf(n) {
			continue
		}
		e.w[n] = make([]int, k)
		for c := range k {
			e.w[n][c] = m.AddBinary(fmt.Sprintf("w_%d_%d", n, c), 0)
		}
	}
	if o.tight() {
		e.v = make([][][]int, e.nNodes)
		for n := e.nInt; n < e.nNodes; n++ {
			e.v[n] = make([][]int, len(e.Tests))
			for j := range e.Tests {
				e.v[n][j] = make([]int, k)
				for c := range k {
					e.v[n][j][c] = m.AddContinuous(fmt.Sprintf("v_%d_%d_%d", n, j, c), 0, 1, 0)
				}
			}
		}
	}
	if o.Objective == Nodes {
		m.Offset = 1 // the root
	}
	if o.MinSupport > 1 {
		e.r = make([][]int, len(e.groups))
		e.q = make([][]int, len(e.groups))
		for g := range e.groups {
			e.r[g], e.q[g] = make([]int, e.nNodes), make([]int, e.nNodes)
			for n := range e.nNodes {
				lo := 0.0
				if n == 0 {
					lo = 1 // every row is routed
				}
				e.r[g][n] = m.AddContinuous(fmt.Sprintf("r_%d_%d", g, n), lo, 1, 0)
				e.q[g][n] = m.AddContinuous(fmt.Sprintf("q_%d_%d", g, n), 0, 1, 0)
			}
		}
	}
	if o.Benders {
		e.gc = make([][]int, len(e.groups))
		for g, gr := range e.groups {
			e.gc[g] = make([]int, k)
			for c := range k {
				e.gc[g][c] = -1
				if gr.w[c] > 0 {
					e.gc[g][c] = m.AddContinuous(fmt.Sprintf("g_%d_%d", g, c), 0, 1, -gr.w[c]*scale)
				}
			}
		}
		m.Offset = e.total * scale
		return
	}
	if e.compact() {
		// Depth 1, tight: the correct weight is that of each leaf's
		// class under its parent's test; no flow is needed.
		for j := range e.Tests {
			wt := [2][]float64{make([]float64, k), make([]float64, k)}
			for g, gr := range e.groups {
				side := 0
				if e.value(g, j) {
					side = 1
				}
				for c, v := range gr.w {
					wt[side][c] += v
				}
			}
			for side := range 2 {
				for c := range k {
					m.Columns[e.v[1+side][j][c]].Cost = -wt[side][c] * scale
				}
			}
		}
		m.Offset = e.total * scale
		return
	}
	perfect := o.Objective != Errors
	e.z = make([][]int, len(e.groups))
	e.s = make([][][2]int, len(e.groups))
	for g, gr := range e.groups {
		e.z[g] = make([]int, e.nNodes)
		lo := 0.0
		if perfect {
			lo = 1 // every point reaches the sink
		}
		for n := range e.nNodes {
			if n == 0 {
				e.z[g][n] = m.AddContinuous(fmt.Sprintf("z_%d_%d", g, n), lo, 1, 0)
			} else {
				e.z[g][n] = m.AddContinuous(fmt.Sprintf("z_%d_%d", g, n), 0, 1, 0)
			}
		}
		for n := range e.nNodes {
			if e.w[n] == nil {
				continue
			}
			for c := range k {
				if gr.w[c] <= 0 {
					continue
				}
				cost := 0.0
				if o.Objective == Errors {
					cost = -gr.w[c] * scale
				}
				col := m.AddContinuous(fmt.Sprintf("s_%d_%d_%d", g, n, c), 0, 1, cost)
				e.s[g] = append(e.s[g], [2]int{n, col})
			}
		}
	}
	if o.Objective == Errors {
		m.Offset = e.total * scale
	}
}

// rows adds the constraints.
func (e *Encoding) rows(ctx context.Context) error {
	m, o := e.Model, e.Opts
	gen := o.general()
	k := len(e.View.Class)
	var idx []int
	var val []float64
	add := func(col int, v float64) { idx, val = append(idx, col), append(val, v) }
	reset := func() { idx, val = idx[:0], val[:0] }
	// Each internal node tests one test, predicts, or lies below a
	// prediction; each leaf predicts or lies below one.
	for n := range e.nNodes {
		reset()
		if !e.isLeaf(n) {
			for _, c := range e.b[n] {
				add(c, 1)
			}
		}
		if gen {
			add(e.p[n], 1)
			for _, a := range ancestors(n) {
				add(e.p[a], 1)
			}
		}
		if len(idx) > 0 {
			m.AddRow(fmt.Sprintf("node_%d", n), 1, 1, idx, val)
		}
		if e.w[n] != nil {
			// One class at a prediction node.
			reset()
			for c := range k {
				add(e.w[n][c], 1)
			}
			if gen {
				add(e.p[n], -1)
				m.AddRow(fmt.Sprintf("class_%d", n), 0, 0, idx, val)
			} else {
				m.AddRow(fmt.Sprintf("class_%d", n), 1, 1, idx, val)
			}
		}
	}
	if e.v != nil {
		// A leaf's class per its parent's test: they sum to the
		// parent's test and to the leaf's class.
		for n := e.nInt; n < e.nNodes; n++ {
			par := (n - 1) / 2
			for j := range e.Tests {
				reset()
				for c := range k {
					add(e.v[n][j][c], 1)
				}
				add(e.b[par][j], -1)
				m.AddRow(fmt.Sprintf("vtest_%d_%d", n, j), 0, 0, idx, val)
			}
			for c := range k {
				reset()
				for j := range e.Tests {
					add(e.v[n][j][c], 1)
				}
				add(e.w[n][c], -1)
				m.AddRow(fmt.Sprintf("vclass_%d_%d", n, c), 0, 0, idx, val)
			}
		}
	}
	if o.MaxInternal > 0 && e.nInt > 0 {
		reset()
		for n := range e.nInt {
			for _, c := range e.b[n] {
				add(c, 1)
			}
		}
		m.AddRow("max_internal", -milp.Inf, float64(o.MaxInternal), idx, val)
	}
	if o.MinSupport > 1 {
		if err := e.routing(ctx); err != nil {
			return err
		}
	}
	if e.compact() {
		return nil
	}
	if o.Benders {
		// A group reaches one leaf, which predicts one class.
		for g := range e.groups {
			reset()
			for _, c := range e.gc[g] {
				if c >= 0 {
					add(c, 1)
				}
			}
			if len(idx) > 1 {
				m.AddRow(fmt.Sprintf("one_class_%d", g), -milp.Inf, 1, idx, val)
			}
		}
		return nil
	}
	for g := range e.groups {
		if g%8 == 0 {
			if ctx.Err() != nil {
				return fmt.Errorf("writing the flow constraints: %w", context.Cause(ctx))
			}
		}
		sinks := map[int][]int{} // node -> sink columns of g
		for _, s := range e.s[g] {
			sinks[s[0]] = append(sinks[s[0]], s[1])
		}
		for n := range e.nNodes {
			// Conservation: in = children + sinks.
			reset()
			add(e.z[g][n], 1)
			if !e.isLeaf(n) {
				add(e.z[g][2*n+1], -1)
				add(e.z[g][2*n+2], -1)
			}
			for _, c := range sinks[n] {
				add(c, -1)
			}
			m.AddRow(fmt.Sprintf("flow_%d_%d", g, n), 0, 0, idx, val)
		}
		for n := range e.nInt {
			// The flow takes the arc to a child only on the side n's test
			// sends g to. With one test per node (the plain form),
			// z_low ≤ Σ_{t false} b is also z_low + Σ_{t true} b ≤ 1:
			// write the sparser.
			for side := range 2 {
				child := e.z[g][2*n+1+side]
				want := side == 1
				match := 0
				for j := range e.Tests {
					if e.value(g, j) == want {
						match++
					}
				}
				reset()
				add(child, 1)
				if !gen && 2*match > len(e.Tests) {
					for j, c := range e.b[n] {
						if e.value(g, j) != want {
							add(c, 1)
						}
					}
					m.AddRow(fmt.Sprintf("arc_%d_%d_%d", g, n, side), -milp.Inf, 1, idx, val)
					continue
				}
				for j, c := range e.b[n] {
					if e.value(g, j) == want {
						add(c, -1)
					}
				}
				m.AddRow(fmt.Sprintf("arc_%d_%d_%d", g, n, side), -milp.Inf, 0, idx, val)
			}
		}
		// The flow leaves to the sink of class c at n only if n predicts c.
		for _, s := range e.s[g] {
			n, col := s[0], s[1]
			c := sinkClass(m.Columns[col].Name)
			if e.v != nil {
				// Bounded by the leaf's class under the tests that
				// send the group to it.
				reset()
				add(col, 1)
				right := n == 2*((n-1)/2)+2
				for j := range e.Tests {
					if e.value(g, j) == right {
						add(e.v[n][j][c], -1)
					}
				}
				m.AddRow(fmt.Sprintf("sink_%d_%d_%d", g, n, c), -milp.Inf, 0, idx, val)
				continue
			}
			m.AddRow(fmt.Sprintf("sink_%d_%d_%d", g, n, c), -milp.Inf, 0, []int{col, e.w[n][c]}, []float64{1, -1})
		}
	}
	return nil
}

// sinkClass reads the class of a sink column's name s_G_N_C.
func sinkClass(name string) int {
	i := strings.LastIndexByte(name, '_')
	c := 0
	for _, ch := range name[i+1:] {
		c = 10*c + int(ch-'0')
	}
	return c
}
