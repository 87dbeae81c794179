package odd

import (
	"context"
	"testing"
	"time"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
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

// The status of every way a MILP run can end, independent of timing.
func TestMILPStatusMapping(t *testing.T) {
	live := context.Background()
	expired, cancel := context.WithDeadline(live, time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(live)
	cancel2()
	cases := []struct {
		name     string
		ctx      context.Context
		sol      milp.Solution
		hasModel bool
		optimal  bool
		want     model.Status
	}{
		{"proven", live, milp.Solution{Status: milp.StatusOptimal}, true, true, model.StatusOptimal},
		{"cutoff proven infeasible", live, milp.Solution{Status: milp.StatusInfeasible}, true, true, model.StatusOptimal},
		{"HiGHS time limit before the deadline", live, milp.Solution{Status: milp.StatusFeasible, TimeLimit: true}, true, false, model.StatusTimeLimit},
		{"HiGHS time limit, nothing beyond the cutoff", live, milp.Solution{Status: milp.StatusNoSolution, TimeLimit: true}, true, false, model.StatusTimeLimit},
		{"deadline passed", expired, milp.Solution{Status: milp.StatusFeasible}, true, false, model.StatusTimeLimit},
		{"deadline passed, solver abandoned", expired, milp.Solution{Status: milp.StatusNoSolution}, true, false, model.StatusTimeLimit},
		{"cancelled", cancelled, milp.Solution{Status: milp.StatusNoSolution}, true, false, model.StatusCancelled},
		{"stopped at the gap", live, milp.Solution{Status: milp.StatusFeasible}, true, false, model.StatusFeasible},
		{"optimal MILP but decoded worse", live, milp.Solution{Status: milp.StatusOptimal}, true, false, model.StatusFeasible},
		{"infeasible", live, milp.Solution{Status: milp.StatusInfeasible}, false, false, model.StatusInfeasible},
		{"nothing found in time", live, milp.Solution{Status: milp.StatusNoSolution, TimeLimit: true}, false, false, model.StatusNoSolution},
	}
	for _, c := range cases {
		if got := milpStatus(c.ctx, &c.sol, c.hasModel, c.optimal); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
