package flowoct_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/model"
)

// TestLargeLeafCost: around and far above the single leaf's error share
// e/W (where one leaf becomes optimal), milp-flowoct proves dl85's
// optimum with its bound, also when run at depth 2 directly (no depth
// reduction) with a leaf cost of 1e300, which as a MILP coefficient HiGHS
// would read as infinite.
func TestLargeLeafCost(t *testing.T) {
	needHiGHS(t)
	for i, weighted := range []bool{false, true} {
		d := randomData(uint64(40+i), 24, 4, 3, false, weighted)
		_, e := model.Majority(d.ClassCounts())
		share := e / d.TotalWeight()
		for _, lambda := range []float64{share / 2, share * (1 - 1e-12), share, share * (1 + 1e-6), 1, 1e300} {
			p := model.Problem{MaxDepth: 2, LeafCost: lambda}
			want := run(t, dl85.Backend{}, d, p)
			got := run(t, flowoct.Backend{}, d, p)
			if !got.Optimal || math.Abs(got.Objective-want.Objective) > 1e-9*max(1, want.Objective) || got.LowerBound != got.Objective {
				t.Errorf("%s λ=%v (leaf share %v): milp-flowoct %v (optimal %v, bound %v, %s), dl85 %v",
					d.Name, lambda, share, got.Objective, got.Optimal, got.LowerBound, got.Status, want.Objective)
			}
		}
	}
}

// run solves p with the backend itself (no registry, no depth reduction).
func run(t *testing.T, b backend.Backend, d *model.Dataset, p model.Problem) *model.Result {
	t.Helper()
	job, err := backend.NewJob(b.Info(), d, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	job.Threads = 1
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := b.Solve(ctx, job)
	if err != nil {
		t.Fatalf("%s on %s λ=%v: %v", b.Info().Name, d.Name, p.LeafCost, err)
	}
	return res
}
