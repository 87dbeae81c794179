//go:build highs

package odd

import (
	"context"
	"math"
	"testing"

	"github.com/odtkit/odtkit/milp"
)

func solve(t *testing.T, e *Encoding) *milp.Solution {
	t.Helper()
	sol, err := milp.HiGHS().Solve(context.Background(), e.Model, milp.Params{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return sol
}

func TestTreeSpecialCaseMatchesExhaustiveSearch(t *testing.T) {
	for seed := range uint64(6) {
		depth := 1 + int(seed%2)
		d := randomBinary(seed, 20+int(seed)*6, 4, 2+int(seed%3)/2)
		e, err := Encode(d, Options{Skeleton: TreeSkeleton(depth), Tree: true})
		if err != nil {
			t.Fatal(err)
		}
		sol := solve(t, e)
		if sol.Status != milp.StatusOptimal {
			t.Fatalf("seed %d: status %s", seed, sol.Status)
		}
		g, err := e.Decode(sol.X)
		if err != nil {
			t.Fatal(err)
		}
		want := bestTreeErrors(d, allRows(d), depth)
		if got := g.Errors(d); got != want {
			t.Fatalf("seed %d depth %d: MILP tree makes %d errors, the optimum is %d\n%s", seed, depth, got, want, g.Text())
		}
		if math.Abs(sol.Objective-float64(want)/float64(d.Rows())) > 1e-6 {
			t.Fatalf("seed %d: MILP objective %v, errors/n %v", seed, sol.Objective, float64(want)/float64(d.Rows()))
		}
		if g.Depth() > depth {
			t.Fatalf("depth %d > %d", g.Depth(), depth)
		}
	}
}
