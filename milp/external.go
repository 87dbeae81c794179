package milp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/odtkit/odtkit/internal/proc"
)

// SolverSpecHelp describes the specifications NewSolver takes, for the
// help of a backend's milp-solver option.
const SolverSpecHelp = `MILP solver: highs (in process; build with -tags highs) or external:"CMD ARGS", any MILP solver program: {in} is the MILP as free MPS, {in.lp} as CPLEX LP, {out} the solution file it writes (HiGHS, CBC or GLPK format), e.g. external:"highs --solution_file {out} {in}", external:"cbc {in} solve solution {out}", external:"glpsol --lp {in.lp} -w {out}"`

// NewSolver returns the solver a specification names: "highs" (or "")
// for the in-process HiGHS adapter, `external:CMD ARGS` for a solver
// program (see External).
func NewSolver(spec string) (Solver, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "highs":
		return HiGHS(), nil
	case strings.HasPrefix(spec, "external:"):
		return NewExternal(strings.TrimPrefix(spec, "external:"))
	}
	return nil, fmt.Errorf("unknown MILP solver %q (use highs or external:\"CMD ARGS\")", spec)
}

// CheckSolverSpec validates a specification without starting anything.
func CheckSolverSpec(spec string) error {
	_, err := NewSolver(spec)
	return err
}

// IsExternal reports whether s runs a solver program.
func IsExternal(s Solver) bool {
	_, ok := s.(*External)
	return ok
}

// External runs a MILP solver program on every Solve: it writes the
// model to a temporary directory, runs the command line and reads the
// solution file back (ReadSolution: HiGHS's, CBC's or GLPK's format).
//
// The command line is split into words like a shell would (quotes group
// words; no other shell syntax). Placeholders inside words: {in} is the
// path of the model in free MPS, {in.lp} of the model in CPLEX LP
// (WriteLP), {out} of the solution file the solver must write (required).
// With neither {in} nor {in.lp}, the MPS path is appended. The program
// runs in the temporary directory (HiGHS writes its log file there).
//
// The solve is stopped (the solver's process group killed, the
// temporary files removed) when ctx ends or Params.TimeLimit passes; the
// answer is then StatusNoSolution. Params other than TimeLimit do not
// reach the program: put the solver's own flags on the command line
// (threads, gap, time limit). The program's point is checked against
// every bound, integrality and row of the model: a point that breaks one
// is an error, never a solution. Its optimality claim is the solver's
// (within the solver's own gap tolerance, e.g. HiGHS's mip_rel_gap of
// 1e-4: exact for whole-number objectives below 10,000).
type External struct {
	argv []string
	// Dir holds the temporary directory ("" = the system default).
	Dir string
}

// NewExternal parses the command line of a MILP solver program.
func NewExternal(cmdline string) (*External, error) {
	argv, err := proc.SplitCommand(cmdline)
	if err != nil {
		return nil, fmt.Errorf("external MILP solver: %w", err)
	}
	if len(argv) == 0 {
		return nil, errors.New("external MILP solver: empty command line")
	}
	if !strings.Contains(cmdline, "{out}") {
		return nil, fmt.Errorf("external MILP solver %q: the command line must name the solution file with {out} (e.g. highs --solution_file {out} {in})", cmdline)
	}
	return &External{argv: argv}, nil
}

// Claimant names the program and its command line, for a result's
// claimed bound: "external MILP solver CMD ARGS".
func Claimant(s Solver) string {
	if e, ok := s.(*External); ok {
		return "external MILP solver " + strings.Join(e.argv, " ")
	}
	return s.Name()
}

// Name is "external:" and the program's name.
func (e *External) Name() string { return "external:" + filepath.Base(e.argv[0]) }

// Solve writes m, runs the program and reads its solution.
func (e *External) Solve(ctx context.Context, m *Model, p Params) (*Solution, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	stopped := func(err error) *Solution {
		return &Solution{Status: StatusNoSolution, Bound: noBound(m.Sense), SolverStatus: "stopped",
			TimeLimit: errors.Is(err, context.DeadlineExceeded), Seconds: time.Since(start).Seconds()}
	}
	if err := ctx.Err(); err != nil {
		return stopped(err), nil
	}
	if p.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.TimeLimit)
		defer cancel()
	}
	dir, err := os.MkdirTemp(e.Dir, "odtkit-milp-")
	if err != nil {
		return nil, fmt.Errorf("external MILP solver: %w", err)
	}
	defer os.RemoveAll(dir)
	mps, lp, out := filepath.Join(dir, "model.mps"), filepath.Join(dir, "model.lp"), filepath.Join(dir, "solution.txt")
	argv, seen := proc.Substitute(e.argv, map[string]string{"{in}": mps, "{in.lp}": lp, "{out}": out})
	if !seen["{in}"] && !seen["{in.lp}"] {
		argv = append(argv, mps)
		seen["{in}"] = true
	}
	write := func(path string, w func(f *os.File) error) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := w(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if seen["{in}"] {
		if err := write(mps, func(f *os.File) error { return WriteMPS(f, m) }); err != nil {
			return nil, fmt.Errorf("external MILP solver: writing the MPS file: %w", err)
		}
	}
	if seen["{in.lp}"] {
		if err := write(lp, func(f *os.File) error { return WriteLP(f, m) }); err != nil {
			return nil, fmt.Errorf("external MILP solver: writing the LP file: %w", err)
		}
	}
	// The log is kept only at its ends; the solution file is watched
	// while the program writes it and read only within the memory cap.
	stdout, stderr := &proc.Tail{N: 4096}, &proc.Head{N: 4096}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var tooLarge atomic.Bool
	unwatch := proc.WatchSize(out, p.MemoryLimit, func() { tooLarge.Store(true); cancel() })
	runErr := proc.Run(rctx, dir, argv, stdout, stderr)
	unwatch()
	if tooLarge.Load() && ctx.Err() == nil {
		return nil, fmt.Errorf("external MILP solver %q: %w: its solution file passed %.1f MiB", argv[0], proc.ErrTooLarge, float64(p.MemoryLimit)/(1<<20))
	}
	if err := ctx.Err(); err != nil {
		return stopped(err), nil
	}
	b, err := proc.ReadFile(out, p.MemoryLimit)
	if proc.IsTooLarge(err) {
		return nil, fmt.Errorf("external MILP solver %q: %w", argv[0], err)
	}
	if err != nil {
		return nil, fmt.Errorf("external MILP solver %q wrote no solution file (%v; exit: %v; stdout: %s; stderr: %s)",
			argv[0], err, runErr, proc.Clip(tail(stdout.String())), proc.Clip(string(stderr.Bytes())))
	}
	sf, err := ReadSolution(bytes.NewReader(b), m)
	if err != nil {
		return nil, fmt.Errorf("external MILP solver %q: %w", argv[0], err)
	}
	sol := &Solution{Status: sf.Status, SolverStatus: sf.SolverStatus, Bound: noBound(m.Sense), Seconds: time.Since(start).Seconds()}
	if sf.Stray && m.CheckPoint(sf.X, 1e-5) != nil {
		sf.X = nil // values listed under "no solution" that are none
	}
	if sf.X == nil {
		if sf.Status == StatusOptimal || sf.Status == StatusFeasible {
			return nil, fmt.Errorf("external MILP solver %q claims a solution (%s) but lists no values", argv[0], sf.SolverStatus)
		}
		return sol, nil
	}
	// Solvers print rounded values: check with a loose tolerance.
	if err := m.CheckPoint(sf.X, 1e-5); err != nil {
		return nil, fmt.Errorf("external MILP solver %q answered %q with a point that is not a solution of the model: %w", argv[0], sf.SolverStatus, err)
	}
	sol.X = sf.X
	sol.Objective = m.Objective(sf.X)
	if sol.Status != StatusOptimal {
		// A point that checks is feasible, whatever the program called
		// the problem: its "infeasible" is refuted, not believed.
		sol.Status = StatusFeasible
	}
	if _, ok := ObjectiveReading(sf.Objective, sol.Objective, m.Offset); sf.HasObjective && !ok {
		return nil, fmt.Errorf("external MILP solver %q states objective %v, but its point's objective is %v", argv[0], sf.Objective, sol.Objective)
	}
	if sol.Status == StatusOptimal {
		sol.Bound = sol.Objective // the solver's claim
	}
	return sol, nil
}

// ObjectiveReading compares a solver's stated objective with the
// model's objective of its point (objective constant included), allowing
// for rounding and for the ways solvers read an MPS objective constant
// (the RHS of the objective row, written as minus the constant): as
// minus the RHS (HiGHS, CPLEX), not at all, or as the RHS itself, the
// opposite sign (GLPK, lp_solve). It names the reading that matches.
func ObjectiveReading(stated, computed, offset float64) (string, bool) {
	tol := 1e-5 * math.Max(1, math.Abs(computed))
	for k, reading := range []string{"constant included", "constant left out", "constant read with the opposite sign"} {
		if (k == 0 || offset != 0) && math.Abs(stated+float64(k)*offset-computed) <= tol {
			return reading, true
		}
	}
	return "", false
}

// tail keeps the end of a solver's log, where the reason it stopped is.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return "..." + s[len(s)-300:]
	}
	return s
}
