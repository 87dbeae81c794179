package bench

import (
	"slices"
	"strings"
	"testing"
)

// goalRun is a run of backend b that optimised objective goal.
func goalRun(b, goal string, obj float64, optimal bool) Run {
	r := run("iris", b, 0, obj, optimal)
	r.ObjectiveName = goal
	return r
}

// TestSummarizeComparesWithinObjective: proven optima are compared only
// between runs of the same objective: a min-depth optimum never against a
// min-size one, and a disagreement inside one objective is still caught.
func TestSummarizeComparesWithinObjective(t *testing.T) {
	runs := []Run{
		goalRun("sat-depth", "min-depth", 4, true),
		goalRun("dl85", "min-depth", 4, true),
		goalRun("sat-size", "min-size", 15, true),
		goalRun("dl85", "min-size", 15, true),
		goalRun("dl85", "error", 0, true),
	}
	s := Summarize(runs)
	if len(s.Conflicts) != 0 {
		t.Fatalf("optima of different objectives compared: %v", s.Conflicts)
	}
	for g, want := range map[string]float64{"iris/d0": 0, "iris/d0/min-depth": 4, "iris/d0/min-size": 15} {
		if s.Best[g] != want {
			t.Errorf("best[%s] = %v, want %v (all: %v)", g, s.Best[g], want, s.Best)
		}
	}
	if len(s.Entries) != 5 {
		t.Fatalf("%d entries, want one per backend and objective: %+v", len(s.Entries), s.Entries)
	}
	var goals []string
	for _, e := range s.Entries {
		goals = append(goals, e.ObjectiveName+" "+e.Backend)
	}
	slices.Sort(goals)
	if want := []string{"error dl85", "min-depth dl85", "min-depth sat-depth", "min-size dl85", "min-size sat-size"}; !slices.Equal(goals, want) {
		t.Errorf("entries %v, want %v", goals, want)
	}
	var sb strings.Builder
	if err := s.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	if head := strings.Fields(strings.SplitN(sb.String(), "\n", 2)[0]); len(head) < 4 || head[3] != "problem" {
		t.Errorf("no problem column after the backend:\n%s", sb.String())
	}

	// A wrong optimum within one objective is a conflict naming it.
	runs = append(runs, goalRun("cadl85", "min-size", 17, true))
	s = Summarize(runs)
	if len(s.Conflicts) == 0 {
		t.Error("a wrong min-size optimum is not flagged")
	}
	for _, c := range s.Conflicts {
		if !strings.HasPrefix(c, "iris/d0/min-size: cadl85 proved optimum 17") {
			t.Errorf("conflict %q, want one of cadl85's 17 in iris/d0/min-size", c)
		}
	}

	// Runs of the error objective alone keep the table as it was.
	s = Summarize([]Run{run("vote", "dl85", 3, 12, true), run("vote", "cart", 3, 14, false)})
	sb.Reset()
	s.WriteText(&sb)
	if strings.Contains(sb.String(), "problem") {
		t.Errorf("a problem column for runs of the error objective alone:\n%s", sb.String())
	}
}

// TestWithObjectives: each cell becomes one per listed objective its
// backend solves, renumbered, with distinct keys; a backend solving none
// fails.
func TestWithObjectives(t *testing.T) {
	solves := map[string][]string{"dl85": {"error", "min-depth", "min-size"}, "sat-depth": {"min-depth"}, "cart": {"error"}}
	accepts := func(b, g string) bool { return slices.Contains(solves[b], g) }
	cells := Grid([]string{"a.txt"}, []string{"dl85", "sat-depth"}, []int{0}, 1)
	if out, err := WithObjectives(cells, nil, accepts); err != nil || len(out) != len(cells) || out[0].Key() != cells[0].Key() {
		t.Errorf("no goals changed the grid: %v, %v", out, err)
	}
	out, err := WithObjectives(cells, []string{"min-depth", "min-size"}, accepts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	keys := map[string]bool{}
	for i, c := range out {
		got = append(got, c.Backend+" "+c.ObjectiveName)
		if c.Index != i {
			t.Errorf("cell %d has index %d", i, c.Index)
		}
		keys[c.Key()] = true
	}
	if want := []string{"dl85 min-depth", "dl85 min-size", "sat-depth min-depth"}; !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	if len(keys) != len(out) {
		t.Errorf("%d distinct keys for %d cells", len(keys), len(out))
	}
	cells = Grid([]string{"a.txt"}, []string{"cart"}, []int{0}, 1)
	if _, err := WithObjectives(cells, []string{"min-depth"}, accepts); err == nil || !strings.Contains(err.Error(), "cart") {
		t.Errorf("a backend solving none of the objectives: %v", err)
	}
}
