package milp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestLPNames(t *testing.T) {
	for in, want := range map[string]string{
		"b_0_1": "b_0_1", "y-_1_2": "ym_1_2", "w+_3_4": "wp_3_4", "errors": "errors",
		"e1": "n_e1", "3x": "n_3x", "a[1]": "a_1_", "E": "n_E",
	} {
		if got := LPName(in); got != want {
			t.Errorf("LPName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteLPText(t *testing.T) {
	m := &Model{Name: "t", ObjName: "cost", Offset: 4, Comments: []string{"hello"}}
	x := m.AddBinary("y-_0", 1)
	z := m.AddContinuous("z", -Inf, 5, -2)
	g := m.AddColumn("g", 1, 7, 0, true)
	f := m.AddContinuous("f", -Inf, Inf, 0)
	m.AddRow("range", 1, 3, []int{x, z}, []float64{1, 1})
	m.AddRow("eq", 2, 2, []int{g, f}, []float64{1, -1})
	m.AddRow("le", -Inf, 0, []int{z}, []float64{3})
	var b bytes.Buffer
	if err := WriteLP(&b, m); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"\\ hello\n", "objective constant 4, left out", "Minimize\n cost: + 1 ym_0 - 2 z + 0 g + 0 f\n",
		" range_lo: + 1 ym_0 + 1 z >= 1\n", " range_hi: + 1 ym_0 + 1 z <= 3\n", " eq: + 1 g - 1 f = 2\n", " le: + 3 z <= 0\n",
		" -inf <= z <= 5\n", " 1 <= g <= 7\n", " f free\n", "Binaries\n  ym_0\n", "Generals\n  g\n", "End\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the LP text lacks %q:\n%s", want, got)
		}
	}
}

// TestLPAndMPSSameOptimum: random models written as LP and as MPS, solved
// by each installed solver program, have the same status and optimum
// (the LP file's solution read back with ReadSolution by the LP names).
func TestLPAndMPSSameOptimum(t *testing.T) {
	type prog struct {
		name string
		args func(file, sol string, lp bool) []string
	}
	progs := []prog{
		{"highs", func(f, s string, lp bool) []string { return []string{"--solution_file", s, f} }},
		{"cbc", func(f, s string, lp bool) []string { return []string{f, "solve", "solution", s} }},
		{"glpsol", func(f, s string, lp bool) []string {
			if lp {
				return []string{"--lp", f, "-w", s}
			}
			return []string{"--freemps", f, "-w", s}
		}},
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	var models []*Model
	for len(models) < 12 {
		m := randomModel(r)
		// Short numbers (CBC's MPS reader refuses 17 digits) and every
		// column in [-10, 10]: no unbounded models.
		short := func(v float64) float64 {
			if math.IsInf(v, 0) {
				return v
			}
			return math.Round(v*1000) / 1000
		}
		m.Offset = short(m.Offset)
		// CBC's MPS reader takes neither OBJSENSE nor a second N row.
		m.Sense = Minimize
		m.ObjName = "cost"
		for i := range m.Rows {
			if math.IsInf(m.Rows[i].Lower, -1) && math.IsInf(m.Rows[i].Upper, 1) {
				m.Rows[i].Upper = 100
			}
			m.Rows[i].Lower, m.Rows[i].Upper = short(m.Rows[i].Lower), short(m.Rows[i].Upper)
			for k := range m.Rows[i].Value {
				m.Rows[i].Value[k] = short(m.Rows[i].Value[k])
			}
		}
		// CBC reads an MPS file of short names as fixed format.
		for i := range m.Rows {
			m.Rows[i].Name = "row_" + m.Rows[i].Name
		}
		for j := range m.Columns {
			m.Columns[j].Name = "column_" + m.Columns[j].Name
			m.Columns[j].Cost = short(m.Columns[j].Cost)
			m.Columns[j].Lower, m.Columns[j].Upper = short(m.Columns[j].Lower), short(m.Columns[j].Upper)
			m.Columns[j].Lower = math.Max(m.Columns[j].Lower, -10)
			m.Columns[j].Upper = math.Min(m.Columns[j].Upper, 10)
			if m.Columns[j].Upper < m.Columns[j].Lower {
				m.Columns[j].Upper = m.Columns[j].Lower
			}
		}
		m.Columns[0].Integer = true // a MIP (glpsol -w writes LP solutions otherwise)
		models = append(models, m)
	}
	for _, p := range progs {
		if _, err := exec.LookPath(p.name); err != nil {
			t.Logf("skipping %s: not installed (scripts/setup.sh, scripts/install-highs.sh)", p.name)
			continue
		}
		for i, m := range models {
			var obj [2]float64
			var st [2]Status
			for k, lp := range []bool{false, true} {
				file := filepath.Join(dir, "m.mps")
				if lp {
					file = filepath.Join(dir, "m.lp")
				}
				var b bytes.Buffer
				if err := Write(&b, m, map[bool]string{false: "mps", true: "lp"}[lp]); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(file, b.Bytes(), 0o644)
				sol := filepath.Join(dir, "m.sol")
				os.Remove(sol)
				cmd := exec.Command(p.name, p.args(file, sol, lp)...)
				cmd.Dir = dir
				out, _ := cmd.CombinedOutput()
				f, err := os.Open(sol)
				if err != nil {
					t.Fatalf("%s model %d (lp %v): no solution file: %v\n%s\n%s", p.name, i, lp, err, out, b.String())
				}
				s, err := ReadSolution(f, m)
				f.Close()
				if err != nil {
					t.Fatalf("%s model %d (lp %v): %v\n%s", p.name, i, lp, err, b.String())
				}
				st[k] = s.Status
				if s.X != nil {
					obj[k] = m.Objective(s.X)
				}
			}
			if st[0] != st[1] || st[0] == StatusOptimal && math.Abs(obj[0]-obj[1]) > 1e-6*math.Max(1, math.Abs(obj[0])) {
				t.Errorf("%s model %d: MPS %s %v, LP %s %v", p.name, i, st[0], obj[0], st[1], obj[1])
			}
		}
	}
}
