package sat_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/odtkit/odtkit/sat"
)

// Read a formula in DIMACS, solve it with gini, then again under an
// assumption that refutes it.
func ExampleReadDIMACS() {
	c, err := sat.ReadDIMACS(strings.NewReader("c x1 or x2, not both\np cnf 2 2\n1 2 0\n-1 -2 0\n"))
	if err != nil {
		panic(err)
	}
	s := sat.NewGini()
	sat.AddCNF(s, c, 0)
	st, _ := s.Solve(context.Background())
	fmt.Println(st, s.Value(1) != s.Value(2))
	st, _ = s.Solve(context.Background(), 1, 2)
	fmt.Println(st)
	// Output:
	// SATISFIABLE true
	// UNSATISFIABLE
}
