package sparse

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// BenchmarkWorkers solves cp4im cells with a leaf cost at 1 and 2
// workers and reports wall and CPU seconds of each and the speed-up
// (skipped without ../shared):
//
//	go test -run '^$' -bench Workers -benchtime 1x ./dp/internal/sparse
func BenchmarkWorkers(b *testing.B) {
	dir := shared.Dir(b, "data/cp4im")
	for _, c := range []struct {
		file  string
		depth int
		cost  float64
	}{{"vote", 4, 0.002}, {"german-credit", 3, 0.002}, {"anneal", 4, 0.001}} {
		b.Run(fmt.Sprintf("%s/d%d", c.file, c.depth), func(b *testing.B) {
			d, err := model.ReadFile(filepath.Join(dir, "data/cp4im", c.file+".txt"), model.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			v := model.Binarize(d)
			var tt dptest.Threads
			var cost [2]float64
			for b.Loop() {
				for i, w := range []int{1, 2} {
					_ = tt.Measure(i, func() error {
						cost[i] = Solve(context.Background(), v, Config{MaxDepth: c.depth, LeafCost: c.cost, Workers: w}).Cost
						return nil
					})
				}
			}
			if cost[0] != cost[1] {
				b.Fatalf("cost %v at 1 worker, %v at 2", cost[0], cost[1])
			}
			tt.Report(b)
		})
	}
}
