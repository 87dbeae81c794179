package milp

import (
	"context"
	"errors"
	"math"
	"time"
)

// Status is how a MILP solve ended.
type Status string

const (
	// StatusOptimal: the solution is proven optimal (within the gap asked for).
	StatusOptimal Status = "optimal"
	// StatusFeasible: a solution was found, with a gap to the bound.
	StatusFeasible Status = "feasible"
	// StatusInfeasible: no solution exists (better than the cutoff, when
	// one was given).
	StatusInfeasible Status = "infeasible"
	// StatusNoSolution: the solve stopped before finding a solution.
	StatusNoSolution Status = "no-solution"
)

// Params control a solve. The zero value asks for a proven optimum with
// no time limit and the solver's default thread count.
type Params struct {
	// TimeLimit bounds the solve (0 = none besides the context's deadline).
	TimeLimit time.Duration
	// Threads is the number of threads (0 = solver default).
	Threads int
	// RelGap stops the search once (objective − bound)/|objective| is at
	// most RelGap (0 = prove optimality).
	RelGap float64
	// Cutoff, when HasCutoff, asks only for solutions with an objective
	// at most Cutoff (minimisation; at least Cutoff when maximising).
	// "Infeasible" then means that no such solution exists.
	Cutoff    float64
	HasCutoff bool
	// Start, when it has one value per column, is a feasible point given
	// to the solver as its first incumbent (a MIP start).
	Start []float64
	// Seed for the solver's random choices.
	Seed int
	// Verbose lets the solver print its log to standard output.
	Verbose bool
	// MemoryLimit, when positive, is the resident memory of the process
	// (bytes) at which the solve stops as it does at a time limit (it is
	// asked to stop at 80 %, to stay under it while it acts): the
	// solver's memory is its own, outside the Go heap that a memory cap
	// watches otherwise (Linux: /proc/self/statm; elsewhere no check).
	MemoryLimit int64
	// Options are further solver options by name, values as text (for
	// HiGHS e.g. "presolve": "off", "mip_heuristic_effort": "0.3"); they
	// are set after the ones above, in name order.
	Options map[string]string
}

// Solution is the outcome of a solve.
type Solution struct {
	Status Status
	// X holds the column values (nil without a solution).
	X []float64
	// Objective of X; Bound is the solver's proven bound on the optimum
	// (a lower bound when minimising).
	Objective, Bound float64
	// Gap is the solver's relative gap.
	Gap     float64
	Nodes   int64
	Seconds float64
	// SolverStatus is the solver's own name for how it ended.
	SolverStatus string
	// TimeLimit reports that the solve stopped at its time limit (the
	// one in Params or the one derived from the context's deadline)
	// before it finished; Status then says whether it had a solution.
	TimeLimit bool
	// MemoryLimit reports that the solve stopped because the process
	// reached Params.MemoryLimit.
	MemoryLimit bool
}

// BoundOrZero is the dual bound, or 0 when the solver has none (an
// infinite or NaN bound): a bound on a non-negative objective that a
// result or a table can hold.
func (s *Solution) BoundOrZero() float64 {
	if math.IsInf(s.Bound, 0) || math.IsNaN(s.Bound) {
		return 0
	}
	return s.Bound
}

// Solver solves models.
type Solver interface {
	Name() string
	Solve(ctx context.Context, m *Model, p Params) (*Solution, error)
}

// ErrNotEnabled is returned by solvers that were not compiled in.
var ErrNotEnabled = errors.New("milp: the HiGHS solver is not compiled in: install the HiGHS library (libhighs, found by pkg-config as highs) and build with `-tags highs`, or export the MPS file with `odt export --to mps` and solve it with an external MILP solver")

// ErrOption is wrapped by the error about an option the solver refuses
// (an unknown name or a value out of range).
var ErrOption = errors.New("milp: the solver refused option")

// deadline merges a time limit with the context's deadline.
func deadline(ctx context.Context, limit time.Duration) (time.Duration, bool) {
	d, has := limit, limit > 0
	if dl, ok := ctx.Deadline(); ok {
		// Leave the solver a little time to stop and hand back its
		// incumbent before the context expires.
		left := time.Until(dl)
		left -= min(left/20+100*time.Millisecond, time.Second)
		if !has || left < d {
			d, has = left, true
		}
	}
	if has && d <= 0 {
		d = time.Millisecond
	}
	return d, has
}

// noBound is the trivial bound on the optimum: −∞ when minimising, +∞
// when maximising.
func noBound(sense Sense) float64 {
	if sense == Maximize {
		return math.Inf(1)
	}
	return math.Inf(-1)
}
