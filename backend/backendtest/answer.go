package backendtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/sat"
)

// errNoSolver says why an exported formulation could not be solved here
// (no reference solver for its format in this build or on this machine):
// the check is skipped with that message.
type errNoSolver struct{ why string }

func (e errNoSolver) Error() string { return e.why }

// answers are a reference solver's answers to an exported formulation,
// in the format the backend's Decode reads: claim states what the solver
// established (an optimum, or infeasibility), plain is the same solution
// with that claim left out (a solution only). optimum says that claim
// states an optimum (a SAT solver's model states none: the formula fixes
// the objective); infeasible says that the solver found the formulation
// has no solution.
type answers struct {
	format              string
	claim, plain        []byte
	optimum, infeasible bool
}

// answer solves the formulation f, written in format, with odtkit's own
// solver for it: the CDCL solver for DIMACS, a linear MaxSAT search over
// the CDCL solver for WCNF, HiGHS in process for MPS (a build with
// -tags highs), MiniZinc with Gecode for a MiniZinc model (when
// installed). dir holds scratch files.
func answer(ctx context.Context, format string, f []byte, dir string) (*answers, error) {
	switch format {
	case "dimacs":
		return answerDIMACS(ctx, f)
	case "wcnf":
		return answerWCNF(ctx, f)
	case "mps":
		return answerMPS(ctx, f)
	case "mzn":
		return answerMZN(ctx, f, dir)
	}
	return nil, errNoSolver{fmt.Sprintf("no reference solver for the format %q in the suite", format)}
}

// vLine renders the values of variables 1..n as a solver's "v" line.
func vLine(n int, value func(v int) bool) string {
	var b strings.Builder
	b.WriteString("v")
	for v := 1; v <= n; v++ {
		if value(v) {
			fmt.Fprintf(&b, " %d", v)
		} else {
			fmt.Fprintf(&b, " -%d", v)
		}
	}
	b.WriteString(" 0\n")
	return b.String()
}

func answerDIMACS(ctx context.Context, f []byte) (*answers, error) {
	cnf, err := sat.ReadDIMACS(bytes.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("the exported DIMACS: %w", err)
	}
	s := sat.NewCDCL()
	sat.AddCNF(s, cnf, 0)
	if a, err := refuted(ctx, s, "DIMACS"); a != nil || err != nil {
		return a, err
	}
	a := "s SATISFIABLE\n" + vLine(cnf.NumVars, func(v int) bool { return s.Value(sat.Lit(v)) })
	// A model is no claim: it is checked, so both answers are the same.
	return &answers{claim: []byte(a), plain: []byte(a)}, nil
}

// wcnf is a weighted MaxSAT instance: hard clauses, and soft clauses
// each with the literal true when it is falsified and its weight.
type wcnf struct {
	hard    *sat.CNF
	vars    int // variables of the file (the hard CNF may add more)
	viol    []sat.Lit
	weights []int
}

// readWCNF reads both forms WriteWCNF writes (the classic "p wcnf" one
// and the "h" one).
func readWCNF(f []byte) (*wcnf, error) {
	w := &wcnf{hard: &sat.CNF{}}
	var top int64 = -1
	var softs [][]sat.Lit
	var softW []int
	sc := bufio.NewScanner(bytes.NewReader(f))
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	for ln := 1; sc.Scan(); ln++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || fs[0] == "c" {
			continue
		}
		if fs[0] == "p" {
			if len(fs) != 5 || fs[1] != "wcnf" {
				return nil, fmt.Errorf("line %d: header %q", ln, sc.Text())
			}
			n, err1 := strconv.Atoi(fs[2])
			t, err2 := strconv.ParseInt(fs[4], 10, 64)
			if err := errors.Join(err1, err2); err != nil {
				return nil, fmt.Errorf("line %d: %w", ln, err)
			}
			w.vars, top = n, t
			continue
		}
		if fs[len(fs)-1] != "0" {
			return nil, fmt.Errorf("line %d: a clause not ended by 0", ln)
		}
		var lits []sat.Lit
		for _, t := range fs[1 : len(fs)-1] {
			l, err := strconv.Atoi(t)
			if err != nil || l == 0 {
				return nil, fmt.Errorf("line %d: literal %q", ln, t)
			}
			lits = append(lits, sat.Lit(l))
			w.vars = max(w.vars, abs(l))
		}
		if fs[0] == "h" {
			w.hard.Add(lits...)
			continue
		}
		wt, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil || wt < 1 {
			return nil, fmt.Errorf("line %d: weight %q", ln, fs[0])
		}
		if wt == top {
			w.hard.Add(lits...)
			continue
		}
		softs, softW = append(softs, lits), append(softW, int(wt))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	w.hard.NumVars = max(w.hard.NumVars, w.vars)
	for i, c := range softs {
		if len(c) == 1 {
			w.viol = append(w.viol, c[0].Not())
		} else {
			r := w.hard.NewVar() // true when the clause is let go
			w.hard.Add(append(c, r)...)
			w.viol = append(w.viol, r)
		}
		w.weights = append(w.weights, softW[i])
	}
	return w, nil
}

func abs(x int) int { return max(x, -x) }

// answerWCNF solves the instance by a linear search from above: each
// solution's cost is forbidden with a sum counter over the falsified
// soft clauses until the CDCL solver refutes a lower one.
func answerWCNF(ctx context.Context, f []byte) (*answers, error) {
	w, err := readWCNF(f)
	if err != nil {
		return nil, fmt.Errorf("the exported WCNF: %w", err)
	}
	s := sat.NewCDCL()
	from := sat.AddCNF(s, w.hard, 0)
	cost := func() int {
		c := 0
		for i, l := range w.viol {
			if s.Value(l) {
				c += w.weights[i]
			}
		}
		return c
	}
	if a, err := refuted(ctx, s, "WCNF"); a != nil || err != nil {
		return a, err
	}
	best := cost()
	model := make([]bool, w.vars+1)
	keep := func() {
		for v := 1; v <= w.vars; v++ {
			model[v] = s.Value(sat.Lit(v))
		}
	}
	keep()
	if best > 0 {
		cnt, err := sat.NewSumCounter(ctx, w.hard, w.viol, w.weights, best, 0)
		if err != nil {
			return nil, err
		}
		sat.AddCNF(s, w.hard, from)
		for best > 0 {
			if l := cnt.AtLeast(best); l != 0 {
				s.AddClause(l.Not())
			}
			st, err := s.Solve(ctx)
			if err != nil {
				return nil, err
			}
			if st == sat.Unsatisfiable {
				break
			}
			if st != sat.Satisfiable {
				return nil, fmt.Errorf("the CDCL solver stopped on the exported WCNF: %w", context.Cause(ctx))
			}
			best = cost()
			keep()
		}
	}
	v := vLine(w.vars, func(v int) bool { return model[v] })
	return &answers{
		claim:   fmt.Appendf(nil, "s OPTIMUM FOUND\no %d\n%s", best, v),
		plain:   fmt.Appendf(nil, "s SATISFIABLE\no %d\n%s", best, v),
		optimum: true,
	}, nil
}

// answerMPS solves the MILP with HiGHS in process: the claim is HiGHS's
// own solution file (model status Optimal), the plain answer the same
// point as a Gurobi solution file, which states no status.
func answerMPS(ctx context.Context, f []byte) (*answers, error) {
	if !milp.HiGHSEnabled {
		return nil, errNoSolver{"HiGHS is not built in (build with -tags highs): no reference MILP solver"}
	}
	m, err := milp.ReadMPS(bytes.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("the exported MPS: %w", err)
	}
	sol, err := milp.HiGHS().Solve(ctx, m, milp.Params{Threads: 1})
	if err != nil {
		return nil, err
	}
	switch sol.Status {
	case milp.StatusInfeasible:
		return &answers{claim: []byte("Model status\nInfeasible\n\n# Primal solution values\nNone\n"),
			plain: []byte("Model status\nUnknown\n\n# Primal solution values\nNone\n"), infeasible: true}, nil
	case milp.StatusOptimal:
	default:
		return nil, fmt.Errorf("HiGHS ended %s (%s) on the exported MPS", sol.Status, sol.SolverStatus)
	}
	obj := m.Objective(sol.X)
	var claim, plain bytes.Buffer
	fmt.Fprintf(&claim, "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective %v\n# Columns %d\n", obj, len(m.Columns))
	fmt.Fprintf(&plain, "# Objective value = %v\n", obj)
	for j, c := range m.Columns {
		fmt.Fprintf(&claim, "%s %v\n", c.Name, sol.X[j])
		fmt.Fprintf(&plain, "%s %v\n", c.Name, sol.X[j])
	}
	return &answers{claim: claim.Bytes(), plain: plain.Bytes(), optimum: true}, nil
}

// answerMZN runs MiniZinc with Gecode on the model (a complete search:
// its last line "==========" is the claim of an optimum).
func answerMZN(ctx context.Context, f []byte, dir string) (*answers, error) {
	bin, err := exec.LookPath("minizinc")
	if err != nil {
		return nil, errNoSolver{"minizinc is not installed: no reference solver for the MiniZinc model"}
	}
	file := filepath.Join(dir, "model.mzn")
	if err := os.WriteFile(file, f, 0o644); err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, bin, "--solver", "gecode", "-a", file).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("minizinc: %w: %s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("minizinc: %w", err)
	}
	if bytes.Contains(out, []byte("=====UNSATISFIABLE=====")) {
		return &answers{claim: out, plain: []byte("=====UNKNOWN=====\n"), infeasible: true}, nil
	}
	if !bytes.Contains(out, []byte("==========")) {
		return nil, fmt.Errorf("minizinc ended its complete search without a verdict:\n%s", out)
	}
	var plain []byte
	for l := range bytes.Lines(out) {
		if !bytes.Equal(bytes.TrimSpace(l), []byte("==========")) {
			plain = append(plain, l...)
		}
	}
	return &answers{claim: out, plain: plain, optimum: true}, nil
}

// refuted runs the CDCL solver s on an exported formula (format names it):
// its refutation is the answers of an infeasible problem, a stop or an
// error is an error, and a model gives nil, nil for the caller to read.
func refuted(ctx context.Context, s *sat.CDCL, format string) (*answers, error) {
	st, err := s.Solve(ctx)
	switch {
	case err != nil:
		return nil, err
	case st == sat.Unsatisfiable:
		return &answers{claim: []byte("s UNSATISFIABLE\n"), plain: []byte("s UNKNOWN\n"), infeasible: true}, nil
	case st != sat.Satisfiable:
		return nil, fmt.Errorf("the CDCL solver stopped on the exported %s: %w", format, context.Cause(ctx))
	}
	return nil, nil
}
