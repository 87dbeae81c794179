package sat

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/odtkit/odtkit/internal/proc"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// External runs a DIMACS solver binary on every Solve: it writes the
// clauses added so far, plus one unit clause per assumption, to a
// temporary file and runs the command line.
//
// The command line is split into words like a shell would (single and
// double quotes group words; no other shell syntax); a command line
// wholly inside one pair of quotes, as in the option spelled
// external:"minisat {in} {out}", has that pair removed first, unless the
// quoted text names a program itself. These placeholders
// may appear inside words (at most one of {proof} and {drat}):
//
//   - {in}: the path of the DIMACS input; when absent, the path is
//     appended as the last argument;
//   - {out}: the path of a file the solver writes its answer to (as
//     minisat does: `minisat {in} {out}`); when absent, the answer is
//     read from the standard output;
//   - {proof}: the path of a file the solver writes an LRAT proof of
//     the input to (text; clause i of the input has ID i). An
//     Unsatisfiable answer is then accepted only with a proof that
//     derives the empty clause and that package lrat checks (Checked);
//     a proof that does not check is an error;
//   - {drat}: the same with a DRAT proof (text or binary, as CaDiCaL,
//     Kissat and Glucose write them: `cadical {in} {drat}`), which
//     package drat turns into LRAT for package lrat to check; a lemma
//     that does not follow by unit propagation (RAT lemmas included)
//     makes the answer an error.
//
// The answer is read by ParseOutput: SAT-competition "s"/"v" lines, or
// minisat's result file ("SAT" then the model line, "UNSAT", "INDET").
// The exit status is ignored (solvers exit with 10/20 by convention);
// a missing answer is an error that quotes the solver's output.
type External struct {
	argv []string
	cnf  CNF
	// model from the last satisfiable solve, indexed by variable.
	model []bool
	// Dir holds the temporary files ("" = the system default).
	Dir string
	// checked: the last Unsatisfiable answer came with a proof that
	// checked.
	checked bool
	// OutputLimit caps what is kept of the solver's answer (bytes, 0 =
	// none; see RunSolver), and the memory of a DRAT proof's elaboration
	// ({drat}): past it Solve fails with an error wrapping the memory
	// limit's.
	OutputLimit int64
	// unchecked counts the Unsatisfiable answers no proof confirmed,
	// proven those a proof did.
	unchecked, proven int
	// log keeps the checked proof for a certificate (StartProof).
	log *externalProof
}

// UncheckedRefutations is the number of Unsatisfiable answers of s that
// odtkit did not check: 0 for the in-process solvers, whose refutations
// are odtkit's own search; every one of an External solver's that came
// without a proof odtkit checked (Checked). A bound resting on an
// unchecked refutation is the solver's claim, not odtkit's proof.
func UncheckedRefutations(s Solver) int {
	if u, ok := s.(interface{ UncheckedRefutations() int }); ok {
		return u.UncheckedRefutations()
	}
	return 0
}

// UncheckedRefutations counts the Unsatisfiable answers no proof
// confirmed (see the package function).
func (e *External) UncheckedRefutations() int { return e.unchecked }

// CheckedRefutations counts the Unsatisfiable answers whose proof
// odtkit checked ({proof} or {drat}).
func (e *External) CheckedRefutations() int { return e.proven }

// CheckedRefutations is the number of an External solver's
// Unsatisfiable answers whose proofs odtkit checked (0 for the
// in-process solvers, whose refutations are odtkit's own search).
func CheckedRefutations(s Solver) int {
	if c, ok := s.(interface{ CheckedRefutations() int }); ok {
		return c.CheckedRefutations()
	}
	return 0
}

// Checked reports whether the last answer was Unsatisfiable with a
// proof ({proof} or {drat}) that package lrat checked.
func (e *External) Checked() bool { return e.checked }

// NewExternal parses the command line of an external solver.
func NewExternal(cmdline string) (*External, error) {
	argv, err := SplitCommand(cmdline)
	if err != nil {
		return nil, err
	}
	if len(argv) == 1 && strings.ContainsAny(argv[0], " \t") && quoted(cmdline) {
		// The whole command line in one pair of quotes, as the option's
		// help writes it (external:"minisat {in} {out}") and a shell
		// passes it on when the option is quoted again: the words are
		// inside. A program whose own path has spaces is kept whole.
		if _, err := exec.LookPath(argv[0]); err != nil {
			if argv, err = SplitCommand(argv[0]); err != nil {
				return nil, err
			}
		}
	}
	if len(argv) == 0 {
		return nil, errors.New("external SAT solver: empty command line")
	}
	if hasWord(argv, lratPlaceholder) && hasWord(argv, dratPlaceholder) {
		return nil, errors.New("external SAT solver: the command line asks for two proofs, {proof} (LRAT) and {drat} (DRAT): give one")
	}
	return &External{argv: argv}, nil
}

// hasWord reports whether a word of argv holds s.
func hasWord(argv []string, s string) bool {
	for _, a := range argv {
		if strings.Contains(a, s) {
			return true
		}
	}
	return false
}

// quoted reports whether s (trimmed) is one single- or double-quoted
// string.
func quoted(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || (s[0] != '"' && s[0] != '\'') || s[len(s)-1] != s[0] {
		return false
	}
	words, err := SplitCommand(s)
	return err == nil && len(words) == 1 && strings.IndexByte(s[1:len(s)-1], s[0]) < 0
}

// Command returns the command line words.
func (e *External) Command() []string { return append([]string(nil), e.argv...) }

// AddClause records a clause for the next solve.
func (e *External) AddClause(lits ...Lit) { e.cnf.Add(lits...) }

// Value is the value of l in the last model (false for variables the
// solver did not mention).
func (e *External) Value(l Lit) bool {
	v := l.Var()
	val := v < len(e.model) && e.model[v]
	if l < 0 {
		return !val
	}
	return val
}

// Solve writes the formula and runs the solver. The solver's process
// group is killed when ctx ends (the answer is then Unknown) and once the
// solver has exited, so that no process it started is left behind.
func (e *External) Solve(ctx context.Context, assumptions ...Lit) (Status, error) {
	e.checked = false
	if ctx.Err() != nil {
		return Unknown, nil
	}
	if e.log != nil && len(assumptions) > 0 {
		return Unknown, fmt.Errorf("%w: an external solver's proof covers a call without assumptions", ErrNotCertifiable)
	}
	dir, err := os.MkdirTemp(e.Dir, "odtkit-sat-")
	if err != nil {
		return Unknown, fmt.Errorf("external SAT solver: %w", err)
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.cnf"), filepath.Join(dir, "out.txt")
	f := e.cnf
	// Assumptions as unit clauses, on a copy of the clause list.
	f.lits = append([]Lit(nil), e.cnf.lits...)
	f.starts = append([]int(nil), e.cnf.starts...)
	for _, a := range assumptions {
		f.Add(a)
	}
	fh, err := os.Create(in)
	if err != nil {
		return Unknown, fmt.Errorf("external SAT solver: %w", err)
	}
	if err := f.WriteDIMACS(fh); err != nil {
		fh.Close()
		return Unknown, fmt.Errorf("external SAT solver: writing %s: %w", in, err)
	}
	if err := fh.Close(); err != nil {
		return Unknown, fmt.Errorf("external SAT solver: %w", err)
	}
	proof := filepath.Join(dir, "proof")
	words, proving := withProof(e.argv, proof)
	so, err := RunSolver(ctx, words, in, out, e.OutputLimit)
	if err != nil {
		return Unknown, fmt.Errorf("external SAT solver: %w", err)
	}
	if so.Stopped {
		return Unknown, nil
	}
	argv := e.argv
	st, m, err := ParseComplete(bytes.NewReader(so.Answer), f.NumVars)
	if err != nil {
		return Unknown, fmt.Errorf("external SAT solver %q: %w (answer: %s; stderr: %s)", argv[0], err, clip(string(so.Printed)), clip(string(so.Stderr)))
	}
	e.model = m
	if st == Satisfiable {
		if ok, i := f.Satisfies(m); !ok {
			return Unknown, fmt.Errorf("external SAT solver %q: its model falsifies clause %d %v", argv[0], i, f.Clause(i))
		}
	}
	if st == Unsatisfiable && proving != noProof {
		c, checkedFile, err := checkRefutation(ctx, in, proof, proving, dir, e.OutputLimit)
		if err != nil {
			if ctx.Err() != nil {
				return Unknown, nil
			}
			return Unknown, fmt.Errorf("external SAT solver %q: its UNSAT answer: %w", argv[0], err)
		}
		e.checked = true
		e.proven++
		if e.log != nil {
			if err := e.log.keep(c, in, checkedFile); err != nil {
				return Unknown, err
			}
		}
	}
	if st == Unsatisfiable && !e.checked {
		e.unchecked++
	}
	return st, nil
}

// RunSolver runs a solver's command line (words with {in}/{out}
// placeholders, see Substitute) on the input file in, in a process group
// of its own that is killed when ctx ends and once the solver has
// exited (internal/proc), so that no process it started outlives the
// call. The answer is the file out when a word names {out}, else the
// solver's standard output, read as it streams: only its status, cost
// and model lines are kept (the last "o" line, the last block of "v"
// lines), everything else is dropped. limit (bytes, 0 = none) caps what
// is kept and the size of an answer file: past it the solver is killed
// and the error wraps model.ErrMemoryLimit. stopped reports that ctx
// ended first (the answer is then what the solver had written so far,
// possibly nothing). The exit status is ignored (solvers exit with 10,
// 20 or 30 by convention).
func RunSolver(ctx context.Context, words []string, in, out string, limit int64) (*SolverOutput, error) {
	argv, usesOut := Substitute(words, in, out)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	so := &proc.Capture{Words: []string{"s"}, Last: []string{"o"}, Block: "v", Limit: limit, OnLimit: cancel}
	se := &proc.Head{N: 4096}
	runErr := proc.Run(rctx, "", argv, so, se)
	res := &SolverOutput{Printed: so.Start(), Stderr: se.Bytes()}
	if err := so.Err(); err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("%q: %w", argv[0], err)
	}
	res.Answer = so.Bytes()
	if usesOut {
		b, rerr := proc.ReadFile(out, limit)
		if proc.IsTooLarge(rerr) {
			return nil, fmt.Errorf("%q: %w", argv[0], rerr)
		}
		if rerr != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("%q wrote no answer file: %w (stderr: %s)", argv[0], rerr, clip(string(se.Bytes())))
		}
		res.Answer, res.Printed = b, b
	}
	if ctx.Err() != nil {
		res.Stopped = true
		return res, nil
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) {
		return nil, fmt.Errorf("%q: %w", argv[0], runErr)
	}
	return res, nil
}

// SolverOutput is what RunSolver kept of a solver's run.
type SolverOutput struct {
	// Answer holds the lines an answer is read from (or the answer file).
	Answer []byte
	// Printed is the start of the answer as printed, every line, and
	// Stderr the start of the standard error: for messages.
	Printed, Stderr []byte
	// Stopped: ctx ended first; Answer is what the solver had written.
	Stopped bool
}

func clip(s string) string { return proc.Clip(s) }

// Substitute replaces {in} and {out} in the words of a command line;
// when no word holds {in}, the input path is appended. It reports
// whether {out} was used.
func Substitute(argv []string, in, out string) ([]string, bool) {
	res := make([]string, len(argv))
	hasIn, hasOut := false, false
	for i, a := range argv {
		if strings.Contains(a, "{in}") {
			hasIn = true
		}
		if strings.Contains(a, "{out}") {
			hasOut = true
		}
		res[i] = strings.ReplaceAll(strings.ReplaceAll(a, "{in}", in), "{out}", out)
	}
	if !hasIn {
		res = append(res, in)
	}
	return res, hasOut
}

// SplitCommand splits a command line into words: whitespace separates
// words, single quotes keep everything literally, double quotes keep
// everything but a backslash-escaped " or \.
func SplitCommand(s string) ([]string, error) { return proc.SplitCommand(s) }

// ErrOutput wraps every error of ParseOutput: the text is not a SAT
// solver's answer in a known format.
var ErrOutput = errors.New("not a SAT solver's answer")

// ParseOutput reads a solver's answer: either SAT-competition output
// ("s SATISFIABLE" / "s UNSATISFIABLE" / "s UNKNOWN" and "v" lines of
// literals ending with 0; "c" lines and other lines are ignored), or
// minisat's result file (a first line "SAT", "UNSAT" or "INDET", and for
// SAT one line of literals ending with 0). The model is indexed by
// variable (entry 0 unused); variables not mentioned are false.
func ParseOutput(r io.Reader) (Status, []bool, error) {
	st, m, _, err := parseOutput(r)
	if err != nil {
		return Unknown, nil, fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return st, m, nil
}

// ParseComplete is ParseOutput for the answer to a formula of nvars
// variables, which must be whole: a satisfiable answer gives every
// variable 1..nvars a value and ends its literals with the closing 0.
// An answer cut short (a truncated file, a solver killed mid-line) is an
// error naming the first variable without a value, never a model whose
// missing variables read as false.
func ParseComplete(r io.Reader, nvars int) (Status, []bool, error) {
	st, m, a, err := parseOutput(r)
	if err == nil && st == Satisfiable {
		err = a.complete(nvars)
	}
	if err != nil {
		return Unknown, nil, fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return st, m, nil
}

// assigned records which variables a model gives a value.
type assigned struct {
	set    []bool
	closed bool // the closing 0 was read
	zero   bool // the form has a closing 0
}

func (a *assigned) mark(v int) {
	for len(a.set) <= v {
		a.set = append(a.set, false)
	}
	a.set[v] = true
}

// complete reports the first variable of 1..nvars without a value, or a
// missing closing 0.
func (a *assigned) complete(nvars int) error {
	for v := 1; v <= nvars; v++ {
		if v >= len(a.set) || !a.set[v] {
			return fmt.Errorf("the model gives no value to variable %d of %d (is the answer cut short?)", v, nvars)
		}
	}
	if a.zero && !a.closed {
		return errors.New("the model's literals do not end with the closing 0 (is the answer cut short?)")
	}
	return nil
}

func parseOutput(r io.Reader) (Status, []bool, *assigned, error) {
	as := &assigned{zero: true}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<28)
	status, seen := Unknown, false
	minisat := false
	var lits []int
	ended := false
	lineNo := 0
	addLits := func(fields []string) error {
		for _, t := range fields {
			x, err := strconv.Atoi(t)
			if err != nil {
				return fmt.Errorf("line %d: %q is not a literal", lineNo, t)
			}
			if ended {
				if x != 0 {
					return fmt.Errorf("line %d: literal %d after the terminating 0", lineNo, x)
				}
				continue
			}
			if x == 0 {
				ended, as.closed = true, true
				continue
			}
			if x > 1<<30 || x < -(1<<30) {
				return fmt.Errorf("line %d: literal %d out of range", lineNo, x)
			}
			lits = append(lits, x)
		}
		return nil
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		switch {
		case f[0] == "s":
			if seen {
				return Unknown, nil, nil, fmt.Errorf("line %d: second status line", lineNo)
			}
			seen = true
			switch strings.Join(f[1:], " ") {
			case "SATISFIABLE":
				status = Satisfiable
			case "UNSATISFIABLE":
				status = Unsatisfiable
			case "UNKNOWN", "INDETERMINATE":
				status = Unknown
			default:
				return Unknown, nil, nil, fmt.Errorf("line %d: unknown status %q", lineNo, line)
			}
		case f[0] == "v":
			if err := addLits(f[1:]); err != nil {
				return Unknown, nil, nil, err
			}
		case !seen && lineNo == 1 && len(f) == 1 && (f[0] == "SAT" || f[0] == "UNSAT" || f[0] == "INDET"):
			seen, minisat = true, true
			status = map[string]Status{"SAT": Satisfiable, "UNSAT": Unsatisfiable, "INDET": Unknown}[f[0]]
		case minisat && status == Satisfiable:
			if err := addLits(f); err != nil {
				return Unknown, nil, nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Unknown, nil, nil, fmt.Errorf("reading solver output: %w", err)
	}
	if !seen {
		return Unknown, nil, nil, errors.New("no status line (\"s SATISFIABLE\", \"s UNSATISFIABLE\", or minisat's SAT/UNSAT)")
	}
	if status != Satisfiable {
		return status, nil, as, nil
	}
	if len(lits) == 0 && !ended {
		return Unknown, nil, nil, errors.New("satisfiable but no model (\"v\" lines)")
	}
	maxv := 0
	for _, x := range lits {
		maxv = max(maxv, x, -x)
	}
	m := make([]bool, maxv+1)
	for _, x := range lits {
		if x > 0 {
			m[x] = true
		}
		as.mark(max(x, -x))
	}
	return Satisfiable, m, as, nil
}

// Started records the solvers a search starts, so that its caller can
// tell afterwards whether any bound rests on an external solver's
// unchecked refutation, and caps what is kept of an External solver's
// answers. It is safe for concurrent use.
type Started struct {
	// OutputLimit is given to every External solver (External.OutputLimit).
	OutputLimit int64
	mu          sync.Mutex
	list        []Solver
}

// Wrap returns newSolver recording each solver it makes.
func (s *Started) Wrap(newSolver func() (Solver, error)) func() (Solver, error) {
	return func() (Solver, error) {
		x, err := newSolver()
		if err != nil {
			return nil, err
		}
		if e, ok := x.(*External); ok {
			e.OutputLimit = s.OutputLimit
		}
		s.mu.Lock()
		s.list = append(s.list, x)
		s.mu.Unlock()
		return x, nil
	}
}

// UncheckedRefutations sums UncheckedRefutations over the solvers made.
func (s *Started) UncheckedRefutations() int { return s.sum(UncheckedRefutations) }

// CheckedRefutations sums CheckedRefutations over the solvers made.
func (s *Started) CheckedRefutations() int { return s.sum(CheckedRefutations) }

func (s *Started) sum(count func(Solver) int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, x := range s.list {
		n += count(x)
	}
	return n
}
