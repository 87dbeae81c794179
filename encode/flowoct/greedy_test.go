package flowoct_test

import (
	"context"
	"testing"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/model"
)

// TestGreedyIsCartsTree: the MIP start of the plain form is cart's
// complete tree over the encoding's tests (every internal node tests,
// cart's errors); the general form's is cart's tree within the node cap
// and min support. Both are points of their MILP.
func TestGreedyIsCartsTree(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(6) {
		d := randomData(100+seed, 60+int(seed)*10, 4, 2+int(seed%2), seed%2 == 0, seed%3 == 0)
		v := model.Binarize(d)
		for _, o := range []flowoct.Options{
			{Depth: 2, Tight: true},
			{Depth: 3},
			{Depth: 2, MaxInternal: 1, MinSupport: 5},
			{Depth: 3, MinSupport: 8},
			{Depth: 2, LeafCost: 0.02},
		} {
			e, err := flowoct.Encode(ctx, v, o)
			if err != nil {
				t.Fatal(err)
			}
			tr := e.Greedy()
			g, err := e.Graph(tr)
			if err != nil {
				t.Fatal(err)
			}
			general := o.MaxInternal > 0 || o.MinSupport > 1 || o.LeafCost > 0
			cfg := cart.Config{Tests: e.Tests, Complete: true}
			if general {
				cfg = cart.Config{Tests: e.Tests, MaxNodes: o.MaxInternal, MinLeaf: o.MinSupport, LeafCost: o.LeafCost}
			}
			// The plan may lower the depth; the graph merges leaves of one
			// class, which only cart's pruned tree has none of.
			want, _ := cart.Grow(ctx, v, e.Opts.Depth, cfg)
			if got, w := g.WeightedErrors(d), want.WeightedErrors(d); got != w || general && g.Leaves() != want.Leaves() {
				t.Errorf("%s %+v: %v errors, %d leaves; cart %v, %d", d.Name, o, got, g.Leaves(), w, want.Leaves())
			}
			if !general {
				for n, j := range tr.Test {
					if j < 0 {
						t.Errorf("%s %+v: internal node %d tests nothing", d.Name, o, n)
					}
				}
			}
			if o.MaxInternal > 0 && g.InternalNodes() > o.MaxInternal {
				t.Errorf("%s %+v: %d internal nodes", d.Name, o, g.InternalNodes())
			}
			if o.MinSupport > 1 {
				rows := map[int]int{}
				for r := range d.Rows() {
					rows[g.Leaf(d, r)]++
				}
				for leaf, n := range rows {
					if n < o.MinSupport {
						t.Errorf("%s %+v: leaf %d holds %d rows", d.Name, o, leaf, n)
					}
				}
			}
			if x, ok := e.Point(tr); !ok || e.Model.CheckPoint(x, 1e-9) != nil {
				t.Errorf("%s %+v: the greedy tree is not a point of the MILP", d.Name, o)
			}
		}
	}
}
