package odd

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// diagramWork caps the steps of diagramSearch (group visits of its
// sweeps): a few seconds, well above what small data needs on skeletons
// of depth 3, so that the search finishes where its bound can pay and
// costs little where it cannot (the figures: docs/benchmarks.md,
// "Figures behind constants and defaults").
const diagramWork = 5e8

// diagramSearch is a branch and bound over the univariate diagrams of a
// skeleton of depth 2 or 3, on the row groups of a groupView. It fixes
// the tests of every layer but the last: the root's (any threshold test,
// or one that sends every row to one side), then for depth 3 each root
// side's node in layer 1 (none: the side ends in a class; a test on the
// side's rows; or a node that passes them all on). The sides of the
// nodes so fixed are the cells; what remains is which cells share which
// node of the last layer and the test and two classes of each such node,
// found exactly by enumeration. A choice is pruned when a bound on every
// completion (each cell alone with its best one-test split or its best
// class, one more node as soon as one cell uses a split) reaches the best
// diagram found; roots and layer-1 choices go in the order of that bound.
//
// The diagrams searched are those of the MILP: each node's two sides lead
// to distinct nodes or classes (constraint 8), the last layer's nodes
// send both sides to classes, and nodes may be inactive. Side constraints
// (parsimony, stability, fairness) are not searched: the least cost is
// then a lower bound, and the best diagram is checked against them
// before it is used.
type diagramSearch struct {
	v     *groupView
	e     *Encoding
	c     float64 // the node cost
	w1    int     // width of layer 1
	wl    int     // width of the last layer
	depth int
	ctx   context.Context
	work  float64

	mark  []int32 // scratch: groups of the set swept, by stamp
	stamp int32
	low   []float64
	high  []float64

	best    float64
	bestCfg dsConfig
}

// dsTest is one node's test: column col at scaled threshold thr (rows
// above go to side 1); thr > 1 sends every row to side 0.
type dsTest struct {
	col int
	thr float64
}

var passTest = dsTest{0, 2}

// dsCell is the groups reaching one side of a fixed node.
type dsCell struct {
	gs         []int
	w          []float64 // class costs
	leaf       float64   // cost as a class
	leafClass  int
	split      float64 // least cost as one node of two distinct classes (a split, or every group to one side)
	assignable bool    // may go to a node of the last layer (else only to a class)
	sib        int     // the cell on the other side of the same node, or -1
}

// dsOption is a choice for one root side in depth 3: a class, a passing
// node or a test.
type dsOption struct {
	node  bool
	test  dsTest
	cells []dsCell
	key   float64 // a bound on the side's cost: node cost + Σ each cell's best
}

// dsConfig records a diagram found: the root test, the layer-1 nodes
// (depth 3), the cells' targets and the last layer's nodes.
type dsConfig struct {
	root  dsTest
	sides [2]*dsOption // depth 3: each root side's choice (nil: empty side)
	cells []dsCell
	label []int // per cell: 0 a class, k ≥ 1 the k-th node of the last layer
	class []int // per cell with label 0: its class
	nodes []dsNode
}

type dsNode struct {
	test    dsTest
	classes [2]int
}

// diagramSkeleton reports whether the search handles the skeleton: a
// diagram (not the tree special case) of depth 2 or 3.
func (e *Encoding) diagramSkeleton() bool {
	return len(e.layer) >= 2 && len(e.layer) <= 3 && !e.Opts.Tree
}

// newDiagramSearch prepares the search on the view v, or returns nil
// when the skeleton or the options are not its kind.
func (e *Encoding) newDiagramSearch(ctx context.Context, v *groupView) *diagramSearch {
	if !e.diagramSkeleton() || e.Opts.Multivariate || v == nil {
		return nil
	}
	D := len(e.layer)
	s := &diagramSearch{v: v, e: e, c: e.NodeCost(), w1: len(e.layer[1]), wl: len(e.layer[D-1]), depth: D, ctx: ctx, best: math.Inf(1)}
	G := len(v.groups)
	s.mark = make([]int32, G)
	s.low, s.high = make([]float64, v.K), make([]float64, v.K)
	return s
}

// sweep returns the least cost of one node on the groups gs whose two
// sides go to distinct classes (the node may send every group to one
// side), with its test and classes.
func (s *diagramSearch) sweep(gs []int, w []float64) (float64, dsNode) {
	v := s.v
	K := v.K
	total := 0.0
	for _, x := range w {
		total += x
	}
	// Every group to side 0: the best class there, another on side 1.
	c0, best := model.Majority(w)
	node := dsNode{test: passTest, classes: [2]int{c0, (c0 + 1) % K}}
	if len(gs) < 2 {
		return best, node
	}
	s.stamp++
	for _, g := range gs {
		s.mark[g] = s.stamp
	}
	for j, order := range v.orders {
		low, high := s.low, s.high
		clear(low)
		copy(high, w)
		vals, eps := v.vals[j], s.e.cols[j].eps*(1-1e-9) // as the heuristic: the margin may equal the gap
		last := math.Inf(-1)
		for _, g := range order {
			if s.mark[g] != s.stamp {
				continue
			}
			// A threshold between the previous value and this one keeps
			// the margin on the rows of gs.
			if x := vals[g]; x-last >= eps && !math.IsInf(last, -1) {
				if v, a, b := bestPairOf(low, high); total-v < best-1e-12 {
					best, node = total-v, dsNode{test: dsTest{j, (last + x) / 2}, classes: [2]int{a, b}}
				}
			}
			for _, en := range v.entries[g] {
				low[en.c] += en.w
				high[en.c] -= en.w
			}
			last = vals[g]
		}
		s.work += float64(len(order))
	}
	return best, node
}

// bestPairOf is the largest a[c0] + b[c1] over c0 ≠ c1, with c0 and c1.
func bestPairOf(a, b []float64) (float64, int, int) {
	best, ca, cb := math.Inf(-1), 0, 1
	for i, x := range a {
		for j, y := range b {
			if i != j && x+y > best {
				best, ca, cb = x+y, i, j
			}
		}
	}
	return best, ca, cb
}

// newCell builds the cell of groups gs.
func (s *diagramSearch) newCell(gs []int, assignable bool) dsCell {
	c := dsCell{gs: gs, w: make([]float64, s.v.K), assignable: assignable, sib: -1}
	for _, g := range gs {
		for _, en := range s.v.entries[g] {
			c.w[en.c] += en.w
		}
	}
	c.leafClass, c.leaf = model.Majority(c.w)
	c.split = math.Inf(1)
	if assignable {
		c.split, _ = s.sweep(gs, c.w)
	}
	return c
}

// relax is a bound on the cost of cells placed by assign (without the
// fixed nodes): each cell alone at its best, one node of the last layer
// as soon as one cell is better split than classified.
func (s *diagramSearch) relax(cells []dsCell) float64 {
	leaf, each := 0.0, 0.0
	for _, c := range cells {
		leaf += c.leaf
		each += min(c.leaf, c.split)
	}
	if each < leaf {
		return min(leaf, s.c+each)
	}
	return leaf
}

// assign is the least cost of cells: each goes to a class or to one of
// at most wl nodes of the last layer (each with a test and two distinct
// classes, paying the node cost), and two cells of one node's sides
// never go to the same node or class. It returns the cost and the
// labels (0: a class; k: the k-th node), the classes of cells labelled
// 0, and the nodes.
func (s *diagramSearch) assign(cells []dsCell, bound float64) (float64, []int, []int, []dsNode) {
	n := len(cells)
	type block struct {
		cost float64
		node dsNode
		done bool
	}
	blocks := make([]block, 1<<n)
	blockCost := func(mask int) (float64, dsNode) {
		b := &blocks[mask]
		if !b.done {
			var gs []int
			w := make([]float64, s.v.K)
			for k := range n {
				if mask>>k&1 == 1 {
					gs = append(gs, cells[k].gs...)
					for c, x := range cells[k].w {
						w[c] += x
					}
				}
			}
			b.cost, b.node = s.sweep(gs, w)
			b.done = true
		}
		return b.cost, b.node
	}
	label := make([]int, n)
	best := math.Inf(1)
	var bestLabel []int
	var rec func(k, used int)
	rec = func(k, used int) {
		if k == n {
			cost := s.c * float64(used)
			masks := make([]int, used+1)
			for i, l := range label {
				masks[l] |= 1 << i
			}
			for l := 1; l <= used; l++ {
				c, _ := blockCost(masks[l])
				cost += c
			}
			cost += s.terminalCost(cells, label, nil)
			if cost < best-1e-12 {
				best, bestLabel = cost, slices.Clone(label)
			}
			return
		}
		label[k] = 0
		rec(k+1, used)
		if !cells[k].assignable {
			return
		}
		for l := 1; l <= min(used+1, s.wl); l++ {
			if sib := cells[k].sib; sib >= 0 && sib < k && label[sib] == l {
				continue // both sides of a node to one node
			}
			label[k] = l
			rec(k+1, max(used, l))
		}
		label[k] = 0
	}
	rec(0, 0)
	if best >= bound || bestLabel == nil {
		return best, nil, nil, nil
	}
	used := slices.Max(bestLabel)
	masks := make([]int, used+1)
	for i, l := range bestLabel {
		masks[l] |= 1 << i
	}
	nodes := make([]dsNode, used)
	for l := 1; l <= used; l++ {
		_, nodes[l-1] = blockCost(masks[l])
	}
	class := make([]int, n)
	s.terminalCost(cells, bestLabel, class)
	return best, bestLabel, class, nodes
}

// terminalCost is the cost of the cells labelled 0 sent to classes, two
// cells of one node's sides to distinct classes; class, when not nil,
// receives each such cell's class.
func (s *diagramSearch) terminalCost(cells []dsCell, label []int, class []int) float64 {
	cost := 0.0
	for k, c := range cells {
		if label[k] != 0 {
			continue
		}
		if sib := c.sib; sib >= 0 && label[sib] == 0 {
			if sib < k {
				continue // counted with its sibling
			}
			o := cells[sib]
			total := 0.0
			for i := range c.w {
				total += c.w[i] + o.w[i]
			}
			v, a, b := bestPairOf(c.w, o.w)
			cost += total - v
			if class != nil {
				class[k], class[sib] = a, b
			}
			continue
		}
		cost += c.leaf
		if class != nil {
			class[k] = c.leafClass
		}
	}
	return cost
}

// tests lists the distinct tests that split the groups gs (a test and
// its complement once): per column, a threshold between each two
// neighbouring values of gs that keeps the column's margin.
func (s *diagramSearch) tests(gs []int) []dsTest {
	v := s.v
	s.stamp++
	for _, g := range gs {
		s.mark[g] = s.stamp
	}
	seen := map[string]bool{}
	var tests []dsTest
	key := make([]byte, len(gs))
	for j, order := range v.orders {
		vals, eps := v.vals[j], s.e.cols[j].eps*(1-1e-9)
		last := math.Inf(-1)
		for _, g := range order {
			if s.mark[g] != s.stamp {
				continue
			}
			if x := vals[g]; x-last >= eps && !math.IsInf(last, -1) {
				t := dsTest{j, (last + x) / 2}
				first := vals[gs[0]] > t.thr
				for i, h := range gs {
					key[i] = 0
					if (vals[h] > t.thr) != first {
						key[i] = 1
					}
				}
				if !seen[string(key)] {
					seen[string(key)] = true
					tests = append(tests, t)
				}
			}
			last = vals[g]
		}
		s.work += float64(len(order))
	}
	return tests
}

// side splits gs by test t.
func (s *diagramSearch) side(gs []int, t dsTest) [2][]int {
	var out [2][]int
	for _, g := range gs {
		b := 0
		if t.thr <= 1 && s.v.vals[t.col][g] > t.thr {
			b = 1
		}
		out[b] = append(out[b], g)
	}
	return out
}

// sideOptions lists the choices for a root side of groups gs in depth 3:
// a class, a node passing every group on, or a node with each distinct
// test splitting gs, by increasing key.
func (s *diagramSearch) sideOptions(gs []int) []*dsOption {
	leaf := s.newCell(gs, false)
	opts := []*dsOption{{cells: []dsCell{leaf}, key: leaf.leaf}}
	pass := s.newCell(gs, true)
	opts = append(opts, &dsOption{node: true, test: passTest, cells: []dsCell{pass}, key: s.c + min(pass.leaf, pass.split)})
	for _, t := range s.tests(gs) {
		sides := s.side(gs, t)
		a, b := s.newCell(sides[0], true), s.newCell(sides[1], true)
		a.sib, b.sib = 1, 0
		o := &dsOption{node: true, test: t, cells: []dsCell{a, b}}
		o.key = s.c + min(a.leaf, a.split) + min(b.leaf, b.split)
		opts = append(opts, o)
	}
	slices.SortStableFunc(opts, func(a, b *dsOption) int { return cmp.Compare(a.key, b.key) })
	return opts
}

// stopped reports whether the search must end: the context or the work cap.
func (s *diagramSearch) stopped() bool {
	return s.work > diagramWork || s.ctx.Err() != nil
}

// run searches every root and returns the least cost found (errors'
// cost plus the node cost of the active nodes but the root) and a lower
// bound on every diagram's: the two are equal when the search finished.
func (s *diagramSearch) run() (bound float64, finished bool) {
	v := s.v
	all := make([]int, len(v.groups))
	for g := range all {
		all[g] = g
	}
	tests := append([]dsTest{passTest}, s.tests(all)...)
	type root struct {
		test  dsTest
		sides [2][]int
		opts  [2][]*dsOption
		cells [2]dsCell // depth 2: the root's sides
		key   float64
	}
	roots := make([]root, 0, len(tests))
	for _, t := range tests {
		if s.stopped() {
			return 0, false
		}
		r := root{test: t, sides: s.side(all, t)}
		if s.depth == 2 {
			for b := range 2 {
				r.cells[b] = s.newCell(r.sides[b], true)
			}
			r.cells[0].sib, r.cells[1].sib = 1, 0
			r.key = s.relax(r.cells[:])
			if len(r.sides[1]) == 0 {
				r.key = s.relax(r.cells[:1])
			}
		} else {
			for b := range 2 {
				if len(r.sides[b]) > 0 {
					// Only the least key is kept: the options of every
					// root at once would take roots × tests × rows of memory.
					r.key += s.sideOptions(r.sides[b])[0].key
				}
			}
		}
		roots = append(roots, r)
	}
	slices.SortStableFunc(roots, func(a, b root) int { return cmp.Compare(a.key, b.key) })
	for _, r := range roots {
		if r.key >= s.best-1e-12 {
			return s.best, true
		}
		if s.stopped() {
			return min(s.best, r.key), false
		}
		if s.depth == 2 {
			cells := r.cells[:]
			if len(r.sides[1]) == 0 {
				cells = cells[:1]
				cells[0].sib = -1
			}
			s.try(dsConfig{root: r.test}, cells, 0)
			continue
		}
		for b := range 2 {
			if len(r.sides[b]) > 0 {
				r.opts[b] = s.sideOptions(r.sides[b])
			}
		}
		if r.opts[1] == nil {
			for _, o := range r.opts[0] {
				if o.key >= s.best-1e-12 {
					break
				}
				s.try(dsConfig{root: r.test, sides: [2]*dsOption{o, nil}}, o.cells, nodeCount(o))
			}
			continue
		}
		for _, a := range r.opts[0] {
			if a.key+r.opts[1][0].key >= s.best-1e-12 {
				break
			}
			if s.stopped() {
				return min(s.best, r.key), false
			}
			for _, b := range r.opts[1] {
				if a.key+b.key >= s.best-1e-12 {
					break
				}
				if a.node && b.node && s.w1 < 2 {
					continue
				}
				var cells []dsCell
				for _, o := range []*dsOption{a, b} {
					k := len(cells)
					cells = append(cells, o.cells...)
					cells[k].sib = -1
					if len(o.cells) == 2 {
						cells[k].sib, cells[k+1].sib = k+1, k
					}
				}
				if !a.node && !b.node {
					cells[0].sib, cells[1].sib = 1, 0 // the root's two classes
				}
				s.try(dsConfig{root: r.test, sides: [2]*dsOption{a, b}}, cells, nodeCount(a)+nodeCount(b))
			}
		}
	}
	return s.best, true
}

func nodeCount(o *dsOption) int {
	if o.node {
		return 1
	}
	return 0
}

// try completes a choice of fixed nodes (fixed of them below the root)
// with its cells, when its bound is below the best.
func (s *diagramSearch) try(cfg dsConfig, cells []dsCell, fixed int) {
	base := s.c * float64(fixed)
	if base+s.relax(cells) >= s.best-1e-12 {
		return
	}
	// Cells that can only go to classes: the root's sides in depth 3.
	cost, label, class, nodes := s.assign(cells, s.best-base)
	if label == nil || base+cost >= s.best-1e-12 {
		return
	}
	cfg.cells, cfg.label, cfg.class, cfg.nodes = cells, label, class, nodes
	s.best, s.bestCfg = base+cost, cfg
}

// layers turns the best diagram into the heuristic's layered form (for
// its graph, objective, side constraints and MIP start), or nil when
// none was found.
func (s *diagramSearch) layers() [][]*hNode {
	cfg := s.bestCfg
	if cfg.label == nil {
		return nil
	}
	D := s.depth
	layers := make([][]*hNode, D)
	for _, n := range cfg.nodes {
		layers[D-1] = append(layers[D-1], &hNode{col: n.test.col, thr: n.test.thr, tgt: [2]int{-(n.classes[0] + 1), -(n.classes[1] + 1)}})
	}
	target := func(k int) int {
		if l := cfg.label[k]; l > 0 {
			return l - 1
		}
		return -(cfg.class[k] + 1)
	}
	other := func(t int) int { // a class target distinct from t, for an empty side
		if t >= 0 {
			return -1
		}
		return -((-t-1+1)%s.v.K + 1)
	}
	root := &hNode{col: cfg.root.col, thr: cfg.root.thr}
	layers[0] = []*hNode{root}
	if D == 2 {
		root.tgt[0] = target(0)
		if len(cfg.cells) > 1 {
			root.tgt[1] = target(1)
		} else {
			root.tgt[1] = other(root.tgt[0])
		}
	} else {
		k := 0
		for b := range 2 {
			o := cfg.sides[b]
			if o == nil {
				root.tgt[b] = other(root.tgt[0])
				continue
			}
			if !o.node {
				root.tgt[b] = target(k)
				k++
				continue
			}
			nd := &hNode{col: o.test.col, thr: o.test.thr}
			nd.tgt[0] = target(k)
			if len(o.cells) == 2 {
				nd.tgt[1] = target(k + 1)
			} else {
				nd.tgt[1] = other(nd.tgt[0])
			}
			k += len(o.cells)
			root.tgt[b] = len(layers[1])
			layers[1] = append(layers[1], nd)
		}
	}
	// The rows reaching each node (the stability check counts them).
	for i := range s.e.data.Rows() {
		l, k := 0, 0
		for {
			nd := layers[l][k]
			nd.rows = append(nd.rows, i)
			side := 0
			if nd.thr <= 1 && s.e.x[i][nd.col] > nd.thr {
				side = 1
			}
			t := nd.tgt[side]
			if t < 0 {
				break
			}
			l, k = l+1, t
		}
	}
	return layers
}

// searchDiagrams runs the diagram search within its share of the time
// and returns its outcome (nil: the search does not run on this data),
// with its best diagram when its objective re-evaluated on the data is
// the search's (foundIncumbent turns it into an incumbent of the whole
// MILP).
func (e *Encoding) searchDiagrams(ctx context.Context, v *groupView) *diagramStats {
	s := e.newDiagramSearch(ctx, v)
	if s == nil {
		return nil
	}
	// Work at least: the options of every root, two sweeps each.
	T := float64(len(v.tests) + 1)
	if T*T*float64(len(v.groups)*len(e.cols)) > diagramWork {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		s.ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/4)
		defer cancel()
	}
	start := time.Now()
	bound, finished := s.run()
	ds := &diagramStats{seconds: time.Since(start).Seconds(), bound: bound, finished: finished}
	if layers := s.layers(); layers != nil {
		// The diagram is re-evaluated on the data; its point is made once
		// the MILP is whole, and checked against it (side constraints
		// included) before it is used.
		if inc := e.incumbent(layers); inc != nil && math.Abs(inc.Objective-s.best) <= 1e-9 {
			ds.found = layers
		}
	}
	return ds
}

// addDiagramCut adds the bound of the diagram search ds (nil: none) as
// err + c·N ≥ bound (N: the active internal nodes but the root; err the
// cost expression errIdx·errVal).
func (e *Encoding) addDiagramCut(ds *diagramStats, errIdx []int, errVal []float64) {
	if ds == nil || ds.bound <= 0 || !e.nodeCostInRows("cut_diagram") {
		return
	}
	bound := ds.bound
	c := e.NodeCost()
	idx, val := slices.Clone(errIdx), slices.Clone(errVal)
	for u := 1; u < e.nInt; u++ {
		idx, val = append(idx, e.D[u]), append(val, c)
	}
	const slack = 1e-9
	e.Model.AddRow("cut_diagram", bound-slack, milp.Inf, idx, val)
}

// diagramStats describe the diagram cut's search.
type diagramStats struct {
	seconds  float64
	bound    float64
	finished bool
	found    [][]*hNode // the best diagram, when it satisfies every option
}

// foundIncumbent is the diagram search's best diagram as an incumbent
// with its point in the whole MILP, or nil when there is none or the
// point breaks a constraint of the MILP.
func (e *Encoding) foundIncumbent() *Incumbent {
	if e.diagram == nil || e.diagram.found == nil {
		return nil
	}
	inc := e.incumbent(e.diagram.found)
	if inc == nil {
		return nil
	}
	inc.X = e.point(e.diagram.found)
	if e.Model.CheckPoint(inc.X, milpjob.Tol) != nil {
		return nil
	}
	return inc
}
