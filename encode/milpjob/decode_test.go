package milpjob

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// TestDecodeClaims: a solution file's stated objective must be its
// point's objective, constant included, read as HiGHS (with it), CBC
// (without it) or GLPK and lp_solve (with the opposite sign) read an MPS
// constant; anything else is refused naming both values. A claimed
// optimum (HiGHS's Optimal, CBC's Optimal, glpsol's INTEGER OPTIMAL) is
// the same claimed bound for every solver, and a claimed infeasibility a
// claim too, never a proof.
func TestDecodeClaims(t *testing.T) {
	// minimise 2 + 3a + b, a + b >= 1: the optimum a=0, b=1 costs 3.
	m := &milp.Model{Offset: 2}
	m.AddBinary("a", 3)
	m.AddBinary("b", 1)
	m.AddRow("cover", 1, 1e30, []int{0, 1}, []float64{1, 1})
	d := &model.Dataset{Name: "one", Classes: []string{"x", "y"}, Labels: []int{0, 1},
		Features: []model.Feature{{Name: "f", Values: []float64{0, 1}}}}
	p := model.Problem{MaxDepth: 1}
	// Any point decodes to the single leaf of class x (one error):
	// the point's objective 3 is not the model's 1 unless decodeAs says.
	leaf := func(x []float64) (*model.Graph, error) {
		b := model.NewBuilder(d, model.KindTree)
		return b.Graph(b.Leaf(0)), nil
	}
	highs := func(status, obj string) string {
		return "Model status\n" + status + "\n\n# Primal solution values\nFeasible\nObjective " + obj + "\n# Columns 2\na 0\nb 1\n"
	}
	glpk := func(obj string) string {
		return "Problem:    m\nRows:       1\nColumns:    2\nStatus:     INTEGER OPTIMAL\nObjective:  obj = " + obj + " (MINimum)\n\n" +
			"   No.   Column name       Activity     Lower bound   Upper bound\n------ ------------ ------------- ------------- -------------\n" +
			"     1 a            *              0             0             1\n     2 b            *              1             0             1\n\n"
	}
	for name, c := range map[string]struct {
		file, reading string
	}{
		"highs, constant included":      {highs("Optimal", "3"), "constant included"},
		"cbc, constant left out":        {"Optimal - objective value 1.00000000\n      1 b                      1                       0\n", "constant left out"},
		"glpk, opposite sign":           {glpk("-1"), "constant read with the opposite sign"},
		"lp_solve-style opposite sign":  {highs("Optimal", "-1"), "constant read with the opposite sign"},
		"highs stopped at a time limit": {highs("Time limit reached", "3"), "constant included"},
	} {
		res, err := Decode(strings.NewReader(c.file), m, leaf, d, p, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.Stats["solver_objective_reading"] != c.reading || res.Optimal || res.Status != model.StatusFeasible || res.LowerBound != 0 {
			t.Errorf("%s: reading %v, optimal %v, status %s, lower bound %v", name, res.Stats["solver_objective_reading"], res.Optimal, res.Status, res.LowerBound)
		}
		// The MILP's value (3) is not the leaf's objective (1): no claim
		// about the model's objective can be made from it.
		if res.ClaimedBound != nil {
			t.Errorf("%s: claimed bound %v for a point whose MILP value is not its model's", name, *res.ClaimedBound)
		}
	}
	// When the point's value is its model's objective, an optimum claimed
	// by any solver is the same claimed bound.
	m.Offset = 0
	m.Columns[0].Cost, m.Columns[1].Cost = 0, 1 // a + b >= 1 at cost b: the leaf's one error
	for name, file := range map[string]string{
		"highs": highs("Optimal", "1"),
		"cbc":   "Optimal - objective value 1.00000000\n      1 b                      1                       0\n",
		"glpk":  glpk("1"),
	} {
		res, err := Decode(strings.NewReader(file), m, leaf, d, p, nil)
		if err != nil || res.ClaimedBound == nil || *res.ClaimedBound != 1 || res.Optimal || res.Status != model.StatusFeasible || !strings.Contains(res.ClaimedBy, "the solver's answer") {
			t.Errorf("%s: %+v, %v", name, res, err)
		}
	}
	m.Offset = 2
	res, err := Decode(strings.NewReader(highs("Optimal", "-614")), m, leaf, d, p, nil)
	if err == nil || !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "-614") || !strings.Contains(err.Error(), "objective is 3") {
		t.Errorf("a stated objective that is no reading of the point's: %+v, %v", res, err)
	}
	res, err = Decode(strings.NewReader("Model status\nInfeasible\n"), m, leaf, d, p, nil)
	if err != nil || res.Status != model.StatusInfeasible || res.ClaimedBy == "" {
		t.Errorf("a claimed infeasibility: %+v, %v", res, err)
	}
}

// TestDecodeLPSolve reads lp_solve's printed solution: a sample of its
// -S4 output for the model minimise 2 + 3a + b, a + b >= 1 (it reads the
// MPS objective constant with the opposite sign: -1), one whose
// objective is no reading of its point's, one cut short, and, where
// lp_solve is installed, its answer for the MPS file WriteMPS writes.
func TestDecodeLPSolve(t *testing.T) {
	m := &milp.Model{Offset: 2}
	m.AddBinary("a", 3)
	m.AddBinary("b", 1)
	m.AddRow("cover", 1, 1e30, []int{0, 1}, []float64{1, 1})
	d := &model.Dataset{Name: "one", Classes: []string{"x", "y"}, Labels: []int{0, 1},
		Features: []model.Feature{{Name: "f", Values: []float64{0, 1}}}}
	leaf := func(x []float64) (*model.Graph, error) {
		b := model.NewBuilder(d, model.KindTree)
		return b.Graph(b.Leaf(0)), nil
	}
	out := func(obj string) string {
		return "\nValue of objective function: " + obj + "\n\nActual values of the variables:\na                               0\nb                               1\n\n" +
			"Actual values of the constraints:\ncover                           1\n\nDual value\ncover 1\n"
	}
	res, err := Decode(strings.NewReader(out("-1.00000000")), m, leaf, d, model.Problem{MaxDepth: 1}, nil)
	if err != nil || res.Stats["solution_format"] != "lp_solve" || res.Stats["solver_objective_reading"] != "constant read with the opposite sign" || res.Stats["milp_objective"] != 3.0 {
		t.Errorf("lp_solve's answer: %+v, %v", res, err)
	}
	if _, err := Decode(strings.NewReader(out("-614")), m, leaf, d, model.Problem{MaxDepth: 1}, nil); err == nil || !strings.Contains(err.Error(), "states objective -614, but its point's objective is 3") {
		t.Errorf("a disagreeing objective: %v", err)
	}
	cut := "\nValue of objective function: -1\n\nActual values of the variables:\na                               0\n"
	if _, err := Decode(strings.NewReader(cut), m, leaf, d, model.Problem{MaxDepth: 1}, nil); err == nil || !strings.Contains(err.Error(), `no value for column "b"`) {
		t.Errorf("an answer cut short: %v", err)
	}
	if res, err := Decode(strings.NewReader("\nThis problem is infeasible\n"), m, leaf, d, model.Problem{MaxDepth: 1}, nil); err != nil || res.Status != model.StatusInfeasible || res.ClaimedBy == "" {
		t.Errorf("a claimed infeasibility: %+v, %v", res, err)
	}
	if _, err := exec.LookPath("lp_solve"); err != nil {
		t.Skip("lp_solve not installed (apt-get install lp-solve): its own answer is not read")
	}
	path := filepath.Join(t.TempDir(), "m.mps")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := milp.WriteMPS(f, m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	text, err := exec.Command("lp_solve", "-fmps", path, "-S4").Output()
	if err != nil {
		t.Fatalf("lp_solve: %v\n%s", err, text)
	}
	res, err = Decode(strings.NewReader(string(text)), m, leaf, d, model.Problem{MaxDepth: 1}, nil)
	if err != nil || res.Stats["milp_objective"] != 3.0 || res.Stats["solver_objective_reading"] == nil {
		t.Errorf("lp_solve's own answer: %+v, %v\n%s", res, err, text)
	}
}
