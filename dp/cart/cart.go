package cart

import (
	"context"
	"math/bits"

	"github.com/odtkit/odtkit/model"
)

// Config controls the greedy tree. The zero value means depth limit from
// the problem, minimum leaf size 1, every row and every test of the view.
type Config struct {
	// MinLeaf is the least number of rows in a leaf (at least 1; the
	// problem's min support is used when larger).
	MinLeaf int
	// LeafCost (λ) charges λ × the data's total weight per leaf: a split
	// is kept only when its subtrees' errors plus their leaves' cost are
	// below the leaf's (0: kept when it lowers the error).
	LeafCost float64
	// MaxNodes stops splitting once that many internal nodes are used
	// (0: no limit). Nodes are split depth-first, low branch first, in
	// the order the greedy growth visits them, so the limit cuts the
	// high branches of the deepest levels first; a split later replaced
	// by a leaf gives its nodes back.
	MaxNodes int
	// Rows, when not nil, are the only rows the tree is grown on (a
	// bitset over the view's rows); LeafCost still weighs all rows.
	Rows model.Bitset
	// Tests, when not nil, are the only tests a node may use (indices
	// into the view's tests; on equal impurity the earlier one wins).
	// An empty, non-nil list allows none. nil: all the view's tests.
	Tests []int
	// Root, when not nil, is the only test the root may use (an index
	// into the view's tests; one not allowed by Tests leaves the root
	// a leaf). The other nodes choose as usual.
	Root *int
	// NoRepeat keeps a node from using a test of one of its ancestors.
	// It matters to complete trees only: elsewhere such a test leaves a
	// side empty and is never chosen.
	NoRepeat bool
	// Complete grows the complete tree of depth maxDepth (which must be
	// ≥ 0; below 0 Complete is ignored), the shape of formulations that
	// fix it: every node above that depth is split by its allowed test
	// of least impurity, also when it is pure or a side is left empty,
	// and every split is kept (MinLeaf, LeafCost and MaxNodes are not
	// used). A node is a leaf above the depth only when no test is
	// allowed there. A node no row reaches predicts its parent's class.
	Complete bool
}

// Node is a node of a grown tree: a split on the view's test Test (an
// index into the view's tests) with its Low and High sides, or a leaf
// (Test < 0, Low and High nil). Class is the majority class of the
// node's rows (lowest index on ties): a leaf's prediction.
type Node struct {
	Test      int
	Class     int
	Low, High *Node
}

// Grow grows a tree top-down on the binary view, choosing at every node
// the test with the lowest weighted Gini impurity of its two sides (ties:
// lowest test index), down to maxDepth levels (< 0: no limit) or until a
// node is pure or too small to split with MinLeaf rows per side. A split
// whose subtrees make no fewer errors than a leaf is replaced by that
// leaf (a smaller tree, never a worse training error). Config narrows the
// rows and tests and can ask for a complete tree instead. It is
// deterministic and returns the tree with its weighted training error.
//
// Memory is a few bitsets per level beyond the view. When ctx ends the
// nodes not yet split stay leaves: the tree returned is still valid and
// its error exact, and the caller sees ctx.Err().
func Grow(ctx context.Context, v *model.BinaryView, maxDepth int, s Config) (*model.Graph, float64) {
	root, errs := GrowTree(ctx, v, maxDepth, s)
	b := model.NewBuilder(v.Data, model.KindTree)
	var build func(n *Node) int
	build = func(n *Node) int {
		if n.Test < 0 {
			return b.Leaf(n.Class)
		}
		lo := build(n.Low)
		hi := build(n.High)
		return b.Split(v.Tests[n.Test], lo, hi)
	}
	return b.Graph(build(root)), errs
}

// GrowTree is Grow's tree as Nodes that name the view's tests by index,
// for callers that keep trees in their own form.
func GrowTree(ctx context.Context, v *model.BinaryView, maxDepth int, s Config) (*Node, float64) {
	c := &grower{ctx: ctx, v: v, minLeaf: max(s.MinLeaf, 1), nc: len(v.Class),
		hi: model.NewBitset(v.N), hc: make([]float64, len(v.Class)), lc: make([]float64, len(v.Class)),
		leafW: s.LeafCost * v.Data.TotalWeight(), nodesLeft: s.MaxNodes,
		complete: s.Complete && maxDepth >= 0, tests: s.Tests}
	if s.MaxNodes <= 0 || c.complete {
		c.nodesLeft = -1
	}
	if c.complete {
		c.minLeaf, c.leafW = 0, 0
	}
	if c.tests == nil {
		c.tests = make([]int, len(v.Tests))
		for t := range c.tests {
			c.tests[t] = t
		}
	}
	c.rootTests = c.tests
	if s.Root != nil {
		c.rootTests = nil
		for _, t := range c.tests {
			if t == *s.Root {
				c.rootTests = []int{t}
				break
			}
		}
	}
	if s.NoRepeat {
		c.used = make([]bool, len(v.Tests))
	}
	var all model.Bitset
	if s.Rows != nil {
		all = s.Rows.Clone()
	} else {
		all = model.FullBitset(v.N)
	}
	root, errs, _ := c.grow(all, maxDepth, c.rootTests, 0)
	return root, errs
}

type grower struct {
	ctx     context.Context
	v       *model.BinaryView
	minLeaf int // 0 in a complete tree: a side may be empty
	nc      int
	// tests are the tests a node may use (view indices), rootTests the
	// root's; used marks the tests of the path (NoRepeat; nil: repeats
	// allowed).
	tests, rootTests []int
	used             []bool
	complete         bool
	// scratch of the split scan: one bitset and two count vectors
	hi     model.Bitset
	hc, lc []float64
	stop   bool
	// leafW is λ·W, the cost of a leaf; nodesLeft the internal nodes
	// still allowed (-1: no limit).
	leafW     float64
	nodesLeft int
}

// stopped reports (and remembers) whether ctx has ended.
func (c *grower) stopped() bool {
	if !c.stop && c.ctx.Err() != nil {
		c.stop = true
	}
	return c.stop
}

// counts fills out with the weighted class counts of the rows in set.
func (c *grower) counts(set model.Bitset, out []float64) []float64 {
	d := c.v.Data
	if d.Weights == nil {
		for k, cb := range c.v.Class {
			out[k] = float64(model.AndCount(set, cb))
		}
		return out
	}
	clear(out)
	for wi, w := range set {
		for w != 0 {
			r := wi*64 + bits.TrailingZeros64(w)
			w &= w - 1
			out[d.Labels[r]] += d.Weights[r]
		}
	}
	return out
}

// grow grows the subtree of the rows in set (which it overwrites) with
// depth levels left, choosing among tests; parent is the parent's class,
// the prediction of a node no row reaches.
func (c *grower) grow(set model.Bitset, depth int, tests []int, parent int) (node *Node, errs float64, leaves int) {
	cnt := c.counts(set, make([]float64, c.nc))
	cls, leafErr := model.Majority(cnt)
	n := set.Count()
	if n == 0 {
		cls = parent
	}
	leaf := &Node{Test: -1, Class: cls}
	if depth == 0 || c.stopped() ||
		!c.complete && (leafErr == 0 || n < 2*c.minLeaf || c.nodesLeft == 0 || leafErr <= c.leafW) {
		return leaf, leafErr, 1
	}
	best, bestScore := -1, 0.0
	hi, hc, lc := c.hi, c.hc, c.lc
	// A test costs one pass over the rows' words: check ctx every so
	// many words (about a millisecond of work).
	every := max(1, (1<<18)/max(len(set), 1))
	for i, t := range tests {
		if i%every == 0 && c.stopped() {
			return leaf, leafErr, 1
		}
		if c.used != nil && c.used[t] {
			continue
		}
		if leafErr == 0 {
			// A pure or empty node (complete trees only): every test
			// scores 0, the first wins.
			best = t
			break
		}
		hi.And(set, c.v.True[t])
		nh := hi.Count()
		if nh < c.minLeaf || n-nh < c.minLeaf {
			continue
		}
		c.counts(hi, hc)
		for k := range lc {
			lc[k] = cnt[k] - hc[k]
		}
		score := model.Gini(hc) + model.Gini(lc)
		if best < 0 || score < bestScore-1e-12 {
			best, bestScore = t, score
		}
	}
	if best < 0 {
		return leaf, leafErr, 1
	}
	hiSet := model.NewBitset(c.v.N).And(set, c.v.True[best])
	loSet := set.AndNot(set, c.v.True[best]) // set is not used again
	left := c.nodesLeft
	if left > 0 {
		c.nodesLeft--
	}
	if c.used != nil {
		c.used[best] = true
	}
	lo, le, ll := c.grow(loSet, depth-1, c.tests, cls)
	hiN, he, hl := c.grow(hiSet, depth-1, c.tests, cls)
	if c.used != nil {
		c.used[best] = false
	}
	if !c.complete && le+he+c.leafW*float64(ll+hl) >= leafErr+c.leafW {
		// The split does not reduce the error (plus the leaves' cost): a
		// leaf predicts the same rows at least as well and is smaller.
		c.nodesLeft = left
		return leaf, leafErr, 1
	}
	return &Node{Test: best, Class: cls, Low: lo, High: hiN}, le + he, ll + hl
}
