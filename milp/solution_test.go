package milp

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// solModel has three columns: x (binary), y (integer in [0,5]) and a
// long-named continuous one, z, and one row x + y + z <= 4.
func solModel() *Model {
	m := &Model{Name: "t"}
	m.AddBinary("x", -1)
	m.AddColumn("y", 0, 5, -2, true)
	m.AddContinuous("a_very_long_column_name", 0, 1, -0.5)
	m.AddRow("c1", Inf*-1, 4, []int{0, 1, 2}, []float64{1, 1, 1})
	return m
}

// The same solution, x=0 y=4 z=0, as each solver writes it.
var solFiles = map[string]string{
	"highs": `Model status
Optimal

# Primal solution values
Feasible
Objective -8
# Columns 3
x 0
y 4
a_very_long_column_name 0
# Rows 1
c1 4
`,
	"highs-sparse": `Model status
Optimal

# Primal solution values
Feasible
Objective -8
# Columns -1
y 4 1
# Rows 1
c1 4
`,
	"cbc": `Optimal - objective value -8.00000000
      1 y                        4                      -2
`,
	"glpk-raw": `c Problem:    t
c Rows:       1
c Columns:    3
c Status:     INTEGER OPTIMAL
c Objective:  obj = -8 (MINimum)
c
s mip 1 3 o -8
i 1 4
j 1 0
j 2 4
j 3 0
e o f
`,
	"glpk-print": `Problem:    t
Rows:       1
Columns:    3 (2 integer, 1 binary)
Non-zeros:  3
Status:     INTEGER OPTIMAL
Objective:  obj = -8 (MINimum)

   No.   Row name        Activity     Lower bound   Upper bound
------ ------------    ------------- ------------- -------------
     1 c1                          4                           4 

   No. Column name       Activity     Lower bound   Upper bound
------ ------------    ------------- ------------- -------------
     1 x            *              0             0             1 
     2 y            *              4             0             5 
     3 a_very_long_column_name
                                   0             0             1 

Integer feasibility conditions:
`,
	"gurobi": `# Solution for model t
# Objective value = -8
x 0
y 4
a_very_long_column_name 0
`,
	"scip": `solution status: optimal solution found
objective value:                                   -8
y                                                   4 	(obj:-2)
`,
	"cplex": `<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>
<CPLEXSolution version="1.2">
 <header
   problemName="t.mps"
   solutionName="incumbent"
   solutionIndex="-1"
   objectiveValue="-8"
   solutionTypeValue="3"
   solutionTypeString="primal"
   solutionStatusValue="101"
   solutionStatusString="integer optimal solution"
   solutionMethodString="mip"
   primalFeasible="1"
   dualFeasible="1"
   MIPNodes="0"
   MIPIterations="2"
   writeLevel="1"/>
 <quality
   epInt="1.0000000000000001e-05"
   epRHS="9.9999999999999995e-07"
   maxIntInfeas="0"
   maxPrimalInfeas="0"
   maxX="4"
   maxSlack="0"/>
 <linearConstraints>
  <constraint name="c1" index="0" slack="0"/>
 </linearConstraints>
 <variables>
  <variable name="x" index="0" value="0"/>
  <variable name="y" index="1" value="4"/>
  <variable name="a_very_long_column_name" index="2" value="0"/>
 </variables>
</CPLEXSolution>
`,
	"lp_solve": `
Value of objective function: -8.00000000

Actual values of the variables:
x                               0
y                               4
a_very_long_column_name         0

Actual values of the constraints:
c1                              4
`,
	"symphony": `==========================================================
==  Welcome to the SYMPHONY MILP Solver
==========================================================
Solving...
****************************************************
* Optimal Solution Found                           *
* Now displaying stats and best solution found...  *
****************************************************
Number of solutions found:      1
===========================================================
Solution Found: Node 0, Level 0
Solution Cost: -8.0000000000
+++++++++++++++++++++++++++++++++++++++++++++++++++
Column names and values of nonzeros in the solution
+++++++++++++++++++++++++++++++++++++++++++++++++++
y                                                  4.0000000000

`,
}

func TestReadSolution(t *testing.T) {
	m := solModel()
	for name, text := range solFiles {
		sol, err := ReadSolution(strings.NewReader(text), m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := strings.TrimSuffix(name, "-sparse"); sol.Format != want {
			t.Errorf("%s: format %q", name, sol.Format)
		}
		want := StatusOptimal
		if name == "gurobi" {
			want = StatusFeasible // a .sol file states no status
		}
		if sol.Status != want || !sol.HasObjective || sol.Objective != -8 {
			t.Errorf("%s: status %s, objective %v (%v)", name, sol.Status, sol.Objective, sol.HasObjective)
		}
		if len(sol.X) != 3 || sol.X[0] != 0 || sol.X[1] != 4 || sol.X[2] != 0 {
			t.Errorf("%s: x = %v, want [0 4 0]", name, sol.X)
		}
		if err := m.CheckPoint(sol.X, 1e-9); err != nil || m.Objective(sol.X) != -8 {
			t.Errorf("%s: %v, objective %v", name, err, m.Objective(sol.X))
		}
	}
}

func TestReadSolutionNoSolution(t *testing.T) {
	m := solModel()
	for name, c := range map[string]struct {
		text string
		want Status
	}{
		"highs time limit":     {"Model status\nTime limit reached\n\n# Primal solution values\nNone\n\n# Dual solution values\nNone\n", StatusNoSolution},
		"highs infeasible":     {"Model status\nInfeasible\n\n# Primal solution values\nNone\n", StatusInfeasible},
		"cbc infeasible":       {"Infeasible - objective value 0.00000000\n", StatusInfeasible},
		"glpk empty":           {"c Problem: t\ns mip 1 3 n 0\ne o f\n", StatusInfeasible},
		"scip infeasible":      {"solution status: infeasible\nno solution available\n", StatusInfeasible},
		"scip time limit":      {"solution status: time limit reached\nno solution available\n", StatusNoSolution},
		"cplex infeasible":     {"<?xml version = \"1.0\"?>\n<CPLEXSolution version=\"1.2\"><header solutionStatusValue=\"103\" solutionStatusString=\"integer infeasible\"/></CPLEXSolution>\n", StatusInfeasible},
		"lp_solve infeasible":  {"\nThis problem is infeasible\n", StatusInfeasible},
		"symphony infeasible":  {"Welcome to the SYMPHONY MILP Solver\n****\n* Problem Found Infeasible in Preprocessing        *\n****\n", StatusInfeasible},
		"symphony no solution": {"Welcome to the SYMPHONY MILP Solver\n* Time Limit Reached                               *\nNo Solution Found\n", StatusNoSolution},
	} {
		sol, err := ReadSolution(strings.NewReader(c.text), m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sol.Status != c.want || sol.X != nil {
			t.Errorf("%s: status %s, x %v; want %s and no values", name, sol.Status, sol.X, c.want)
		}
	}
}

func TestReadSolutionErrors(t *testing.T) {
	m := solModel()
	for name, c := range map[string]struct{ text, want string }{
		"unknown format":     {"hello\n", "unknown format"},
		"unknown column":     {strings.Replace(solFiles["highs"], "x 0", "w 0", 1), `no column "w"`},
		"column count":       {strings.Replace(solFiles["highs"], "# Columns 3", "# Columns 4", 1), "4 columns, the model has 3"},
		"not a number":       {strings.Replace(solFiles["highs"], "y 4", "y four", 1), "line 9"},
		"infinite":           {strings.Replace(solFiles["cbc"], " 4 ", " inf ", 1), "not a finite number"},
		"cbc index":          {strings.Replace(solFiles["cbc"], "      1 y", "      2 y", 1), "is column 1 of the model, not 2"},
		"glpk out of range":  {strings.Replace(solFiles["glpk-raw"], "j 3 0", "j 9 0", 1), "column 9 out of range"},
		"glpk lp":            {strings.Replace(solFiles["glpk-raw"], "s mip 1 3 o -8", "s bas 1 3 f f -8", 1), "a MIP solution"},
		"highs cut short":    {solFiles["highs"][:strings.Index(solFiles["highs"], "y 4")], "highs file truncated (it ends after line 8)"},
		"highs status only":  {"Model status\nOptimal\n", "highs file truncated (it ends after line 2)"},
		"gurobi cut short":   {strings.TrimSuffix(solFiles["gurobi"], "a_very_long_column_name 0\n"), `no value for column "a_very_long_column_name"`},
		"gurobi twice":       {solFiles["gurobi"] + "y 4\n", `a second value for column "y"`},
		"lp_solve cut short": {strings.Replace(solFiles["lp_solve"], "x                               0\n", "", 1), `no value for column "x"`},
		"lp_solve no values": {"\nValue of objective function: -8\n", "no \"Actual values of the variables:\" block"},
		"cplex level 2":      {strings.Replace(solFiles["cplex"], `writeLevel="1"`, `writeLevel="2"`, 1), "only the discrete variables"},
		"cplex cut short":    {strings.Replace(solFiles["cplex"], `  <variable name="x" index="0" value="0"/>`, "", 1), `no value for column "x"`},
		"cplex broken xml":   {solFiles["cplex"][:200], "not a CPLEX XML solution"},
		"scip unknown col":   {strings.Replace(solFiles["scip"], "y   ", "q   ", 1), `no column "q"`},
		"symphony cut short": {solFiles["symphony"][:strings.Index(solFiles["symphony"], "Solution Found:")], "but no \"Solution Cost:\" line"},
		"symphony indices":   {strings.Replace(solFiles["symphony"], "Column names", "User indices", 1), "column indices, not names"},
		"glpk print short":   {strings.Replace(solFiles["glpk-print"], "     2 y            *              4             0             5 \n", "", 1), "2 column values, the model has 3"},
	} {
		_, err := ReadSolution(strings.NewReader(c.text), m)
		if !errors.Is(err, ErrSolution) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an ErrSolution naming %q", name, err, c.want)
		}
	}
}

// FuzzReadSolution: any text is read or refused with ErrSolution, never a
// panic, and a solution read has one finite value per column.
func FuzzReadSolution(f *testing.F) {
	for _, s := range solFiles {
		f.Add(s)
	}
	m := solModel()
	f.Fuzz(func(t *testing.T, text string) {
		sol, err := ReadSolution(strings.NewReader(text), m)
		if err != nil {
			if !errors.Is(err, ErrSolution) {
				t.Fatalf("error without ErrSolution: %v", err)
			}
			return
		}
		if sol.X != nil && len(sol.X) != len(m.Columns) {
			t.Fatalf("%d values for %d columns", len(sol.X), len(m.Columns))
		}
	})
}

// TestReadSolutionLPSolveImproved: lp_solve -i prints every improved
// solution; the last block and its objective are the answer.
func TestReadSolutionLPSolveImproved(t *testing.T) {
	m := solModel()
	first := "\nImproved solution being stored\n\nValue of objective function: -6\n\nActual values of the variables:\nx 0\ny 3\na_very_long_column_name 0\n\n"
	sol, err := ReadSolution(strings.NewReader(first+solFiles["lp_solve"]), m)
	if err != nil || sol.Objective != -8 || sol.X[1] != 4 || sol.Status != StatusOptimal {
		t.Fatalf("%+v, %v; want the last block (y = 4, objective -8)", sol, err)
	}
}

// lazyAnswer is an answer of n bytes made on demand: head, then fill
// repeated; it counts the bytes read from it.
type lazyAnswer struct {
	head, fill string
	n, read    int64
}

func (l *lazyAnswer) Read(p []byte) (int, error) {
	if l.read >= l.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && l.read < l.n {
		var c byte
		if l.read < int64(len(l.head)) {
			c = l.head[l.read]
		} else {
			c = l.fill[(l.read-int64(len(l.head)))%int64(len(l.fill))]
		}
		p[k] = c
		k++
		l.read++
	}
	return k, nil
}

// TestReadSolutionBounded: a 200 MB answer on one line, or of 200 MB of
// XML comments, is refused after reading little more than the limit,
// naming the line where reading stopped; a solver's status or value
// line is never near the line limit.
func TestReadSolutionBounded(t *testing.T) {
	m := solModel()
	const size = 200 << 20
	for name, c := range map[string]struct {
		a    *lazyAnswer
		want string
		most int64
	}{
		"one line":     {&lazyAnswer{head: "<?xml version=\"1.0\"?>\n<CPLEXSolution>", fill: "<x/>", n: size}, "line 2 is longer than 1024 KiB", 2 * MaxAnswerLine},
		"xml comments": {&lazyAnswer{head: "<?xml version=\"1.0\"?>\n", fill: "<!-- a comment of a line -->\n", n: size}, "passes 16 MiB", answerLimit(m) + 1<<17},
		"cbc values":   {&lazyAnswer{head: "Optimal - objective value -8\n", fill: "      1 y   4   -2\n", n: size}, "passes 16 MiB", answerLimit(m) + 1<<17},
	} {
		_, err := ReadSolution(c.a, m)
		if !errors.Is(err, ErrSolution) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an ErrSolution naming %q", name, err, c.want)
		}
		if c.a.read > c.most {
			t.Errorf("%s: read %d bytes before refusing, want at most %d", name, c.a.read, c.most)
		}
	}
}

// TestReadSolutionStatusLines: what each solver's status line says, a
// limit or a stop never read as an optimum; values listed under a status
// without a solution are kept only as a point to check.
func TestReadSolutionStatusLines(t *testing.T) {
	m := solModel()
	lpVals := "\nValue of objective function: -8\n\nActual values of the variables:\nx 0\ny 4\na_very_long_column_name 0\n"
	for name, c := range map[string]struct {
		text        string
		want        Status
		point, stry bool
	}{
		"lp_solve optimum":       {lpVals, StatusOptimal, true, false},
		"lp_solve suboptimal":    {"Suboptimal solution\n" + lpVals, StatusFeasible, true, false},
		"lp_solve presolved":     {"Presolved solution\n" + lpVals, StatusFeasible, true, false},
		"lp_solve timeout":       {"\nTimeout\n", StatusNoSolution, false, false},
		"lp_solve user aborted":  {"\nUser aborted\n", StatusNoSolution, false, false},
		"lp_solve unbounded":     {"\nThis problem is unbounded\n", StatusNoSolution, false, false},
		"cbc stopped":            {"Stopped on time - objective value -8.00000000\n      1 y                        4                      -2\n", StatusFeasible, true, false},
		"cbc stopped iterations": {"Stopped on iterations - objective value -8.00000000\n      1 y                        4                      -2\n", StatusFeasible, true, false},
		"cbc no integer":         {"Stopped on time (no integer solution - continuous used) - objective value -8.50000000\n      1 y                      4.5                      -2\n", StatusNoSolution, true, true},
		"cbc infeasible":         {"Integer infeasible - objective value -8.00000000\n      1 y                        4                      -2\n", StatusInfeasible, false, false},
		"cplex 107":              {"<?xml version=\"1.0\"?>\n<CPLEXSolution><header solutionStatusValue=\"107\"/><variables><variable name=\"x\" value=\"0\"/><variable name=\"y\" value=\"4\"/><variable name=\"a_very_long_column_name\" value=\"0\"/></variables></CPLEXSolution>\n", StatusFeasible, true, false},
		"cplex 103 with a point": {"<?xml version=\"1.0\"?>\n<CPLEXSolution><header solutionStatusValue=\"103\"/><variables><variable name=\"x\" value=\"0\"/><variable name=\"y\" value=\"4\"/><variable name=\"a_very_long_column_name\" value=\"0\"/></variables></CPLEXSolution>\n", StatusInfeasible, true, false},
		"scip infeasible point":  {"solution status: infeasible\nobjective value: -8\ny 4 (obj:-8)\n", StatusInfeasible, true, false},
		"highs infeasible point": {strings.Replace(solFiles["highs"], "Optimal", "Infeasible", 1), StatusInfeasible, true, false},
	} {
		sol, err := ReadSolution(strings.NewReader(c.text), m)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if sol.Status != c.want || (sol.X != nil) != c.point || sol.Stray != c.stry {
			t.Errorf("%s: status %s, point %v, stray %v; want %s, %v, %v", name, sol.Status, sol.X != nil, sol.Stray, c.want, c.point, c.stry)
		}
	}
	for name, c := range map[string]struct{ text, want string }{
		"gurobi junk":    {strings.Replace(solFiles["gurobi"], "y 4", "y 4 junk", 1), `("junk" after the value)`},
		"gurobi hex":     {strings.Replace(solFiles["gurobi"], "y 4", "y 0x1p2", 1), `"0x1p2" is not a finite number`},
		"gurobi under":   {strings.Replace(solFiles["gurobi"], "y 4", "y 0x_4p0", 1), `"0x_4p0" is not a finite number`},
		"scip bad extra": {strings.Replace(solFiles["scip"], "y   ", "y 4 (obj:x) ", 1), "after the value"},
		"lp_solve after": {lpVals + "\nTimeout\n", `verdict "Timeout" after a printed solution`},
		"symphony junk":  {strings.Replace(solFiles["symphony"], "4.0000000000\n", "4.0000000000 5\n", 1), "after the value"},
		"cplex laughs":   {"<?xml version=\"1.0\"?>\n<!DOCTYPE l [<!ENTITY a \"aa\">]>\n<CPLEXSolution><header solutionStatusValue=\"101\" objectiveValue=\"&a;\"/></CPLEXSolution>\n", "cplex line 3: not a CPLEX XML solution: invalid character entity &a;"},
	} {
		_, err := ReadSolution(strings.NewReader(c.text), m)
		if !errors.Is(err, ErrSolution) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an ErrSolution naming %q", name, err, c.want)
		}
	}
}
