package odd

import (
	"testing"

	"github.com/odtkit/odtkit/milp"
)

// When the best diagram counts as proven optimal.
func TestMILPProven(t *testing.T) {
	opt := &milp.Solution{Status: milp.StatusOptimal, Objective: 0.25}
	cases := []struct {
		name                  string
		sol                   *milp.Solution
		hasCutoff, consistent bool
		best                  float64
		want                  bool
	}{
		{"cutoff proven infeasible: the heuristic's diagram is optimal", &milp.Solution{Status: milp.StatusInfeasible}, true, false, 0.3, true},
		{"infeasible without a cutoff proves nothing about a diagram", &milp.Solution{Status: milp.StatusInfeasible}, false, false, 0.3, false},
		{"optimal, decoded to the same objective", opt, true, true, 0.25, true},
		{"optimal, but the decoded diagram differs (misrouted row)", opt, true, false, 0.25, false},
		{"optimal, best diagram worse than the optimum", opt, true, true, 0.3, false},
		{"optimal, HiGHS's objective a rounding below the diagram's", &milp.Solution{Status: milp.StatusOptimal, Objective: 0.119999997}, true, true, 0.12, true},
		{"time limit with a solution", &milp.Solution{Status: milp.StatusFeasible, Objective: 0.25, TimeLimit: true}, true, true, 0.25, false},
		{"time limit, nothing beyond the cutoff yet", &milp.Solution{Status: milp.StatusNoSolution, TimeLimit: true}, true, false, 0.3, false},
	}
	for _, c := range cases {
		if got := milpProven(c.sol, c.hasCutoff, c.consistent, c.best); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
