package backend_test

import (
	"context"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// TestSettle: the one status rule, from the facts a backend reports to
// the status and optimality it names, with and without trust in an
// external solver's claims.
func TestSettle(t *testing.T) {
	d := &model.Dataset{Name: "two", Classes: []string{"a", "b"}, Labels: []int{0, 1},
		Features: []model.Feature{{Name: "x", Values: []float64{0, 1}}}}
	b := model.NewBuilder(d, model.KindTree)
	g := b.Graph(b.Leaf(0)) // one error
	live := context.Background()
	expired, cancel := context.WithDeadline(live, time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(live)
	cancel2()
	bound := func(v float64) *float64 { return &v }
	const feasible, optimal = model.StatusFeasible, model.StatusOptimal
	for _, c := range []struct {
		name    string
		ctx     context.Context
		trusted bool
		res     model.Result
		status  model.Status
		optimal bool
		lb      float64
	}{
		{"proved", live, false, model.Result{Model: g, Objective: 1, Proved: true}, optimal, true, 1},
		{"proved, then stopped", expired, false, model.Result{Model: g, Objective: 1, Proved: true, Stop: model.StopTimeLimit}, optimal, true, 1},
		{"proved, unchecked", live, false, model.Result{Model: g, Objective: 1, Proved: true, Unchecked: true}, feasible, false, 0},
		{"proved on an untrusted claim", live, false, model.Result{Model: g, Objective: 1, Proved: true, ClaimedBound: bound(1), ClaimedBy: "x"}, feasible, false, 0},
		{"proved on a trusted claim", live, true, model.Result{Model: g, Objective: 1, Proved: true, ClaimedBound: bound(1), ClaimedBy: "x"}, optimal, true, 1},
		{"finished, bound met", live, false, model.Result{Model: g, Objective: 1, LowerBound: 1}, optimal, true, 1},
		{"finished with a gap", live, false, model.Result{Model: g, Objective: 1, LowerBound: 0.5, Stop: model.StopNone}, feasible, false, 0.5},
		{"stopped with the bound met", expired, false, model.Result{Model: g, Objective: 1, LowerBound: 1, Stop: model.StopTimeLimit}, optimal, true, 1},
		{"stopped below the objective", live, false, model.Result{Model: g, Objective: 1, LowerBound: 0.5, Stop: model.StopTimeLimit}, model.StatusTimeLimit, false, 0.5},
		{"gap stop", live, false, model.Result{Model: g, Objective: 1, LowerBound: 0.9, Stop: model.StopGap}, model.StatusGap, false, 0.9},
		{"gap stop, bound met", live, false, model.Result{Model: g, Objective: 1, LowerBound: 1, Stop: model.StopGap}, optimal, true, 1},
		{"memory stop", live, false, model.Result{Model: g, Objective: 1, Stop: model.StopMemory}, model.StatusMemory, false, 0},
		{"memory stop, no model", live, false, model.Result{Stop: model.StopMemory}, model.StatusMemory, false, 0},
		{"unchecked certificate bound", live, false, model.Result{Model: g, Objective: 1, LowerBound: 1, Unchecked: true, Stop: model.StopNone}, feasible, false, 1},
		{"unchecked certificate, stopped", cancelled, false, model.Result{Model: g, Objective: 1, LowerBound: 1, Unchecked: true}, model.StatusCancelled, false, 1},
		{"unchecked infeasibility", expired, false, model.Result{Infeasible: true, Unchecked: true}, model.StatusTimeLimit, false, 0},
		{"no model", live, false, model.Result{Errors: 3, Objective: 2, LowerBound: 1}, model.StatusNoSolution, false, 1},
		{"no model, deadline", expired, false, model.Result{}, model.StatusTimeLimit, false, 0},
		{"proven infeasible", live, false, model.Result{Infeasible: true, LowerBound: 3}, model.StatusInfeasible, false, 3},
		{"proven infeasible as the deadline passed", expired, false, model.Result{Infeasible: true}, model.StatusInfeasible, false, 0},
		{"unsaid stop, deadline", expired, false, model.Result{Model: g, Objective: 1}, model.StatusTimeLimit, false, 0},
		{"unsaid stop, cancelled", cancelled, false, model.Result{Model: g, Objective: 1}, model.StatusCancelled, false, 0},
		{"ended on its own after the deadline", expired, false, model.Result{Model: g, Objective: 1, Stop: model.StopNone}, feasible, false, 0},
		{"solver gave up before the deadline", live, false, model.Result{Model: g, Objective: 1, Stop: model.StopGaveUp}, model.StatusTimeLimit, false, 0},
		{"solver gave up, cancelled", cancelled, false, model.Result{Model: g, Objective: 1, Stop: model.StopGaveUp}, model.StatusCancelled, false, 0},
		{"untrusted claimed optimum", live, false, model.Result{Model: g, Objective: 1, ClaimedBound: bound(1), ClaimedBy: "x"}, feasible, false, 0},
		{"trusted claimed optimum", live, true, model.Result{Model: g, Objective: 1, ClaimedBound: bound(1), ClaimedBy: "x"}, optimal, true, 1},
		{"trusted claim raises the bound", live, true, model.Result{Model: g, Objective: 1, LowerBound: 0.2, ClaimedBound: bound(0.5), ClaimedBy: "x", Stop: model.StopNone}, feasible, false, 0.5},
		{"trusted claim above the objective", live, true, model.Result{Model: g, Objective: 1, ClaimedBound: bound(7), ClaimedBy: "x"}, optimal, true, 1},
		{"untrusted claimed infeasibility", live, false, model.Result{Infeasible: true, ClaimedBy: "x"}, model.StatusNoSolution, false, 0},
		{"trusted claimed infeasibility", live, true, model.Result{Infeasible: true, ClaimedBy: "x"}, model.StatusInfeasible, false, 0},
		{"untrusted claim with the own bound met", live, false, model.Result{Model: g, Objective: 1, LowerBound: 1, ClaimedBound: bound(1), ClaimedBy: "x"}, optimal, true, 1},
		// A status named by a backend is read as the fact it names.
		{"named optimal, stopped below", live, false, model.Result{Model: g, Objective: 1, LowerBound: 0.5, Optimal: true, Status: model.StatusTimeLimit}, model.StatusTimeLimit, false, 0.5},
		{"named optimal", live, false, model.Result{Model: g, Objective: 1, Optimal: true, Status: optimal}, optimal, true, 1},
		{"named optimal, untrusted claim", live, false, model.Result{Model: g, Objective: 1, Optimal: true, Status: optimal, ClaimedBound: bound(1), ClaimedBy: "x"}, feasible, false, 0},
		{"named infeasible", live, false, model.Result{Status: model.StatusInfeasible}, model.StatusInfeasible, false, 0},
	} {
		r := c.res
		backend.Settle(c.ctx, &r, c.trusted)
		if r.Status != c.status || r.Optimal != c.optimal || r.LowerBound != c.lb || r.TrustedSolver != c.trusted {
			t.Errorf("%s: status %s, optimal %v, bound %v, trusted %v; want %s, %v, %v", c.name, r.Status, r.Optimal, r.LowerBound, r.TrustedSolver, c.status, c.optimal, c.lb)
		}
		if r.Model == nil && (r.Errors != 0 || r.Objective != 0) {
			t.Errorf("%s: no model, but errors %d, objective %v", c.name, r.Errors, r.Objective)
		}
		// Settling again, even once the context is done, changes nothing.
		again := r
		backend.Settle(cancelled, &again, c.trusted)
		if again.Status != r.Status || again.Optimal != r.Optimal || again.LowerBound != r.LowerBound {
			t.Errorf("%s: settled again: status %s, optimal %v, bound %v; first %s, %v, %v", c.name, again.Status, again.Optimal, again.LowerBound, r.Status, r.Optimal, r.LowerBound)
		}
	}
}

// TestSettleReported: before the user's trust is known, a claimed bound
// raises nothing and a claimed infeasibility stands; a proof makes the
// model optimal, its status left to Settle, and a bound alone is left to
// Settle too; judging them later gives what Settle gives at once.
func TestSettleReported(t *testing.T) {
	d := &model.Dataset{Name: "two", Classes: []string{"a", "b"}, Labels: []int{0, 1},
		Features: []model.Feature{{Name: "x", Values: []float64{0, 1}}}}
	b := model.NewBuilder(d, model.KindTree)
	g := b.Graph(b.Leaf(0))
	one := 1.0
	for _, c := range []struct {
		name     string
		res      model.Result
		reported model.Status
		optimal  bool
	}{
		{"proved", model.Result{Model: g, Objective: 1, LowerBound: 1, Proved: true}, "", true},
		{"bound met", model.Result{Model: g, Objective: 1, LowerBound: 1}, model.StatusFeasible, false},
		{"proved on a claim", model.Result{Model: g, Objective: 1, LowerBound: 0.5, Proved: true, ClaimedBound: &one, ClaimedBy: "x"}, "", true},
	} {
		r := c.res
		backend.SettleReported(context.Background(), &r)
		if r.Optimal != c.optimal || r.Status != c.reported {
			t.Errorf("%s reported: optimal %v, status %q", c.name, r.Optimal, r.Status)
		}
		want := c.res.ClaimedBy == "" // a proof on a claim is not optimal untrusted
		if backend.Settle(context.Background(), &r, false); r.Optimal != want || (r.Status == model.StatusOptimal) != want {
			t.Errorf("%s settled: optimal %v, status %q", c.name, r.Optimal, r.Status)
		}
	}
	for _, c := range []struct {
		name             string
		res              model.Result
		reported         model.Status
		untrusted, trust model.Status
	}{
		{"claimed optimum", model.Result{Model: g, Objective: 1, ClaimedBound: &one, ClaimedBy: "x"},
			model.StatusFeasible, model.StatusFeasible, model.StatusOptimal},
		{"claimed infeasibility", model.Result{Infeasible: true, ClaimedBy: "x"},
			model.StatusInfeasible, model.StatusNoSolution, model.StatusInfeasible},
	} {
		for trusted, want := range map[bool]model.Status{false: c.untrusted, true: c.trust} {
			r := c.res
			backend.SettleReported(context.Background(), &r)
			if r.Status != c.reported || r.Optimal || r.LowerBound != 0 || r.ClaimedBy == "" {
				t.Errorf("%s reported: status %s, optimal %v, bound %v, claim %q", c.name, r.Status, r.Optimal, r.LowerBound, r.ClaimedBy)
			}
			backend.Settle(context.Background(), &r, trusted)
			direct := c.res
			backend.Settle(context.Background(), &direct, trusted)
			if r.Status != want || direct.Status != want || r.Optimal != direct.Optimal {
				t.Errorf("%s, trusted %v: %s after reporting, %s at once; want %s", c.name, trusted, r.Status, direct.Status, want)
			}
		}
	}
}
