package satjob

import (
	"context"

	"github.com/odtkit/odtkit/sat"
)

// Load adds the clauses of c to the solver, polling ctx as it goes (a
// formula of millions of clauses takes seconds to load): when ctx ends
// the solver holds part of them and the error is ctx's cause.
func Load(ctx context.Context, solver sat.ClauseAdder, c *sat.CNF) error {
	for i := range c.NumClauses() {
		if i%(1<<16) == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		solver.AddClause(c.Clause(i)...)
	}
	return nil
}

// Open makes a solver (odtkit's CDCL when newSolver is nil) and, when c
// is not nil, loads c's clauses into it under ctx, the proof of the
// solver logged into cert under name first when cert is not nil. A
// solver that could not be loaded is closed.
func Open(ctx context.Context, newSolver func() (sat.Solver, error), c *sat.CNF, cert *sat.Certifier, name string) (sat.Solver, error) {
	var solver sat.Solver = sat.NewCDCL()
	if newSolver != nil {
		var err error
		if solver, err = newSolver(); err != nil {
			return nil, err
		}
	}
	if c == nil {
		return solver, nil
	}
	if cert != nil {
		if err := cert.Start(solver, name); err != nil {
			Close(solver)
			return nil, err
		}
	}
	if err := Load(ctx, solver, c); err != nil {
		Close(solver)
		return nil, err
	}
	return solver, nil
}

// Close releases a solver that holds resources (an external one's
// process and files); other solvers need nothing.
func Close(s sat.Solver) {
	if c, ok := s.(interface{ Close() error }); ok {
		c.Close()
	}
}
