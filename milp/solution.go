package milp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SolutionFile is a MILP solver's answer for a model written by
// WriteMPS, as read by ReadSolution.
type SolutionFile struct {
	// Format names the solver output recognised: "highs" (HiGHS's
	// --solution_file, raw or sparse style), "cbc" (CBC's solu file),
	// "glpk-raw" (glpsol -w), "glpk-print" (glpsol -o), "gurobi"
	// (Gurobi's .sol), "scip" (SCIP's write solution), "cplex" (CPLEX's
	// XML solution), "lp_solve" (lp_solve's printed solution, -S3 or
	// -S4) or "symphony" (SYMPHONY's printed solution).
	Format string
	// Status is how the solve ended, as the file states it: StatusOptimal
	// is the solver's claim (within its own gap tolerance), not a proof.
	Status Status
	// SolverStatus is the solver's own words.
	SolverStatus string
	// Objective is the objective value the file states (HasObjective).
	Objective    float64
	HasObjective bool
	// X holds one value per column of the model (nil without a solution).
	// Under an infeasible status X is a point the file lists all the same
	// (CPLEX, SCIP and HiGHS write one only when they found it): a
	// point that checks refutes the solver's infeasibility.
	X []float64
	// Stray reports that X holds values the file lists under a status
	// that says there is no solution (CBC's LP point after "no integer
	// solution" or "Infeasible", GLPK's table of an empty or undefined
	// MIP): a point of the model only if it checks, else no point at all.
	Stray bool
}

// ErrSolution wraps every error of ReadSolution: the file is not a
// solution of the model in a known format.
var ErrSolution = errors.New("not a solution file of the model")

// ReadSolution reads a MILP solver's answer for m, written by WriteMPS
// or WriteLP (so that the columns are the model's), recognised from its
// content: HiGHS (--solution_file, with write_solution_style 0 or 4),
// CBC (solve solu FILE), GLPK (glpsol -w FILE or -o FILE), Gurobi (a
// .sol file), SCIP (write solution FILE), CPLEX (its XML solution),
// lp_solve (its printed solution, -S3 or -S4) or SYMPHONY (its printed
// solution, symphony -F FILE). Where a format lists only the non-zero
// values (CBC, sparse HiGHS, SCIP, SYMPHONY, CPLEX's write levels 3),
// a column it does not mention is 0 by that format's definition; where
// it lists every value (raw HiGHS, GLPK, Gurobi, lp_solve, CPLEX's
// write level 1), a column missing is an error naming it. Errors name
// the line.
func ReadSolution(r io.Reader, m *Model) (*SolutionFile, error) {
	lines, err := readLines(r, answerLimit(m))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSolution, err)
	}
	sr := &solReader{m: m, lines: lines, byName: make(map[string]int, len(m.Columns))}
	for j, c := range m.Columns {
		sr.byName[c.Name] = j
	}
	// A solver that read the model as CPLEX LP (WriteLP) names the
	// columns by their LP names.
	for j, c := range m.Columns {
		if n := LPName(c.Name); n != c.Name {
			if _, taken := sr.byName[n]; !taken {
				sr.byName[n] = j
			}
		}
	}
	first := ""
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			first = t
			break
		}
	}
	switch {
	case first == "Model status":
		err = sr.highs()
	case strings.HasPrefix(first, "c ") || strings.HasPrefix(first, "s mip "):
		err = sr.glpkRaw()
	case strings.HasPrefix(first, "Problem:"):
		err = sr.glpkPrint()
	case first != "" && cbcStatus(first) != "":
		err = sr.cbc()
	case strings.HasPrefix(first, "# Solution for model") || strings.HasPrefix(first, "# Objective value"):
		err = sr.gurobi()
	case strings.HasPrefix(first, "solution status:"):
		err = sr.scip()
	case strings.HasPrefix(first, "<?xml") || strings.HasPrefix(first, "<CPLEXSolution"):
		err = sr.cplex()
	case sr.lpSolveStart() >= 0:
		err = sr.lpSolve()
	case sr.symphonyStart() >= 0:
		err = sr.symphony()
	default:
		return nil, fmt.Errorf("%w: unknown format (want the output of highs, cbc, glpsol, gurobi, scip, cplex, lp_solve or symphony)", ErrSolution)
	}
	if err != nil {
		return nil, err
	}
	return &sr.sol, nil
}

type solReader struct {
	m      *Model
	lines  []string
	byName map[string]int
	sol    SolutionFile
	// seen marks the columns the file gave a value.
	seen []bool
}

func (sr *solReader) errf(line int, format string, a ...any) error {
	if line < 0 || line >= len(sr.lines) {
		// The reader ran off the end: name where the file stops.
		return fmt.Errorf("%w: %s file truncated (it ends after line %d): %s", ErrSolution, sr.sol.Format, len(sr.lines), fmt.Sprintf(format, a...))
	}
	return fmt.Errorf("%w: %s line %d: %s", ErrSolution, sr.sol.Format, line+1, fmt.Sprintf(format, a...))
}

// num reads a finite decimal number (solvers print no other kind: a
// hexadecimal float, digits with underscores, "inf" or "nan" are not
// values of a point).
func (sr *solReader) num(line int, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.Trim(s, "0123456789+-.eE") != "" {
		return 0, sr.errf(line, "%q is not a finite number", s)
	}
	return v, nil
}

// set stores a column value by name or by 0-based index.
func (sr *solReader) set(line int, name string, index int, v float64) error {
	if sr.sol.X == nil {
		sr.sol.X = make([]float64, len(sr.m.Columns))
	}
	if sr.seen == nil {
		sr.seen = make([]bool, len(sr.m.Columns))
	}
	j := index
	if name != "" {
		var ok bool
		if j, ok = sr.byName[name]; !ok {
			return sr.errf(line, "the model has no column %q (was the file written for this model?)", name)
		}
		if index >= 0 && index != j {
			return sr.errf(line, "column %q is column %d of the model, not %d", name, j, index)
		}
	}
	if j < 0 || j >= len(sr.m.Columns) {
		return sr.errf(line, "column %d out of range (the model has %d)", index+1, len(sr.m.Columns))
	}
	if sr.seen[j] {
		return sr.errf(line, "a second value for column %q", sr.m.Columns[j].Name)
	}
	sr.sol.X[j], sr.seen[j] = v, true
	return nil
}

// requireAll is the check of a format that lists every column: the
// first column without a value is an error (the file is cut short or
// was written for another model).
func (sr *solReader) requireAll() error {
	if sr.sol.X == nil {
		return nil
	}
	for j, ok := range sr.seen {
		if !ok {
			return sr.errf(len(sr.lines), "no value for column %q (%d of %d); this format lists every column", sr.m.Columns[j].Name, j+1, len(sr.m.Columns))
		}
	}
	return nil
}

func (sr *solReader) objective(line int, s string) error {
	v, err := sr.num(line, s)
	sr.sol.Objective, sr.sol.HasObjective = v, err == nil
	return err
}

// highs reads HiGHS's raw (style 0) or sparse (style 4) solution file.
func (sr *solReader) highs() error {
	sr.sol.Format = "highs"
	i := 0
	next := func() (string, int) {
		for i < len(sr.lines) {
			i++
			if t := strings.TrimSpace(sr.lines[i-1]); t != "" {
				return t, i - 1
			}
		}
		return "", len(sr.lines) // the end: errf says the file is truncated
	}
	next() // "Model status"
	st, _ := next()
	sr.sol.SolverStatus = st
	switch strings.ToLower(st) {
	case "optimal":
		sr.sol.Status = StatusOptimal
	case "infeasible":
		sr.sol.Status = StatusInfeasible
	default:
		sr.sol.Status = StatusNoSolution
	}
	if t, ln := next(); t != "# Primal solution values" {
		if t == "" && sr.sol.Status == StatusInfeasible {
			return nil
		}
		return sr.errf(ln, "want \"# Primal solution values\" after the model status, got %q", t)
	}
	feas, ln := next()
	if feas != "Feasible" {
		// "None" or "Infeasible": no solution to read.
		if sr.sol.Status == StatusOptimal {
			return sr.errf(ln, "model status optimal but primal solution %q", feas)
		}
		return nil
	}
	t, ln := next()
	if obj, ok := strings.CutPrefix(t, "Objective "); ok {
		if err := sr.objective(ln, strings.TrimSpace(obj)); err != nil {
			return err
		}
		t, ln = next()
	}
	cnt, ok := strings.CutPrefix(t, "# Columns ")
	n, err := strconv.Atoi(strings.TrimSpace(cnt))
	if !ok || err != nil {
		return sr.errf(ln, "want \"# Columns N\", got %q", t)
	}
	sparse := n < 0
	if !sparse && n != len(sr.m.Columns) {
		return sr.errf(ln, "%d columns, the model has %d", n, len(sr.m.Columns))
	}
	sr.sol.X = make([]float64, len(sr.m.Columns))
	for k := 0; k < max(n, -n); k++ {
		t, ln = next()
		f := strings.Fields(t)
		want := 2
		if sparse {
			want = 3
		}
		if len(f) != want {
			return sr.errf(ln, "want %d fields (name value%s), got %q", want, map[bool]string{true: " index"}[sparse], t)
		}
		v, err := sr.num(ln, f[1])
		if err != nil {
			return err
		}
		index := -1
		if sparse {
			if index, err = strconv.Atoi(f[2]); err != nil {
				return sr.errf(ln, "column index %q", f[2])
			}
		} else {
			index = k
		}
		if err := sr.set(ln, f[0], index, v); err != nil {
			return err
		}
	}
	if sr.sol.Status == StatusNoSolution {
		// A time or node limit with a feasible point.
		sr.sol.Status = StatusFeasible
	}
	return nil
}

// cbcStatus maps the first line of CBC's solution file to a status
// ("" when it is not one). "(no integer solution - continuous used)"
// marks a stop before any integer point: the values CBC lists are the
// LP relaxation's, not a solution.
func cbcStatus(line string) Status {
	switch {
	case strings.HasPrefix(line, "Stopped on") && strings.Contains(line, "(no integer solution"),
		strings.HasPrefix(line, "Status unknown") && strings.Contains(line, "(no integer solution"):
		return StatusNoSolution
	case strings.HasPrefix(line, "Stopped on"), strings.HasPrefix(line, "Status unknown"):
		// A limit with an integer point: feasible, no claim.
		return StatusFeasible
	case strings.HasPrefix(line, "Optimal - objective value"):
		return StatusOptimal
	case strings.HasPrefix(line, "Infeasible"), strings.HasPrefix(line, "Integer infeasible"):
		return StatusInfeasible
	case strings.HasPrefix(line, "Unbounded"):
		return StatusNoSolution
	}
	return ""
}

// cbc reads CBC's solution file: a status line, then one line "index
// name value reduced-cost" per non-zero column (marked "**" when
// infeasible).
func (sr *solReader) cbc() error {
	sr.sol.Format = "cbc"
	started := false
	for ln, l := range sr.lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if !started {
			started = true
			sr.sol.SolverStatus, sr.sol.Status = t, cbcStatus(t)
			if _, obj, ok := strings.Cut(t, "objective value"); ok {
				if err := sr.objective(ln, strings.TrimSpace(obj)); err != nil {
					return err
				}
			}
			continue
		}
		if sr.sol.Status == StatusInfeasible {
			break // CBC lists the infeasible LP point: no solution
		}
		if strings.HasPrefix(t, "**") && sr.sol.Status == StatusNoSolution {
			sr.sol.X, sr.seen = nil, nil // an LP point CBC marks infeasible
			break
		}
		if strings.HasPrefix(t, "**") {
			return sr.errf(ln, "CBC marks a value as infeasible: %q", t)
		}
		f := strings.Fields(t)
		if len(f) < 3 {
			return sr.errf(ln, "want \"index name value reduced-cost\", got %q", t)
		}
		index, err := strconv.Atoi(f[0])
		if err != nil {
			return sr.errf(ln, "column index %q", f[0])
		}
		v, err := sr.num(ln, f[2])
		if err != nil {
			return err
		}
		if err := sr.set(ln, f[1], index, v); err != nil {
			return err
		}
	}
	sr.keepX() // (CBC lists only the non-zeros)
	return nil
}

// glpkStatus maps GLPK's MIP status to a status.
func glpkStatus(s string) Status {
	switch s {
	case "o", "INTEGER OPTIMAL":
		return StatusOptimal
	case "f", "INTEGER NON-OPTIMAL":
		return StatusFeasible
	case "n", "INTEGER EMPTY":
		return StatusInfeasible
	}
	return StatusNoSolution
}

// glpkRaw reads glpsol -w: "s mip ROWS COLS STATUS OBJ", then "i ROW
// VALUE" and "j COL VALUE" lines (1-based, in the MPS file's order).
func (sr *solReader) glpkRaw() error {
	sr.sol.Format = "glpk-raw"
	seen := false
	for ln, l := range sr.lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] == "c" || f[0] == "i" {
			continue
		}
		switch f[0] {
		case "s":
			if len(f) != 6 || f[1] != "mip" {
				return sr.errf(ln, "want \"s mip ROWS COLS STATUS OBJ\" (a MIP solution), got %q", l)
			}
			if n, err := strconv.Atoi(f[3]); err != nil || n != len(sr.m.Columns) {
				return sr.errf(ln, "%s columns, the model has %d", f[3], len(sr.m.Columns))
			}
			sr.sol.SolverStatus, sr.sol.Status = "status "+f[4], glpkStatus(f[4])
			if err := sr.objective(ln, f[5]); err != nil {
				return err
			}
			seen = true
		case "j":
			if !seen {
				return sr.errf(ln, "column value before the \"s mip\" line")
			}
			if len(f) != 3 {
				return sr.errf(ln, "want \"j COL VALUE\", got %q", l)
			}
			index, err := strconv.Atoi(f[1])
			if err != nil {
				return sr.errf(ln, "column number %q", f[1])
			}
			v, err := sr.num(ln, f[2])
			if err != nil {
				return err
			}
			if err := sr.set(ln, "", index-1, v); err != nil {
				return err
			}
		case "e":
			// end of file
		default:
			return sr.errf(ln, "unknown line %q", l)
		}
	}
	if !seen {
		return sr.errf(len(sr.lines)-1, "no \"s mip\" line")
	}
	sr.keepX()
	return nil
}

// keepX completes the values of a format that lists only the non-zeros
// under a status with a solution. Under a status without one, values
// the file lists anyway (CBC's LP point, GLPK's table) are kept as
// Stray: a point only if it checks.
func (sr *solReader) keepX() {
	switch sr.sol.Status {
	case StatusOptimal, StatusFeasible:
		if sr.sol.X == nil {
			sr.sol.X = make([]float64, len(sr.m.Columns))
		}
	default:
		sr.sol.Stray = sr.sol.X != nil
	}
}

// glpkPrint reads glpsol -o: the "Status:" and "Objective:" lines, then
// the column table (a name longer than the column continues its values
// on the next line).
func (sr *solReader) glpkPrint() error {
	sr.sol.Format = "glpk-print"
	inCols := false
	seen := 0
	for ln := 0; ln < len(sr.lines); ln++ {
		t := strings.TrimSpace(sr.lines[ln])
		switch {
		case strings.HasPrefix(t, "Status:"):
			sr.sol.SolverStatus = strings.TrimSpace(strings.TrimPrefix(t, "Status:"))
			sr.sol.Status = glpkStatus(sr.sol.SolverStatus)
			continue
		case strings.HasPrefix(t, "Objective:"):
			// "Objective:  obj = 1 (MINimum)"
			f := strings.Fields(t)
			if len(f) >= 4 && f[2] == "=" {
				if err := sr.objective(ln, f[3]); err != nil {
					return err
				}
			}
			continue
		case strings.HasPrefix(t, "No.") && strings.Contains(t, "Column name"):
			inCols = true
			continue
		}
		if !inCols || strings.HasPrefix(t, "------") {
			continue
		}
		if t == "" || strings.HasPrefix(t, "Integer feasibility") || strings.HasPrefix(t, "Karush") {
			if seen > 0 || t != "" {
				break
			}
			continue
		}
		f := strings.Fields(t)
		if len(f) == 2 && ln+1 < len(sr.lines) {
			// A long name: the values follow on the next line.
			ln++
			f = append(f, strings.Fields(sr.lines[ln])...)
		}
		if len(f) < 3 {
			return sr.errf(ln, "want \"No. name activity ...\", got %q", t)
		}
		index, err := strconv.Atoi(f[0])
		if err != nil {
			return sr.errf(ln, "column number %q", f[0])
		}
		act := f[2]
		if act == "*" && len(f) > 3 {
			act = f[3] // integer column marker
		}
		v, err := sr.num(ln, act)
		if err != nil {
			return err
		}
		if err := sr.set(ln, f[1], index-1, v); err != nil {
			return err
		}
		seen++
		if seen == len(sr.m.Columns) {
			break
		}
	}
	if sr.sol.SolverStatus == "" {
		return sr.errf(0, "no \"Status:\" line")
	}
	if seen != len(sr.m.Columns) && (sr.sol.Status == StatusOptimal || sr.sol.Status == StatusFeasible) {
		return sr.errf(len(sr.lines)-1, "%d column values, the model has %d columns", seen, len(sr.m.Columns))
	}
	sr.keepX()
	return nil
}

// MaxAnswerLine is the longest line ReadSolution reads: no solver writes
// a line near it (a column's name and value, a status), so a longer one
// is not an answer, and reading on would hold it all in memory.
const MaxAnswerLine = 1 << 20

// answerLimit is the largest answer ReadSolution reads for m: 16 MiB and
// 1 KiB per column and row of the model, well above what any solver
// prints for it (lp_solve -S4, the most verbose, about 150 bytes per
// column and row), so that a runaway file is refused within memory
// proportional to the model.
func answerLimit(m *Model) int64 {
	return 16<<20 + 1024*int64(len(m.Columns)+len(m.Rows))
}

// readLines reads r as lines (without their line ends), refusing a line
// longer than MaxAnswerLine and a text longer than limit bytes, each
// naming the line where the reading stopped.
func readLines(r io.Reader, limit int64) ([]string, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var lines []string
	var total int64
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		total += int64(len(chunk))
		if total > limit {
			return nil, fmt.Errorf("line %d: the answer passes %d MiB, more than a solver writes for a model of this size (is it the right file?)", len(lines)+1, limit>>20)
		}
		if err == bufio.ErrBufferFull {
			if len(long)+len(chunk) > MaxAnswerLine {
				return nil, fmt.Errorf("line %d is longer than %d KiB: not a solver's answer", len(lines)+1, MaxAnswerLine>>10)
			}
			long = append(long, chunk...)
			continue
		}
		if len(long) > 0 {
			chunk = append(long, chunk...)
			long = long[:0]
			if len(chunk) > MaxAnswerLine {
				return nil, fmt.Errorf("line %d is longer than %d KiB: not a solver's answer", len(lines)+1, MaxAnswerLine>>10)
			}
		}
		if len(chunk) > 0 || err == nil {
			l := strings.TrimSuffix(strings.TrimSuffix(string(chunk), "\n"), "\r")
			lines = append(lines, l)
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", len(lines)+1, err)
		}
	}
}
