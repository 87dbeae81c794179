package flowoct

import (
	"context"

	"github.com/odtkit/odtkit/dp/cart"
)

// Greedy is cart's greedy tree (dp/cart) on the encoding's rows and tests,
// in the encoding's form: in the plain form the complete tree of the
// depth (every internal node tests), in the general form cart's pruned
// tree with the min support as its min leaf, the node cap and the leaf
// cost. It is a MIP start, not an optimum.
func (e *Encoding) Greedy() Tree { return e.greedy(-1) }

// greedy is Greedy with the root's test fixed to Tests[root] when root ≥ 0.
func (e *Encoding) greedy(root int) Tree {
	t := Tree{Test: make([]int, e.nInt), Class: make([]int, e.nNodes)}
	for n := range t.Test {
		t.Test[n] = -1
	}
	for n := range t.Class {
		t.Class[n] = -1
	}
	tests := e.Tests
	if tests == nil {
		tests = []int{} // none (nil would be all the view's)
	}
	cfg := cart.Config{Rows: e.Opts.Rows, Tests: tests}
	if root >= 0 {
		cfg.Root = &e.Tests[root]
	}
	if e.Opts.general() {
		cfg.MinLeaf, cfg.MaxNodes = e.Opts.MinSupport, e.Opts.MaxInternal
		if w := e.View.Data.TotalWeight(); e.Opts.LeafCost > 0 && w > 0 {
			// The objective is errors·scale + λ·leaves; cart charges a
			// leaf LeafCost·w errors.
			cfg.LeafCost = e.Opts.LeafCost / (e.scale() * w)
		}
	} else {
		cfg.Complete = true
	}
	tree, _ := cart.GrowTree(context.Background(), e.View, e.Opts.Depth, cfg)
	index := make(map[int]int, len(e.Tests))
	for j, vt := range e.Tests {
		index[vt] = j
	}
	var put func(n int, nd *cart.Node)
	put = func(n int, nd *cart.Node) {
		if nd.Test < 0 {
			t.Class[n] = nd.Class
			return
		}
		t.Test[n] = index[nd.Test]
		put(2*n+1, nd.Low)
		put(2*n+2, nd.High)
	}
	put(0, tree)
	return t
}
