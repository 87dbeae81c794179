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

func TestHeuristicIsAFeasibleUpperBound(t *testing.T) {
	d := randomBinary(3, 16, 3, 2)
	e, err := Encode(d, Options{Skeleton: []int{1, 2, 2}, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	inc := e.Heuristic(context.Background(), 20, 1)
	if inc == nil {
		t.Fatal("no heuristic diagram")
	}
	want := float64(inc.Graph.Errors(d))/float64(d.Rows()) + 0.01*float64(inc.Graph.InternalNodes()-1)/4
	if math.Abs(inc.Objective-want) > 1e-12 {
		t.Fatalf("heuristic objective %v, recomputed %v", inc.Objective, want)
	}
	sol := solve(t, e)
	if sol.Status != milp.StatusOptimal || sol.Objective > inc.Objective+1e-9 {
		t.Fatalf("MILP %s %v worse than the heuristic %v", sol.Status, sol.Objective, inc.Objective)
	}
	// With the heuristic's value as cutoff: a better diagram or a proof.
	cut, err := milp.HiGHS().Solve(context.Background(), e.Model, milp.Params{Cutoff: inc.Objective, HasCutoff: true})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case sol.Objective < inc.Objective-1e-6 && cut.Status != milp.StatusOptimal:
		t.Fatalf("a better diagram exists (%v < %v) but the cutoff solve says %s", sol.Objective, inc.Objective, cut.Status)
	case sol.Objective >= inc.Objective-1e-6 && cut.Status != milp.StatusInfeasible:
		t.Fatalf("the heuristic is optimal (%v) but the cutoff solve says %s %v", inc.Objective, cut.Status, cut.Objective)
	}
	t.Logf("heuristic %v (%d nodes), MILP %v", inc.Objective, inc.Nodes, sol.Objective)
}
