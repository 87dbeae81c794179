package backendtest

import (
	"context"
	"strings"
	"testing"
)

// The MaxSAT search finds the least cost in both WCNF forms: the hard
// clause x1 ∨ x2 with x1 costing 3 and x2 costing 2 is cheapest with x2
// alone; contradictory hard clauses are infeasible.
func TestAnswerWCNF(t *testing.T) {
	for name, f := range map[string]string{
		"new":     "c two\nh 1 2 0\n3 -1 0\n2 -2 0\n",
		"classic": "p wcnf 2 3 6\n6 1 2 0\n3 -1 0\n2 -2 0\n",
	} {
		a, err := answerWCNF(context.Background(), []byte(f))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := "s OPTIMUM FOUND\no 2\nv -1 2 0\n"; string(a.claim) != want || !a.optimum || a.infeasible {
			t.Errorf("%s: claim %q, want %q", name, a.claim, want)
		}
		if !strings.HasPrefix(string(a.plain), "s SATISFIABLE\no 2\n") {
			t.Errorf("%s: plain answer %q", name, a.plain)
		}
	}
	a, err := answerWCNF(context.Background(), []byte("h 1 0\nh -1 0\n1 -1 0\n"))
	if err != nil || !a.infeasible || string(a.claim) != "s UNSATISFIABLE\n" {
		t.Errorf("infeasible: %+v, %v", a, err)
	}
}

// A soft clause of several literals is relaxed by a variable of its own:
// (x1 ∨ x2) soft with weight 5 and both literals forced false costs 5.
func TestAnswerWCNFSoftClause(t *testing.T) {
	a, err := answerWCNF(context.Background(), []byte("h -1 0\nh -2 0\n5 1 2 0\n"))
	if err != nil || !strings.HasPrefix(string(a.claim), "s OPTIMUM FOUND\no 5\nv -1 -2 0\n") {
		t.Fatalf("%+v, %v", a, err)
	}
}

func TestAnswerDIMACS(t *testing.T) {
	a, err := answerDIMACS(context.Background(), []byte("p cnf 2 2\n1 2 0\n-1 0\n"))
	if err != nil || string(a.claim) != "s SATISFIABLE\nv -1 2 0\n" || a.optimum {
		t.Errorf("satisfiable: %+v, %v", a, err)
	}
	a, err = answerDIMACS(context.Background(), []byte("p cnf 1 2\n1 0\n-1 0\n"))
	if err != nil || !a.infeasible {
		t.Errorf("unsatisfiable: %+v, %v", a, err)
	}
}
