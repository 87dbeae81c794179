package cart

import (
	"context"
	"math/bits"

	"github.com/odtkit/odtkit/model"
)

// Config controls the greedy baseline. The zero value means depth
// limit from the problem, minimum leaf size 1.
type Config struct {
	// MinLeaf is the least number of rows in a leaf (at least 1; the
	// problem's min support is used when larger).
	MinLeaf int
	// LeafCost (λ) charges λ × the total weight per leaf: a split is kept
	// only when its subtrees' errors plus their leaves' cost are below
	// the leaf's (0: kept when it lowers the error).
	LeafCost float64
	// MaxNodes stops splitting once that many internal nodes are used
	// (0: no limit). Nodes are split depth-first, low branch first, in
	// the order the greedy growth visits them, so the limit cuts the
	// high branches of the deepest levels first; a split later replaced
	// by a leaf gives its nodes back.
	MaxNodes int
}

// Grow grows a tree top-down on the binary view, choosing at every node
// the test with the lowest weighted Gini impurity of its two sides (ties:
// lowest test index), down to maxDepth levels or until a node is pure or
// too small to split with MinLeaf rows per side. A split whose subtrees
// make no fewer errors than a leaf is replaced by that leaf (a smaller
// tree, never a worse training error). It is deterministic and returns the tree with its weighted training error.
//
// Memory is a few bitsets per level beyond the view. When ctx ends the
// nodes not yet split stay leaves: the tree returned is still valid and
// its error exact, and the caller sees ctx.Err().
func Grow(ctx context.Context, v *model.BinaryView, maxDepth int, s Config) (*model.Graph, float64) {
	minLeaf := max(s.MinLeaf, 1)
	c := &grower{ctx: ctx, v: v, minLeaf: minLeaf, nc: len(v.Class), b: model.NewBuilder(v.Data, model.KindTree),
		hi: model.NewBitset(v.N), hc: make([]float64, len(v.Class)), lc: make([]float64, len(v.Class)),
		leafW: s.LeafCost * v.Data.TotalWeight(), nodesLeft: s.MaxNodes}
	if s.MaxNodes <= 0 {
		c.nodesLeft = -1
	}
	all := model.FullBitset(v.N)
	root, errs, _ := c.grow(all, maxDepth)
	return c.b.Graph(root), errs
}

type grower struct {
	ctx     context.Context
	v       *model.BinaryView
	minLeaf int
	nc      int
	b       *model.Builder
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

// majority returns the class with the largest count (lowest index on
// ties) and the weight of the other rows.
func majority(cnt []float64) (int, float64) { return model.Majority(cnt) }

func (c *grower) grow(set model.Bitset, depth int) (node int, errs float64, leaves int) {
	cnt := c.counts(set, make([]float64, c.nc))
	cls, leafErr := majority(cnt)
	n := set.Count()
	if depth == 0 || leafErr == 0 || n < 2*c.minLeaf || c.nodesLeft == 0 || leafErr <= c.leafW || c.stopped() {
		return c.b.Leaf(cls), leafErr, 1
	}
	best, bestScore := -1, 0.0
	hi, hc, lc := c.hi, c.hc, c.lc
	// A test costs one pass over the rows' words: check ctx every so
	// many words (about a millisecond of work).
	every := max(1, (1<<18)/max(len(set), 1))
	for t := range c.v.Tests {
		if t%every == 0 && c.stopped() {
			return c.b.Leaf(cls), leafErr, 1
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
		return c.b.Leaf(cls), leafErr, 1
	}
	hiSet := model.NewBitset(c.v.N).And(set, c.v.True[best])
	loSet := set.AndNot(set, c.v.True[best]) // set is not used again
	left := c.nodesLeft
	if left > 0 {
		c.nodesLeft--
	}
	lo, le, ll := c.grow(loSet, depth-1)
	hiN, he, hl := c.grow(hiSet, depth-1)
	if le+he+c.leafW*float64(ll+hl) >= leafErr+c.leafW {
		// The split does not reduce the error (plus the leaves' cost): a
		// leaf predicts the same rows at least as well and is smaller.
		c.nodesLeft = left
		return c.b.Leaf(cls), leafErr, 1
	}
	return c.b.Split(c.v.Tests[best], lo, hiN), le + he, ll + hl
}
