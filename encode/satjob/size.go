package satjob

import (
	"context"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/sat"
)

// Bytes per clause, literal and variable of a formula held twice (the CNF
// and the solver's copy, watches included), calibrated on the peak resident
// memory of solves of mushroom and tic-tac-toe at depth 2
// (docs/benchmarks.md, "Figures behind constants and defaults").
const (
	clauseBytes = 48
	litBytes    = 8
	varBytes    = 64
)

// BinaryClauseBytes is what CNFSize counts for one binary clause: the
// least a formula spends on a group of rows, a test and a node (the
// clause that sends the group to the side of the node's test).
const BinaryClauseBytes = clauseBytes + 2*litBytes

// Bytes accounted per literal and per clause of a formula built under a
// Guard (its CNF slab as it grows by doubling, or the solver's copy of a
// streamed clause with its watches), and per variable (a solver's
// assignment, watch lists, activity and trail), with the garbage a
// collected heap holds. Calibrated on the peak resident memory of a
// sat-depth solve of many clauses and variables (the run in
// docs/benchmarks.md, "Figures behind constants and defaults").
const (
	guardLitBytes    = 24
	guardClauseBytes = 48
	guardVarBytes    = 128
	// guardEvery is how many literals are added between two checks of
	// the context and the budget.
	guardEvery = 1 << 16
)

// TooLarge is the size of a formula beyond counting: every count the
// largest.
func TooLarge() backend.Size {
	return backend.Size{Variables: math.MaxInt64, Constraints: math.MaxInt64, NonZeros: math.MaxInt64, Bytes: math.MaxInt64}
}

// CNFSize is the size of a formula of the given counts with the bytes
// its building and solving take (the formula and the solver's copy); a
// counter that saturated (c.Over) makes every count the largest.
func CNFSize(c *backend.Counter, vars, clauses, lits int64) backend.Size {
	return sized(c, vars, clauses, lits, clauseBytes, litBytes, varBytes)
}

// GuardedSize is CNFSize for a formula built under a Guard: the bytes
// the guard accounts for it.
func GuardedSize(c *backend.Counter, vars, clauses, lits int64) backend.Size {
	return sized(c, vars, clauses, lits, guardClauseBytes, guardLitBytes, guardVarBytes)
}

func sized(c *backend.Counter, vars, clauses, lits, perClause, perLit, perVar int64) backend.Size {
	if c.Over {
		return TooLarge()
	}
	s := backend.Size{Variables: vars, Constraints: clauses, NonZeros: lits}
	s.Bytes = c.Add(c.Mul(clauses, perClause), c.Mul(lits, perLit), c.Mul(vars, perVar))
	if c.Over {
		return TooLarge()
	}
	return s
}

// Indexable refuses (backend.ErrInvalid) a formula, named by what, too
// large to be represented or of more variables or clauses than a SAT
// solver indexes (2^31-1: literals are 32-bit, and DIMACS solvers index
// clauses likewise); hint, when not empty, says what to change.
func Indexable(s backend.Size, what, hint string) error {
	if hint != "" {
		hint = " (" + hint + ")"
	}
	if s.Bytes == math.MaxInt64 {
		return backend.Invalidf("%s is too large to be represented (more than 2^63 bytes)%s", what, hint)
	}
	if s.Variables > math.MaxInt32 || s.Constraints > math.MaxInt32 {
		return backend.Invalidf("%s would have %s, more than a SAT solver can index (2^31-1 variables or clauses)%s", what, s, hint)
	}
	return nil
}

// Guard is what building a formula answers to: its context and the
// memory budget its clauses and variables are accounted in. Once either
// stops the building (Err), no clause should be added any more: the
// formula is incomplete and must not be solved.
type Guard struct {
	ctx      context.Context
	budget   *backend.Budget
	pending  int64 // bytes added since the last check
	reserved int64 // bytes accounted in budget
	vars     int   // variables accounted
	err      error
}

// NewGuard is a guard of ctx (nil: none) and budget (nil: no cap).
func NewGuard(ctx context.Context, budget *backend.Budget) Guard {
	return Guard{ctx: ctx, budget: budget}
}

// Check accounts the bytes pending and the variables of c not yet
// accounted (c may be nil), and stops the building when the context has
// ended or the budget is exhausted.
func (g *Guard) Check(c *sat.CNF) {
	if g.err != nil {
		return
	}
	if c != nil && c.NumVars > g.vars {
		g.pending += int64(c.NumVars-g.vars) * guardVarBytes
		g.vars = c.NumVars
	}
	n := g.pending
	g.pending = 0
	if g.ctx != nil && g.ctx.Err() != nil {
		g.err = fmt.Errorf("building the formula: %w", context.Cause(g.ctx))
		return
	}
	if err := g.budget.Reserve(n, "the SAT formula"); err != nil {
		g.err = fmt.Errorf("building the formula: %w", err)
		return
	}
	g.reserved += n
}

// Clause accounts a clause of n literals about to be added to c, checking
// every guardEvery literals; false means the building has stopped and
// the clause must not be added.
func (g *Guard) Clause(c *sat.CNF, n int) bool {
	if g.err != nil {
		return false
	}
	if g.pending += int64(n)*guardLitBytes + guardClauseBytes; g.pending >= guardEvery*guardLitBytes {
		g.Check(c)
	}
	return g.err == nil
}

// Err checks once more and says why the building stopped (nil while it
// goes on).
func (g *Guard) Err(c *sat.CNF) error {
	g.Check(c)
	return g.err
}

// Release returns the bytes the guard accounted to its budget.
func (g *Guard) Release() {
	g.budget.Release(g.reserved)
	g.reserved = 0
}

// Guarded is a formula that grows under a Guard: a SAT formulation's
// Encoding embeds it for its CNF, Err and Release, and adds each clause
// only when Admit lets it.
type Guarded struct {
	CNF   *sat.CNF
	guard Guard
}

// NewGuarded is an empty formula guarded by ctx (nil: none) and budget
// (nil: no cap).
func NewGuarded(ctx context.Context, budget *backend.Budget) Guarded {
	return Guarded{CNF: &sat.CNF{}, guard: NewGuard(ctx, budget)}
}

// Err is why building the formula stopped: its context ended or its
// memory budget was exhausted (nil while it grows). Once it is set, no
// clause is added any more: the formula is incomplete and must not be
// solved.
func (f *Guarded) Err() error { return f.guard.Err(f.CNF) }

// Release returns the bytes the formula accounted in its budget.
func (f *Guarded) Release() { f.guard.Release() }

// Admit accounts a clause of n literals about to be added; false means
// the building has stopped and the clause must not be added.
func (f *Guarded) Admit(n int) bool { return f.guard.Clause(f.CNF, n) }
