package sat

import (
	"context"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// Gini is the in-process solver github.com/go-air/gini: incremental
// (clauses may be added between solves, learnt clauses are kept) with
// assumptions, and stoppable through the context.
type Gini struct {
	g     *gini.Gini
	nvars int
	// unsat is set once the clauses alone are refuted: gini v1.0.4 must
	// not be asked again then (its next solve fails an internal check),
	// and no clause can make the formula satisfiable again.
	unsat bool
}

// NewGini returns an empty gini solver.
func NewGini() *Gini { return &Gini{g: gini.New()} }

// AddClause adds a clause.
func (s *Gini) AddClause(lits ...Lit) {
	for _, l := range lits {
		if v := l.Var(); v > s.nvars {
			s.nvars = v
		}
		s.g.Add(z.Dimacs2Lit(int(l)))
	}
	s.g.Add(z.LitNull)
}

// Polling bounds: gini checks neither a context nor a channel of ours,
// so a cancellable Solve runs gini in the background (GoSolve) and polls
// it, first after giniPollMin, doubling up to giniPollMax, while watching
// ctx. The search itself is never interrupted unless ctx ends, so the
// answer and the model do not depend on timing (gini's Try would restart
// the search at each time slice).
const (
	giniPollMin = 20 * time.Microsecond
	giniPollMax = 5 * time.Millisecond
)

// Solve decides the clauses under the assumptions.
func (s *Gini) Solve(ctx context.Context, assumptions ...Lit) (Status, error) {
	if s.unsat {
		return Unsatisfiable, nil
	}
	if err := ctx.Err(); err != nil {
		return Unknown, nil
	}
	st, err := s.solve(ctx, assumptions)
	if st == Unsatisfiable && (len(assumptions) == 0 || len(s.g.Why(nil)) == 0) {
		s.unsat = true
	}
	return st, err
}

func (s *Gini) solve(ctx context.Context, assumptions []Lit) (Status, error) {
	assume := func() {
		for _, a := range assumptions {
			if v := a.Var(); v > s.nvars {
				s.nvars = v
			}
			s.g.Assume(z.Dimacs2Lit(int(a)))
		}
	}
	assume()
	if ctx.Done() == nil {
		return giniStatus(s.g.Solve()), nil
	}
	run := s.g.GoSolve()
	poll := giniPollMin
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for {
		if r, done := run.Test(); done {
			return giniStatus(r), nil
		}
		select {
		case <-ctx.Done():
			if r := run.Stop(); r != 0 {
				return giniStatus(r), nil // finished meanwhile
			}
			return Unknown, nil
		case <-timer.C:
		}
		poll = min(2*poll, giniPollMax)
		timer.Reset(poll)
	}
}

func giniStatus(r int) Status {
	switch r {
	case 1:
		return Satisfiable
	case -1:
		return Unsatisfiable
	}
	return Unknown
}

// Value is the value of l in the last model.
func (s *Gini) Value(l Lit) bool {
	if l.Var() > s.nvars {
		return false
	}
	return s.g.Value(z.Dimacs2Lit(int(l)))
}
