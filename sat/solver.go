package sat

import (
	"context"
	"fmt"
	"strings"
)

// Status is the answer of a solve.
type Status int

const (
	// Unknown: the solve was stopped (time limit, cancellation) or the
	// solver gave no answer.
	Unknown Status = iota
	// Satisfiable: a model was found.
	Satisfiable
	// Unsatisfiable: no model exists (under the assumptions).
	Unsatisfiable
)

func (s Status) String() string {
	switch s {
	case Satisfiable:
		return "SATISFIABLE"
	case Unsatisfiable:
		return "UNSATISFIABLE"
	}
	return "UNKNOWN"
}

// Solver is a SAT solver that accepts clauses over time and solves under
// assumptions. Clauses may use any variable; the solver grows as needed.
// After Solve returns Satisfiable, Value reads the model until the next
// AddClause or Solve.
type Solver interface {
	AddClause(lits ...Lit)
	// Solve decides the clauses added so far with the assumption
	// literals forced true for this call only. It returns Unknown when
	// ctx ends first; an error is for a solver failure, not for UNSAT.
	Solve(ctx context.Context, assumptions ...Lit) (Status, error)
	// Value is the truth value of l in the last model.
	Value(l Lit) bool
}

// ClauseAdder receives clauses: every Solver, and *CNF.
type ClauseAdder interface {
	AddClause(lits ...Lit)
}

// AddCNF adds clauses [from, c.NumClauses()) of c to s and returns
// c.NumClauses(), so that a formula growing over time can be fed to a
// solver in steps.
func AddCNF(s ClauseAdder, c *CNF, from int) int {
	for i := from; i < c.NumClauses(); i++ {
		s.AddClause(c.Clause(i)...)
	}
	return c.NumClauses()
}

// NewSolver returns a solver from a specification: "cdcl" (or "") for
// the in-process CDCL solver, "cdcl-glue" for the same in its glue mode
// (CDCL.SetGlue), "gini" for the in-process gini solver,
// "external:CMD ARGS" for an external DIMACS
// solver binary (see External).
func NewSolver(spec string) (Solver, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "cdcl":
		return NewCDCL(), nil
	case spec == "cdcl-glue":
		s := NewCDCL()
		s.SetGlue(true)
		return s, nil
	case spec == "gini":
		return NewGini(), nil
	case strings.HasPrefix(spec, "external:"):
		return NewExternal(strings.TrimPrefix(spec, "external:"))
	}
	return nil, fmt.Errorf("unknown SAT solver %q (use cdcl, cdcl-glue, gini or external:\"CMD ARGS\")", spec)
}

// CheckSpec validates a solver specification without starting anything.
func CheckSpec(spec string) error {
	_, err := NewSolver(spec)
	return err
}
