package flowoct_test

import (
	"context"
	"testing"

	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/model"
)

// Size counts exactly the columns, rows and non-zeros Build writes, in
// every form: plain, general (leaf cost, node limit, perfect-tree
// objectives), min support and Benders.
func TestSizeExact(t *testing.T) {
	forms := map[string]flowoct.Options{
		"plain":       {},
		"leaf cost":   {LeafCost: 0.01},
		"node limit":  {MaxInternal: 2},
		"min support": {MinSupport: 3},
		"nodes":       {Objective: flowoct.Nodes},
		"feasible":    {Objective: flowoct.Feasible},
		"benders":     {Benders: true},
		"tight":       {Tight: true},
	}
	for _, k := range []int{2, 3} {
		for _, numeric := range []bool{false, true} {
			v := model.Binarize(randomData(uint64(k), 40, 4, k, numeric, false))
			for name, o := range forms {
				for depth := range 4 {
					o.Depth = depth
					e, err := flowoct.Plan(context.Background(), v, o)
					if err != nil {
						t.Fatal(err)
					}
					want := e.Estimate(false)
					if err := e.Build(context.Background()); err != nil {
						t.Fatal(err)
					}
					m := e.Model
					if want.Variables != int64(len(m.Columns)) || want.Constraints != int64(len(m.Rows)) || want.NonZeros != int64(m.NumNonzeros()) {
						t.Errorf("%s, k=%d, numeric %v, depth %d: size %d columns, %d rows, %d non-zeros; built %d, %d, %d",
							name, k, numeric, depth, want.Variables, want.Constraints, want.NonZeros, len(m.Columns), len(m.Rows), m.NumNonzeros())
					}
				}
			}
		}
	}
}
