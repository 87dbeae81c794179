package oct_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/encode/oct"
	"github.com/odtkit/odtkit/model"
)

// TestWitnessIsAPoint: the one-leaf witness is a point of the MILP
// (published and aggregated, with weights, a minimum leaf size, a leaf
// cost and a cap on the splits) whose tree makes the majority class's
// errors; with more N_min than rows there is none.
func TestWitnessIsAPoint(t *testing.T) {
	cases := []oct.Options{
		{Depth: 0}, {Depth: 1}, {Depth: 2}, {Depth: 3, Aggregate: true},
		{Depth: 2, MinSupport: 4, LeafCost: 0.05, MaxSplits: 2}, {Depth: 2, MinSupport: 3, Aggregate: true},
	}
	for i, o := range cases {
		d := randomData(uint64(40+i), 10, 2, 2+i%2, i%2 == 1)
		e := oct.Plan(d, o)
		if err := e.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		x := e.Witness()
		if x == nil {
			t.Fatalf("%+v: no witness", o)
		}
		if err := e.Model.CheckPoint(x, 1e-9); err != nil {
			t.Fatalf("%+v: the witness is not a point: %v", o, err)
		}
		g, err := e.Decode(x)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		_, want := model.Majority(d.ClassCounts())
		if g.InternalNodes() != 0 || math.Abs(g.WeightedErrors(d)-want) > 1e-9 {
			t.Errorf("%+v: the witness is a tree of %d splits and %v errors, want one leaf of %v", o, g.InternalNodes(), g.WeightedErrors(d), want)
		}
	}
	e := oct.Plan(randomData(1, 5, 2, 2, false), oct.Options{Depth: 1, MinSupport: 6})
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if x := e.Witness(); x != nil {
		t.Errorf("a witness with N_min above the rows")
	}
}

// TestDecodeRefusesFalseInfeasible: a solution file that says
// "infeasible" without a point is refused when a tree of one leaf meets
// the minimum leaf size, and taken as the solver's claim (no solution,
// unless the solver is trusted) when none does.
func TestDecodeRefusesFalseInfeasible(t *testing.T) {
	d := randomData(3, 8, 2, 2, false)
	s := odtkit.Settings{Backend: "milp-oct"}
	answer := "Model status\nInfeasible\n"
	_, err := odtkit.Decode(context.Background(), strings.NewReader(answer), d, model.Problem{MaxDepth: 2, MinSupport: 3}, s)
	if !errors.Is(err, milpjob.ErrRefutedInfeasible) {
		t.Errorf("a false infeasibility: got %v, want ErrRefutedInfeasible", err)
	}
	res, err := odtkit.Decode(context.Background(), strings.NewReader(answer), d, model.Problem{MaxDepth: 2, MinSupport: 9}, s)
	if err != nil || res.Model != nil || res.ClaimedBy == "" {
		t.Fatalf("an infeasibility no tree refutes: got %v, %v; want the solver's claim", res, err)
	}
	if res.Status != model.StatusNoSolution {
		t.Errorf("an untrusted claim of infeasibility: status %s, want %s", res.Status, model.StatusNoSolution)
	}
}
