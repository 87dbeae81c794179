package milp

import (
	"errors"
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
		if sol.Status != StatusOptimal || !sol.HasObjective || sol.Objective != -8 {
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
		"highs time limit": {"Model status\nTime limit reached\n\n# Primal solution values\nNone\n\n# Dual solution values\nNone\n", StatusNoSolution},
		"highs infeasible": {"Model status\nInfeasible\n\n# Primal solution values\nNone\n", StatusInfeasible},
		"cbc infeasible":   {"Infeasible - objective value 0.00000000\n", StatusInfeasible},
		"glpk empty":       {"c Problem: t\ns mip 1 3 n 0\ne o f\n", StatusInfeasible},
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
		"unknown format":    {"hello\n", "unknown format"},
		"unknown column":    {strings.Replace(solFiles["highs"], "x 0", "w 0", 1), `no column "w"`},
		"column count":      {strings.Replace(solFiles["highs"], "# Columns 3", "# Columns 4", 1), "4 columns, the model has 3"},
		"not a number":      {strings.Replace(solFiles["highs"], "y 4", "y four", 1), "line 9"},
		"infinite":          {strings.Replace(solFiles["cbc"], " 4 ", " inf ", 1), "not a finite number"},
		"cbc index":         {strings.Replace(solFiles["cbc"], "      1 y", "      2 y", 1), "is column 1 of the model, not 2"},
		"glpk out of range": {strings.Replace(solFiles["glpk-raw"], "j 3 0", "j 9 0", 1), "column 9 out of range"},
		"glpk lp":           {strings.Replace(solFiles["glpk-raw"], "s mip 1 3 o -8", "s bas 1 3 f f -8", 1), "a MIP solution"},
		"highs cut short":   {solFiles["highs"][:strings.Index(solFiles["highs"], "y 4")], "highs file truncated (it ends after line 8)"},
		"highs status only": {"Model status\nOptimal\n", "highs file truncated (it ends after line 2)"},
		"glpk print short":  {strings.Replace(solFiles["glpk-print"], "     2 y            *              4             0             5 \n", "", 1), "2 column values, the model has 3"},
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
