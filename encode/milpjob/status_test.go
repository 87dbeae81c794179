package milpjob

import (
	"context"
	"testing"
	"time"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// The status of every way a MILP run can end, independent of timing.
func TestStatus(t *testing.T) {
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
		{"infeasible after the deadline", expired, milp.Solution{Status: milp.StatusInfeasible}, false, false, model.StatusInfeasible},
		{"nothing found in time: the stop is named", live, milp.Solution{Status: milp.StatusNoSolution, TimeLimit: true}, false, false, model.StatusTimeLimit},
		{"nothing found before the deadline", expired, milp.Solution{Status: milp.StatusNoSolution}, false, false, model.StatusTimeLimit},
		{"nothing found, cancelled", cancelled, milp.Solution{Status: milp.StatusNoSolution}, false, false, model.StatusCancelled},
		{"HiGHS memory limit", live, milp.Solution{Status: milp.StatusFeasible, MemoryLimit: true, TimeLimit: true}, true, false, model.StatusMemory},
		{"HiGHS memory limit, nothing found", live, milp.Solution{Status: milp.StatusNoSolution, MemoryLimit: true}, false, false, model.StatusMemory},
		{"the solver ended with nothing", live, milp.Solution{Status: milp.StatusNoSolution}, false, false, model.StatusNoSolution},
	}
	for _, c := range cases {
		if got := Status(c.ctx, &c.sol, c.hasModel, c.optimal); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestHiGHSOptions(t *testing.T) {
	m, err := HiGHSOptions(" presolve = off, mip_rel_gap=0.1 ")
	if err != nil || len(m) != 2 || m["presolve"] != "off" || m["mip_rel_gap"] != "0.1" {
		t.Errorf("%v, %v", m, err)
	}
	if m, err := HiGHSOptions("  "); err != nil || m != nil {
		t.Errorf("empty: %v, %v", m, err)
	}
	for _, bad := range []string{"presolve", "=off", "presolve=", "a=1,,b=2"} {
		if _, err := HiGHSOptions(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
