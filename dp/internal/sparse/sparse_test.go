package sparse

import (
	"context"
	"math"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// A cancelled search claims no optimality and still returns a valid tree
// within the limits; a finished one reports the cost of its tree.
func TestSolveStopsAndCosts(t *testing.T) {
	d := modeltest.Numeric(200, 4, 5)
	for _, f := range d.Features {
		for r := range f.Values {
			f.Values[r] = math.Round(f.Values[r] * 4) // a few thresholds per column
		}
	}
	v := model.Binarize(d)
	cfg := Config{MaxDepth: 3, MaxNodes: 4, LeafCost: 0.01}
	r := Solve(context.Background(), v, cfg)
	if !r.Optimal || r.Tree == nil {
		t.Fatalf("not solved: %+v", r)
	}
	if got := r.Tree.WeightedErrors(d) + 0.01*d.TotalWeight()*float64(r.Tree.Leaves()); got-r.Cost > 1e-9 || r.Cost-got > 1e-9 {
		t.Errorf("cost %v, the tree's %v", r.Cost, got)
	}
	if r.Tree.InternalNodes() > 4 || r.Tree.Depth() > 3 {
		t.Errorf("tree beyond the limits: %d internal nodes, depth %d", r.Tree.InternalNodes(), r.Tree.Depth())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := Solve(ctx, v, Config{MaxDepth: 4, MaxNodes: 9})
	if s.Optimal || s.Tree == nil || s.Tree.Validate() != nil || s.Tree.InternalNodes() > 9 {
		t.Errorf("cancelled: optimal %v, tree %v", s.Optimal, s.Tree)
	}
}
