package milp

import (
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// This file reads the answers of the MILP solvers whose output odtkit
// does not ask for itself but researchers bring back from an exported
// MPS or LP file: Gurobi, SCIP, CPLEX, lp_solve and SYMPHONY.

// nameValue reads a "name value" line of a column table; extra, when
// not nil, accepts what a format prints after the value (SCIP's
// "(obj:c)"), and anything else after it is an error.
func (sr *solReader) nameValue(ln int, t string, extra func(string) bool) error {
	f := strings.Fields(t)
	if len(f) < 2 {
		return sr.errf(ln, "want \"name value\", got %q", t)
	}
	if len(f) > 2 && (extra == nil || !extra(strings.Join(f[2:], " "))) {
		return sr.errf(ln, "want \"name value\", got %q (%q after the value)", t, strings.Join(f[2:], " "))
	}
	v, err := sr.num(ln, f[1])
	if err != nil {
		return err
	}
	return sr.set(ln, f[0], -1, v)
}

// gurobi reads Gurobi's .sol file: comment lines ("# Solution for model
// NAME", "# Objective value = V"), then one "name value" line for every
// column. The file states no status: Gurobi writes it for the best
// solution found, proven or not, so the answer is feasible.
func (sr *solReader) gurobi() error {
	sr.sol.Format = "gurobi"
	sr.sol.SolverStatus = "solution file (no status)"
	sr.sol.Status = StatusFeasible
	for ln, l := range sr.lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if c, ok := strings.CutPrefix(t, "#"); ok {
			if v, ok := strings.CutPrefix(strings.TrimSpace(c), "Objective value ="); ok {
				if err := sr.objective(ln, strings.TrimSpace(v)); err != nil {
					return err
				}
			}
			continue
		}
		if err := sr.nameValue(ln, t, nil); err != nil {
			return err
		}
	}
	if sr.sol.X == nil {
		return sr.errf(len(sr.lines), "no column values")
	}
	return sr.requireAll()
}

// scipObj accepts what SCIP prints after a value: the column's
// objective contribution, "(obj:c)".
func scipObj(s string) bool {
	c, ok := strings.CutPrefix(s, "(obj:")
	c, ok2 := strings.CutSuffix(c, ")")
	if !ok || !ok2 {
		return false
	}
	_, err := strconv.ParseFloat(c, 64)
	return err == nil
}

// scipStatus maps SCIP's "solution status:" to a status.
func scipStatus(s string) Status {
	switch s {
	case "optimal solution found":
		return StatusOptimal
	case "infeasible":
		return StatusInfeasible
	}
	// A limit, an interrupt, "unbounded", "infeasible or unbounded",
	// "unknown": a solution, if one is listed, is feasible.
	return StatusNoSolution
}

// scip reads SCIP's solution file (write solution FILE, or the solution
// part of scip -c "read F.mps opt write solution F.sol quit"): "solution
// status: S", "objective value: V", then "name value (obj:c)" for the
// non-zero columns (all columns when SCIP's write/printzeros is set), or
// "no solution available".
func (sr *solReader) scip() error {
	sr.sol.Format = "scip"
	for ln, l := range sr.lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.HasPrefix(t, "solution status:"):
			if sr.sol.SolverStatus != "" {
				return sr.errf(ln, "a second \"solution status:\" line")
			}
			sr.sol.SolverStatus = strings.TrimSpace(strings.TrimPrefix(t, "solution status:"))
			sr.sol.Status = scipStatus(sr.sol.SolverStatus)
		case strings.HasPrefix(t, "objective value:"):
			if err := sr.objective(ln, strings.TrimSpace(strings.TrimPrefix(t, "objective value:"))); err != nil {
				return err
			}
		case t == "no solution available":
			if sr.sol.Status == StatusOptimal {
				return sr.errf(ln, "status %q but no solution", sr.sol.SolverStatus)
			}
			sr.sol.X = nil
			return nil
		default:
			if err := sr.nameValue(ln, t, scipObj); err != nil {
				return err
			}
		}
	}
	switch {
	case sr.sol.Status == StatusNoSolution && sr.sol.HasObjective:
		// A limit with a solution: feasible.
		sr.sol.Status = StatusFeasible
	case sr.sol.Status == StatusInfeasible && sr.sol.X != nil:
		// Values under "infeasible": a point to check, not to drop.
		return nil
	}
	sr.keepX() // (SCIP lists only the non-zeros by default)
	return nil
}

// cplexXML is the part of CPLEX's XML solution file that ReadSolution
// reads.
type cplexXML struct {
	XMLName xml.Name `xml:"CPLEXSolution"`
	Header  struct {
		ObjectiveValue       *string `xml:"objectiveValue,attr"`
		SolutionStatusValue  string  `xml:"solutionStatusValue,attr"`
		SolutionStatusString string  `xml:"solutionStatusString,attr"`
		WriteLevel           string  `xml:"writeLevel,attr"`
	} `xml:"header"`
	Variables []struct {
		Name  string `xml:"name,attr"`
		Index *int   `xml:"index,attr"`
		Value string `xml:"value,attr"`
	} `xml:"variables>variable"`
}

// cplexStatus maps CPLEX's solution status code of a MIP to a status:
// 101 is "integer optimal solution"; 103 "integer infeasible"; the codes
// of a stop without an integer solution (a limit, a failure or an abort
// "…, no integer solution", unbounded) have none; the rest — 102,
// optimal within the gap tolerance, and the limits, failures and aborts
// with a solution — are feasible, no claim.
func cplexStatus(code string) Status {
	switch code {
	case "101":
		return StatusOptimal
	case "103":
		return StatusInfeasible
	case "106", "108", "110", "112", "114", "117", "118", "119", "132":
		return StatusNoSolution
	}
	return StatusFeasible
}

// cplex reads CPLEX's XML solution file (<CPLEXSolution>, with a header
// giving objectiveValue, solutionStatusValue and solutionStatusString,
// and <variable name=... value=...> elements). CPLEX writes every
// variable at write level 1 (the default) and only the non-zeros at
// level 3; levels 2 and 4 leave out the continuous variables, without
// which no point of the model can be checked.
func (sr *solReader) cplex() error {
	sr.sol.Format = "cplex"
	var doc cplexXML
	if err := xml.Unmarshal([]byte(strings.Join(sr.lines, "\n")), &doc); err != nil {
		var se *xml.SyntaxError
		if errors.As(err, &se) && se.Line >= 1 && se.Line <= len(sr.lines) && se.Msg != "unexpected EOF" {
			return sr.errf(se.Line-1, "not a CPLEX XML solution: %s", se.Msg)
		}
		return sr.errf(len(sr.lines), "not a CPLEX XML solution: %v", err)
	}
	h := doc.Header
	sr.sol.SolverStatus = strings.TrimSpace(h.SolutionStatusString)
	if sr.sol.SolverStatus == "" {
		sr.sol.SolverStatus = "status " + h.SolutionStatusValue
	}
	if h.SolutionStatusValue == "" {
		return sr.errf(0, "the header has no solutionStatusValue")
	}
	sr.sol.Status = cplexStatus(h.SolutionStatusValue)
	if h.ObjectiveValue != nil {
		if err := sr.objective(0, *h.ObjectiveValue); err != nil {
			return err
		}
	}
	if sr.sol.Status != StatusOptimal && sr.sol.Status != StatusFeasible && len(doc.Variables) == 0 {
		return nil
	}
	// Values under a status without a solution are a point to check:
	// under "infeasible" CPLEX's word against its own point, under a
	// stop without one (not a file CPLEX writes) a point only if it checks.
	sr.sol.Stray = sr.sol.Status == StatusNoSolution
	switch h.WriteLevel {
	case "", "1", "3":
	case "2", "4":
		return sr.errf(0, "writeLevel %s lists only the discrete variables; write the solution with CPLEX's write level 1 (all variables) or 3 (the non-zeros)", h.WriteLevel)
	default:
		return sr.errf(0, "unknown writeLevel %q", h.WriteLevel)
	}
	for _, v := range doc.Variables {
		x, err := sr.num(0, v.Value)
		if err != nil {
			return sr.errf(0, "variable %q: value %q is not a finite number", v.Name, v.Value)
		}
		index := -1
		if v.Index != nil {
			index = *v.Index
		}
		if err := sr.set(0, v.Name, index, x); err != nil {
			return err
		}
	}
	if sr.sol.X == nil {
		return sr.errf(len(sr.lines), "status %q but no <variable> values", sr.sol.SolverStatus)
	}
	if h.WriteLevel != "3" {
		return sr.requireAll()
	}
	return nil
}

// lpSolveVerdicts are the lines lp_solve prints for how its solve
// ended, other than an optimum (which it prints no line for), and what
// each says: a point follows only the first three.
var lpSolveVerdicts = map[string]Status{
	"Suboptimal solution": StatusFeasible, // a limit (-timeout, -f, -o, -b) stopped the search
	"Presolved solution":  StatusFeasible, // lp_solve's presolve ended the solve; read without a claim
	"The model is sub-optimal. Only a faster solution was found.": StatusFeasible,
	"This problem is infeasible":                                  StatusInfeasible,
	"This problem is unbounded":                                   StatusNoSolution,
	"Timeout":                                                     StatusNoSolution,
	"User aborted":                                                StatusNoSolution,
	"Out of memory":                                               StatusNoSolution,
	"The B&B routine failed":                                      StatusNoSolution,
	"lp_solve failed":                                             StatusNoSolution,
}

// lpSolveStart is the line of lp_solve's printed answer that starts it
// (-1 when the text is not lp_solve's): its objective line or its
// verdict on how the solve ended.
func (sr *solReader) lpSolveStart() int {
	for ln, l := range sr.lines {
		t := strings.TrimSpace(l)
		if _, ok := lpSolveVerdicts[t]; ok || strings.HasPrefix(t, "Value of objective function:") {
			return ln
		}
	}
	return -1
}

// lpSolve reads lp_solve's printed solution (lp_solve -S3 or -S4 with
// -fmps, -mps or -wlp input): "Value of objective function: V", then
// under "Actual values of the variables:" one "name value" line per
// column, every column (printing only the non-zeros is an option of
// lp_solve's -print_sol, whose output this reader refuses as cut short).
// lp_solve prints no line before an optimum, "Suboptimal solution"
// before a point found when a limit (-timeout, a break option) stopped
// the search, and one line instead of a point when it has none ("This
// problem is infeasible", "Timeout", ...: lpSolveVerdicts). A run that
// printed every improved solution (-i) is read at its last one. lp_solve
// reads an MPS objective constant with the opposite sign of HiGHS's; the
// objective check allows for it.
func (sr *solReader) lpSolve() error {
	sr.sol.Format = "lp_solve"
	start := sr.lpSolveStart()
	sr.sol.Status = StatusOptimal
	sr.sol.SolverStatus = "optimal (no status line)"
	inVars := false
	for ln := 0; ln < len(sr.lines); ln++ {
		t := strings.TrimSpace(sr.lines[ln])
		if st, ok := lpSolveVerdicts[t]; ok {
			if sr.sol.HasObjective && st != StatusFeasible {
				return sr.errf(ln, "lp_solve's verdict %q after a printed solution", t)
			}
			sr.sol.Status, sr.sol.SolverStatus = st, t
			if st != StatusFeasible {
				sr.sol.X = nil
				return nil
			}
			continue
		}
		switch {
		case ln < start:
		case strings.HasPrefix(t, "Value of objective function:"):
			v := strings.TrimSpace(strings.TrimPrefix(t, "Value of objective function:"))
			if err := sr.objective(ln, v); err != nil {
				return err
			}
		case t == "Actual values of the variables:":
			// A later block (an improved solution) replaces an earlier.
			inVars, sr.sol.X, sr.seen = true, nil, nil
		case t == "" || strings.HasPrefix(t, "Actual values of the constraints:") || strings.HasPrefix(t, "Dual value"):
			inVars = false
		case inVars:
			if err := sr.nameValue(ln, t, nil); err != nil {
				return err
			}
		}
	}
	if !sr.sol.HasObjective {
		return sr.errf(len(sr.lines), "no \"Value of objective function:\" line")
	}
	if sr.sol.X == nil {
		return sr.errf(len(sr.lines), "no \"Actual values of the variables:\" block (run lp_solve with -S3 or -S4)")
	}
	return sr.requireAll()
}

// symphonyStart is the line of SYMPHONY's printed answer that makes the
// text SYMPHONY's (-1 when it is not): its banner or its solution.
func (sr *solReader) symphonyStart() int {
	for ln, l := range sr.lines {
		t := strings.TrimSpace(l)
		if strings.Contains(t, "Welcome to the SYMPHONY") || strings.HasPrefix(t, "Solution Cost:") {
			return ln
		}
	}
	return -1
}

// symphonyStatus maps the banner of SYMPHONY's end ("* Optimal Solution
// Found *") to a status ("" when the line is not one).
func symphonyStatus(banner string) Status {
	switch {
	case strings.HasPrefix(banner, "Optimal Solution Found"):
		return StatusOptimal
	case strings.HasPrefix(banner, "Problem Infeasible"), strings.HasPrefix(banner, "Problem Found Infeasible"):
		return StatusInfeasible
	case strings.HasPrefix(banner, "Time Limit Reached"), strings.HasPrefix(banner, "Node Limit Reached"),
		strings.HasPrefix(banner, "Target Gap Achieved"), strings.HasPrefix(banner, "Abort Requested"),
		strings.HasPrefix(banner, "Stopping After Finding First Feasible Solution"),
		strings.HasPrefix(banner, "Relaxation Unbounded"), strings.HasPrefix(banner, "Problem Found Unbounded"),
		strings.HasPrefix(banner, "Terminated abnormally"), strings.HasPrefix(banner, "A process has died"):
		return StatusNoSolution
	}
	return ""
}

// symphony reads SYMPHONY's printed output (symphony -F FILE.mps): the
// banner of how the search ended ("* Optimal Solution Found *", "* Time
// Limit Reached *", "* Problem Infeasible *", ...), then "Solution
// Cost: V" and, under "Column names and values of nonzeros in the
// solution", one "name value" line per non-zero column ("All columns are
// zero in the solution!" when there is none), or "No Solution Found".
func (sr *solReader) symphony() error {
	sr.sol.Format = "symphony"
	inCols, found := false, false
	for ln, l := range sr.lines {
		t := strings.TrimSpace(l)
		if b, ok := strings.CutPrefix(t, "* "); ok && !inCols {
			b = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(b), "*"))
			if st := symphonyStatus(b); st != "" {
				sr.sol.Status, sr.sol.SolverStatus = st, b
			}
			continue
		}
		switch {
		case t == "No Solution Found":
			sr.sol.X = nil
			if sr.sol.Status == StatusOptimal {
				return sr.errf(ln, "status %q but no solution", sr.sol.SolverStatus)
			}
			if sr.sol.Status == "" {
				sr.sol.Status, sr.sol.SolverStatus = StatusNoSolution, t
			}
			return nil
		case strings.HasPrefix(t, "Solution Cost:"):
			if err := sr.objective(ln, strings.TrimSpace(strings.TrimPrefix(t, "Solution Cost:"))); err != nil {
				return err
			}
			found = true
		case t == "Column names and values of nonzeros in the solution":
			if !found {
				return sr.errf(ln, "column values before the \"Solution Cost:\" line")
			}
			inCols = true
			sr.sol.X = make([]float64, len(sr.m.Columns))
		case t == "User indices and values of nonzeros in the solution":
			return sr.errf(ln, "the solution lists column indices, not names (the MPS file's names are needed)")
		case t == "All columns are zero in the solution!":
			sr.sol.X = make([]float64, len(sr.m.Columns))
		case !inCols || t == "" || strings.HasPrefix(t, "+++"):
		case strings.HasPrefix(t, "*") || strings.HasPrefix(t, "==="):
			inCols = false
		default:
			if err := sr.nameValue(ln, t, nil); err != nil {
				return err
			}
		}
	}
	switch {
	case sr.sol.Status == "" && !found:
		return sr.errf(len(sr.lines), "no \"Solution Cost:\" line and no end banner (is the output cut short?)")
	case sr.sol.Status == "":
		sr.sol.Status, sr.sol.SolverStatus = StatusFeasible, "solution (no end banner)"
	case sr.sol.Status == StatusNoSolution && found:
		sr.sol.Status = StatusFeasible
	case sr.sol.Status == StatusOptimal && !found:
		return sr.errf(len(sr.lines), "status %q but no \"Solution Cost:\" line (is the output cut short?)", sr.sol.SolverStatus)
	}
	if found && sr.sol.X == nil {
		return sr.errf(len(sr.lines), "no \"Column names and values of nonzeros in the solution\" block (is the output cut short?)")
	}
	if sr.sol.Status == StatusInfeasible {
		sr.sol.X = nil
	}
	return nil
}
