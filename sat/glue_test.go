package sat

import "testing"

func newGlue() *CDCL {
	s := NewCDCL()
	s.SetGlue(true)
	return s
}

func TestGlueAgainstBruteForce(t *testing.T) {
	againstBruteForce(t, func() Solver { return newGlue() })
}

func TestGlueTimeLimit(t *testing.T) { timeLimit(t, newGlue()) }

// TestGlueAgainstGini: the glue mode against gini, as TestCDCLAgainstGini;
// the formulas are hard enough for the glue mode's restarts and
// reductions to run (TestGlueProof goes through compactions).
func TestGlueAgainstGini(t *testing.T) {
	n := againstGini(t, newGlue)
	if n.restarts == 0 || n.reductions == 0 {
		t.Fatalf("%d restarts, %d reductions: make the formulas harder", n.restarts, n.reductions)
	}
}

// TestGlueProof: a refutation in the glue mode, through its restarts,
// reductions (logged deletions) and compactions, is a valid LRAT proof.
func TestGlueProof(t *testing.T) {
	s, err := proveWith(t, newGlue(), 9, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.reductions == 0 || s.compactions == 0 || s.restarts == 0 {
		t.Fatalf("%d restarts, %d reductions, %d compactions: the test must go through all three", s.restarts, s.reductions, s.compactions)
	}
}

// TestGlueOf: the glue of a clause is the number of distinct decision
// levels among its literals.
func TestGlueOf(t *testing.T) {
	s := NewCDCL()
	s.grow(6)
	copy(s.level, []int32{0, 3, 3, 5, 1, 5})
	for _, tc := range []struct {
		ls   []int32
		want int32
	}{
		{[]int32{0}, 1},
		{[]int32{2, 4}, 1},    // variables 1 and 2, both at level 3
		{[]int32{2, 6, 8}, 3}, // levels 3, 5, 1
		{[]int32{0, 2, 4, 6, 8, 10}, 4},
	} {
		if got := s.glueOf(tc.ls); got != tc.want {
			t.Errorf("glueOf(%v) = %d, want %d", tc.ls, got, tc.want)
		}
	}
}

// TestGlueProofSameSearch: logging a proof does not change the glue
// mode's search either (the same conflicts, decisions, restarts and
// reductions).
func TestGlueProofSameSearch(t *testing.T) {
	var runs [2][4]int64
	for i, on := range []bool{false, true} {
		s := refutePigeons(t, newGlue(), 8, on)
		runs[i] = [4]int64{s.conflicts, s.decisions, int64(s.restarts), int64(s.reductions)}
	}
	if runs[0] != runs[1] || runs[0][3] == 0 {
		t.Errorf("conflicts, decisions, restarts, reductions %v without a proof, %v with (reductions must happen)", runs[0], runs[1])
	}
}
