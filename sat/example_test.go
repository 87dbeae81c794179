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

// odtkit's own CDCL solver, incremental: a pigeonhole formula (3 pigeons,
// 2 holes) is refuted; without its third pigeon it has a model.
func ExampleCDCL() {
	s := sat.NewCDCL()
	// Variable 2p+h+1: pigeon p sits in hole h.
	in := func(p, h int) sat.Lit { return sat.Lit(2*p + h + 1) }
	for p := range 2 {
		s.AddClause(in(p, 0), in(p, 1))
	}
	for h := range 2 {
		for a := range 3 {
			for b := a + 1; b < 3; b++ {
				s.AddClause(-in(a, h), -in(b, h))
			}
		}
	}
	st, _ := s.Solve(context.Background())
	fmt.Println(st, s.Value(in(0, 0)) != s.Value(in(1, 0)))
	s.AddClause(in(2, 0), in(2, 1)) // the third pigeon
	st, _ = s.Solve(context.Background())
	fmt.Println(st, s.Conflicts() > 0)
	// Output:
	// SATISFIABLE true
	// UNSATISFIABLE true
}

// One CDCL solver for a sequence of formulas: Reset empties it and keeps
// its memory.
func ExampleCDCL_Reset() {
	s := sat.NewCDCL()
	s.AddClause(1)
	s.AddClause(-1)
	st, _ := s.Solve(context.Background())
	fmt.Println(st)
	s.Reset()
	s.AddClause(1, 2)
	s.AddClause(-1)
	st, _ = s.Solve(context.Background())
	fmt.Println(st, s.Value(2))
	// Output:
	// UNSATISFIABLE
	// SATISFIABLE true
}
