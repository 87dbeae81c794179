package odtkit

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// The DP backends agree on the sparse objective and on node limits, on
// data larger than brute force takes; and a node limit that a complete
// tree of the depth meets (2^d−1 internal nodes), which runs the
// (branch, depth, budget) program, finds the same error as each
// backend's own engine without the limit.
func TestSparseCrossCheck(t *testing.T) {
	names := []string{"dl85", "cadl85", "blossom", "contree"}
	rng := rand.New(rand.NewPCG(14, 3))
	for i := range 4 {
		d := modeltest.Numeric(80+20*i, 4, uint64(2+i))
		for j := range d.Features {
			for r := range d.Features[j].Values {
				d.Features[j].Values[r] = math.Round(d.Features[j].Values[r] * 4) // a few thresholds each
			}
		}
		depth := 2 + i%2
		problems := []model.Problem{
			{MaxDepth: depth, LeafCost: []float64{0.005, 0.01, 0.03}[rng.IntN(3)]},
			{MaxDepth: depth, MaxNodes: 1 + rng.IntN(3)},
			{MaxDepth: depth, MaxNodes: 2, LeafCost: 0.01},
			{MaxDepth: depth, MaxNodes: 1<<depth - 1},
		}
		for _, p := range problems {
			want := math.NaN()
			for _, name := range names {
				res, err := Solve(context.Background(), d, p, Settings{Backend: name})
				if err != nil || !res.Optimal {
					t.Fatalf("%s %+v: %v (%+v)", name, p, err, res)
				}
				if math.IsNaN(want) {
					want = res.Objective
				} else if math.Abs(res.Objective-want) > 1e-9 {
					t.Errorf("data %d %s %+v: objective %v, %s found %v", i, name, p, res.Objective, names[0], want)
				}
				if p.LeafCost == 0 && p.MaxNodes == 1<<depth-1 {
					plain, err := Solve(context.Background(), d, model.Problem{Objective: model.MinError, MaxDepth: depth}, Settings{Backend: name})
					if err != nil || plain.Objective != res.Objective {
						t.Errorf("data %d %s: own engine %v (%v), with a complete-tree node limit %v", i, name, plain.Objective, err, res.Objective)
					}
				}
			}
		}
	}
}
