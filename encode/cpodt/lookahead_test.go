package cpodt_test

import (
	"testing"

	"github.com/odtkit/odtkit/encode/cpodt"
)

// TestLookahead: the model checks two levels above the leaves for monk's
// sizes, one level for iris's many tests, none for the error goal or a
// tree of depth 0.
func TestLookahead(t *testing.T) {
	for _, c := range []struct {
		goal        cpodt.Goal
		depth, f, g int
		want        int
	}{
		{cpodt.GoalDepth, 5, 11, 169, 2},
		{cpodt.GoalSize, 6, 11, 169, 1},
		{cpodt.GoalDepth, 4, 118, 147, 1},
		{cpodt.GoalDepth, 12, 118, 5000, 0},
		{cpodt.GoalError, 5, 11, 169, 0},
		{cpodt.GoalDepth, 0, 11, 169, 0},
	} {
		in := &cpodt.Instance{Goal: c.goal, Depth: c.depth, Tests: make([]int, c.f), Groups: make([]cpodt.Group, c.g)}
		if got := in.Lookahead(); got != c.want {
			t.Errorf("%s goal, depth %d, %d tests, %d groups: lookahead %d, want %d", c.goal, c.depth, c.f, c.g, got, c.want)
		}
	}
}
