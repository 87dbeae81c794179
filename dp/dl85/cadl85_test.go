package dl85

import (
	"context"
	"math"
	"testing"
)

func TestCADL85Schedules(t *testing.T) {
	want := []int{1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1}
	for i, w := range want {
		if got := lubyTerm(i + 1); got != w {
			t.Fatalf("luby(%d) = %d, want %d", i+1, got, w)
		}
	}
	l := &Luby{Delta: 2}
	cur := 0.0
	for i := range 7 {
		cur = l.Next(cur)
		_ = i
	}
	if cur != 2*(1+1+2+1+1+2+4) {
		t.Fatalf("luby schedule reached %v", cur)
	}
	e := Exponential{Delta: 3}
	if e.Next(0) != 3 || e.Next(3) != 6 {
		t.Fatalf("exponential: 0 -> %v, 3 -> %v", e.Next(0), e.Next(3))
	}
	if (Monotonic{Delta: 0.5}).Next(1) != 1.5 {
		t.Fatal("monotonic")
	}
	if _, err := NewSchedule("luby", 0); err == nil {
		t.Fatal("zero step accepted")
	}
}

func TestCADL85RuleSemantics(t *testing.T) {
	// Purity is capped at 1 and then cannot relax.
	p := &Purity{MinPurity: 0.9, Schedule: Exponential{Delta: 0.1}}
	if !p.Relax() || p.MinPurity != 1 || p.Relax() {
		t.Fatalf("purity relaxed to %v", p.MinPurity)
	}
	if p.Prune(PurityState{Purity: 0.99}) {
		t.Fatal("fully relaxed purity prunes")
	}
	// Discrepancy prunes strictly above the budget; 0 keeps the greedy path.
	dr := &Discrepancy{Schedule: Exponential{Delta: 1}}
	s := dr.Update(dr.InitialState(Context{}), Context{Index: 0})
	if dr.Prune(s) || !dr.Prune(dr.Update(s, Context{Index: 1})) {
		t.Fatal("discrepancy 0 must keep index 0 and prune index 1")
	}
	if dr.Relax(); dr.MaxDiscrepancy != 1 {
		t.Fatalf("exponential relaxation of 0 gave %d, want the step 1", dr.MaxDiscrepancy)
	}
	if dr.Prune(dr.TerminalState(DiscrepancyState{Total: 99})) {
		t.Fatal("terminal state pruned")
	}
	// Top-k* halves k per level, at least 1.
	tk := &TopK{K: 8, Halving: true, Schedule: Monotonic{Delta: 1}}
	for _, c := range []struct {
		idx, depth int
		prune      bool
	}{{7, 0, false}, {8, 0, true}, {3, 1, false}, {4, 1, true}, {0, 5, false}, {1, 5, true}} {
		if got := tk.Prune(tk.Update(TopKState{}, Context{Index: c.idx, Depth: c.depth})); got != c.prune {
			t.Fatalf("top-k* k=8 index %d depth %d: prune %v", c.idx, c.depth, got)
		}
	}
	// Gain accumulates the gap to the best gain.
	g := &Gain{Schedule: Monotonic{Delta: 0.1}}
	gs := g.Update(g.InitialState(Context{}), Context{Gain: 0.2, BestGain: 0.3})
	gs = g.Update(gs, Context{Gain: 0.1, BestGain: 0.15})
	if math.Abs(gs.CumGap-0.15) > 1e-12 || !g.Prune(gs) {
		t.Fatalf("gain state %+v", gs)
	}
}

// TestCADL85FirstRestartGreedy checks that the initial rules (discrepancy
// 0, k = 1, gap 0) stop after one restart with a tree no worse than the
// greedy path they follow, and that it is not the optimum's proof.
func TestCADL85FirstRestartGreedy(t *testing.T) {
	v := dl85Load(t, "australian-credit")
	for _, rule := range []string{"discrepancy", "topk", "topk*", "gain"} {
		r, err := SolveNamed(context.Background(), v, Spec{Rule: rule}, Config{MaxDepth: 3, NoDepth2: true, MaxRestarts: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Optimal || r.Stats["restarts"].(int) != 1 {
			t.Fatalf("%s: one restart claims optimal=%v after %v restarts", rule, r.Optimal, r.Stats["restarts"])
		}
		if got := r.Tree.WeightedErrors(v.Data); got != r.Error || r.Error < 73 {
			t.Fatalf("%s: error %v (tree %v), optimum 73", rule, r.Error, got)
		}
	}
}

// TestDL85Deterministic checks that two runs give the same tree.
func TestDL85Deterministic(t *testing.T) {
	v := dl85Load(t, "vote")
	var first string
	for i := range 3 {
		r, err := SolveNamed(context.Background(), v, Spec{Rule: "topk", Relax: "luby"}, Config{MaxDepth: 3})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := Solve(context.Background(), v, Config{MaxDepth: 3})
		if err != nil {
			t.Fatal(err)
		}
		txt := r.Tree.Text() + r2.Tree.Text()
		if i == 0 {
			first = txt
		} else if txt != first {
			t.Fatal("runs differ")
		}
	}
}
