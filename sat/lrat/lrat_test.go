package lrat_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/sat/lrat"
)

// formula is x1 ∨ x2, ¬x1 ∨ x2, x1 ∨ ¬x2, ¬x1 ∨ ¬x2: unsatisfiable.
const formula = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"

func Example() {
	c, err := lrat.ReadDIMACS(strings.NewReader(formula), "f.cnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Clause 5 is x2 (assume ¬x2: clause 1 implies x1, clause 2 is
	// false), clause 6 the empty clause (clause 5 implies x2, clause 4
	// then ¬x1, and clause 3 is false).
	proof := "5 2 0 1 2 0\n6 0 5 4 3 0\n6 d 1 2 0\n"
	if err := c.Check(context.Background(), strings.NewReader(proof), "f.lrat"); err != nil {
		fmt.Println(err)
		return
	}
	empty, ok := c.Clause(6)
	fmt.Println(ok, len(empty), c.Added, c.Deleted)
	// Output: true 0 2 2
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct{ proof, want string }{
		{"5 2 0 1 0\n", "f.lrat:1: clause 5: the hints end without a conflict"},
		{"5 0 1 0\n", "f.lrat:1: clause 5: hint 1 (number 1) is not unit: 2 literals unassigned"},
		{"5 2 0 1 2 4 0\n", "f.lrat:1: clause 5: hint 2 (number 2) is the conflict, but 1 hints follow it"},
		{"5 2 0 3 1 2 0\n", "f.lrat:1: clause 5: hint 3 (number 1) is satisfied, not unit"},
		{"5 2 0 1 9 0\n", "f.lrat:1: clause 5: hint 9 (number 2) is not a clause (never added, or deleted)"},
		{"5 2 0 1 -3 0\n", "f.lrat:1: clause 5: hint -3 (number 2) is a RAT hint, which this checker does not take"},
		{"5 d 1 0\n6 2 0 1 2 0\n", "f.lrat:2: clause 6: hint 1 (number 1) is not a clause (never added, or deleted)"},
		{"4 2 0 1 3 0\n", "f.lrat:1: clause 4: the ID is not larger than the last one (4)"},
		{"5 d 7 0\n", "f.lrat:1: clause 5: deletes clause 7, which does not exist"},
		{"5 3 0 1 3 0\n", "f.lrat:1: clause 5: literal 3 beyond the formula's 2 variables"},
		{"5 2 0 1 3\n", "f.lrat:1: clause 5: hints: no terminating 0"},
		{"x 2 0 1 3 0\n", "f.lrat:1: \"x\" is not a clause ID"},
		{"5 1 -1 0 0\n", "f.lrat:1: clause 5: the clause holds -1 and its negation (a tautology is no lemma)"},
		{"a\x05\x04\x00\x02\x00\n", "f.lrat:1: binary LRAT is not read: write the proof as text (cadical: --lrat --no-binary)"},
	} {
		c, err := lrat.ReadDIMACS(strings.NewReader(formula), "f.cnf")
		if err != nil {
			t.Fatal(err)
		}
		err = c.Check(context.Background(), strings.NewReader(tc.proof), "f.lrat")
		if err == nil || err.Error() != tc.want || !errors.Is(err, lrat.ErrRefused) {
			t.Errorf("proof %q: got %v, want %s", tc.proof, err, tc.want)
		}
	}
}

func TestReadDIMACSRefusals(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1 2 0\n", "f.cnf:1: a clause before the problem line"},
		{"p cnf 2 1\n1 3 0\n", "f.cnf:2: literal 3 beyond the 2 variables declared"},
		{"p cnf 2 2\n1 2 0\n", "f.cnf:2: 1 clauses, 2 declared"},
		{"p cnf 2 1\n1 2\n", "f.cnf:2: the last clause has no terminating 0"},
		{"p cnf x 1\n", "f.cnf:1: bad problem line \"p cnf x 1\""},
		{"c nothing\n", "f.cnf:1: no problem line"},
	} {
		_, err := lrat.ReadDIMACS(strings.NewReader(tc.in), "f.cnf")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %s", tc.in, err, tc.want)
		}
	}
}

// FuzzCheck feeds the reader and the checker any formula and proof: an
// error or an answer, never a panic; a proof accepted stays accepted
// when checked again from the same formula.
func FuzzCheck(f *testing.F) {
	f.Add(formula, "5 2 0 1 2 0\n6 0 5 4 3 0\n6 d 1 2 0\n")
	f.Add(formula, "5 2 0 1 -2 0\n")
	f.Add("p cnf 1 1\n0\n", "2 0 1 0\n")
	f.Add("p cnf 3 2\n1 -1 0\n2 3 0\n", "3 1 -1 0 0\nc note\n3 d 3 0\n")
	f.Fuzz(func(t *testing.T, cnf, proof string) {
		check := func() error {
			c, err := lrat.ReadDIMACS(strings.NewReader(cnf), "f.cnf")
			if err != nil {
				return nil
			}
			return c.Check(context.Background(), strings.NewReader(proof), "f.lrat")
		}
		if check() == nil && check() != nil {
			t.Fatal("the same proof checked twice gives two answers")
		}
	})
}

// TestIDGaps checks a proof whose IDs jump far apart: the clauses are
// found by ID, and nothing is sized by the largest one.
func TestIDGaps(t *testing.T) {
	c, err := lrat.ReadDIMACS(strings.NewReader(formula), "f.cnf")
	if err != nil {
		t.Fatal(err)
	}
	proof := "16777221 2 0 1 2 0\n33554437 d 1 0\n4611686018427387904 0 16777221 4 3 0\n"
	if err := c.Check(context.Background(), strings.NewReader(proof), "f.lrat"); err != nil {
		t.Fatal(err)
	}
	if !c.Refuted() {
		t.Fatal("the empty clause was not kept")
	}
	if _, ok := c.Clause(1); ok {
		t.Error("clause 1 was deleted but is still there")
	}
	bad := "16777221 2 0 1 2 0\n33554437 0 16777220 4 3 0\n"
	c, _ = lrat.ReadDIMACS(strings.NewReader(formula), "f.cnf")
	if err := c.Check(context.Background(), strings.NewReader(bad), "f.lrat"); err == nil || !strings.Contains(err.Error(), "hint 16777220 (number 1) is not a clause") {
		t.Errorf("a hint between two IDs: got %v", err)
	}
}

// TestLongLine checks that a line past MaxLine is refused.
func TestLongLine(t *testing.T) {
	c, _ := lrat.ReadDIMACS(strings.NewReader(formula), "f.cnf")
	long := "5 2 0 " + strings.Repeat("1 ", lrat.MaxLine/2) + "0\n"
	err := c.Check(context.Background(), strings.NewReader(long), "f.lrat")
	if err == nil || !errors.Is(err, lrat.ErrRefused) || !strings.Contains(err.Error(), "f.lrat:1: a line longer than") {
		t.Errorf("got %v", err)
	}
}
