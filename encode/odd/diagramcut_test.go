//go:build highs

package odd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// randomLevels returns n rows of f features with values 0..levels−1 and
// a noisy label that depends on the first two.
func randomLevels(seed uint64, n, f, classes, levels int) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 7))
	d := emptyData(fmt.Sprintf("lev%d", seed), n, f, classes)
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(levels))
		}
		l := int(d.Features[0].Values[i]+2*d.Features[1%f].Values[i]) % classes
		if r.IntN(5) == 0 {
			l = r.IntN(classes)
		}
		d.Labels = append(d.Labels, l)
	}
	return d
}

// The diagram search's least objective is the optimum of the MILP
// (without the diagram cut) and its diagram has that objective, on
// skeletons of depth 2 and 3 of every shape, with and without node
// costs, row costs and a margin that forbids some thresholds.
func TestDiagramSearchMatchesTheMILP(t *testing.T) {
	skeletons := [][]int{{1, 2}, {1, 1}, {1, 3}, {1, 2, 2}, {1, 1, 2}, {1, 2, 1}, {1, 2, 3}, {1, 3, 2}, {1, 1, 1}}
	alphas := []float64{0, 0.05, 0.3}
	checked := 0
	for i, sk := range skeletons {
		for k, alpha := range alphas {
			seed := uint64(10*i + k)
			d := randomLevels(seed, 9+int(seed%5), 2+int(seed%2), 2+int(seed%3)/2, 3+int(seed%3))
			// The other strengthenings keep the optimum
			// (TestStrengtheningsKeepTheOptimum) and make the MILP fast.
			o := Options{Skeleton: sk, Alpha: alpha, FirstLayerOrder: true, ErrorCuts: true, PairCut: true, CountCut: true}
			switch seed % 4 {
			case 1:
				o.RowCost = make([]float64, d.Rows())
				for r := range o.RowCost {
					o.RowCost[r] = float64(1+r%3) / 10
				}
			case 2:
				o.Epsilon = 0.3 // forbids the thresholds of columns of 5 values
			}
			e, err := Encode(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			sol := solve(t, e)
			t.Logf("%s %v α=%v: %.2fs", d.Name, sk, alpha, time.Since(start).Seconds())
			s := e.newDiagramSearch(context.Background(), e.newGroupView())
			bound, finished := s.run()
			if !finished {
				t.Fatalf("%s %v: the search did not finish", d.Name, sk)
			}
			if math.Abs(bound-sol.Objective) > 1e-6 {
				t.Fatalf("%s %v α=%v %+v: search %v, MILP %v", d.Name, sk, alpha, o, bound, sol.Objective)
			}
			layers := s.layers()
			inc := e.incumbent(layers)
			if inc == nil || math.Abs(inc.Objective-bound) > 1e-9 {
				t.Fatalf("%s %v: the search's diagram is not its objective %v: %+v", d.Name, sk, bound, inc)
			}
			if err := e.Model.CheckPoint(e.point(layers), 1e-6); err != nil {
				t.Fatalf("%s %v: the search's diagram is not a point of the MILP: %v", d.Name, sk, err)
			}
			checked++
		}
	}
	if checked != len(skeletons)*len(alphas) {
		t.Fatalf("%d cases checked", checked)
	}
}
