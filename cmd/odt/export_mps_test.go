package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/milp"
)

// mpsCases are small exports each MILP solver proves within seconds.
var mpsCases = []struct {
	name  string
	flags []string
}{
	{"odt depth 2", []string{"--backend", "milp-odt", "--depth", "2"}},
	{"odt alias, node limit", []string{"--encoding", "odt", "--depth", "2", "--max-nodes", "1"}},
	{"odd 1,2", []string{"--backend", "milp-odd", "--skeleton", "1,2", "--alpha", "0.01"}},
}

// mpsData is a 12-row slice of iris (three classes, numeric features).
func mpsData(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/iris.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	keep := []string{lines[0]}
	for i := 1; i < len(lines); i += len(lines) / 12 {
		keep = append(keep, lines[i])
	}
	p := filepath.Join(t.TempDir(), "iris12.csv")
	if err := os.WriteFile(p, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMPSRoundTrip: odt export --to mps → highs / cbc / glpsol /
// lp_solve / symphony → odt
// decode gives a verified model whose objective is the solver's optimum,
// the same for every solver (each skips when its binary is absent).
func TestMPSRoundTrip(t *testing.T) {
	data := mpsData(t)
	dir := t.TempDir()
	solvers := []struct {
		bin string
		run func(mps, sol string) *exec.Cmd
	}{
		{"highs", func(mps, sol string) *exec.Cmd { return exec.Command("highs", "--solution_file", sol, mps) }},
		{"cbc", func(mps, sol string) *exec.Cmd { return exec.Command("cbc", mps, "solve", "solu", sol) }},
		{"glpsol", func(mps, sol string) *exec.Cmd { return exec.Command("glpsol", "--freemps", mps, "-w", sol) }},
		{"glpsol", func(mps, sol string) *exec.Cmd { return exec.Command("glpsol", "--freemps", mps, "-o", sol) }},
		// lp_solve and SYMPHONY print their answer.
		{"lp_solve", func(mps, sol string) *exec.Cmd {
			return exec.Command("sh", "-c", `lp_solve -fmps "$0" -S4 >"$1"`, mps, sol)
		}},
		{"symphony", func(mps, sol string) *exec.Cmd { return exec.Command("sh", "-c", `symphony -F "$0" >"$1"`, mps, sol) }},
	}
	ran := 0
	for _, c := range mpsCases {
		mps := filepath.Join(dir, "m.mps")
		if _, stderr, code := odt(t, append(append([]string{"export", "--to", "mps"}, c.flags...), data, "-o", mps)...); code != 0 {
			t.Fatalf("%s: export exit %d: %s", c.name, code, stderr)
		}
		text, err := os.ReadFile(mps)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "* decode a solution with: odt decode --backend milp-od") || !strings.Contains(string(text), "lambda_i_l") {
			t.Fatalf("%s: no comment header:\n%.600s", c.name, text)
		}
		f, err := os.Open(mps)
		if err != nil {
			t.Fatal(err)
		}
		_, err = milp.ReadMPS(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: the export does not read back: %v", c.name, err)
		}
		objective := -1.0
		for i, s := range solvers {
			if _, err := exec.LookPath(s.bin); err != nil {
				t.Logf("%s not installed: skipped (apt-get install %s)", s.bin, map[string]string{"highs": "HiGHS (scripts/setup.sh)", "cbc": "coinor-cbc", "glpsol": "glpk-utils", "lp_solve": "lp-solve", "symphony": "coinor-symphony"}[s.bin])
				continue
			}
			sol := filepath.Join(dir, "m.sol")
			os.Remove(sol)
			if out, err := s.run(mps, sol).CombinedOutput(); err != nil {
				t.Fatalf("%s: %s: %v\n%s", c.name, s.bin, err, out)
			}
			r := odtJSON(t, append(append([]string{"decode", "--format", "json"}, c.flags...), data, sol)...)
			// A decoded solution is feasible, or optimal when its bound
			// meets its objective (no errors).
			if r.Model == nil || r.Status != "feasible" && !(r.Status == "optimal" && r.Bound == r.Objective) {
				t.Fatalf("%s: %s (solver %d): decode status %q, model %v", c.name, s.bin, i, r.Status, r.Model != nil)
			}
			if objective < 0 {
				objective = r.Objective
			} else if diff := r.Objective - objective; diff > 1e-6 || diff < -1e-6 {
				t.Fatalf("%s: %s (solver %d) optimum %v, another solver's %v", c.name, s.bin, i, r.Objective, objective)
			}
			ran++
		}
	}
	if ran == 0 {
		t.Skip("no MILP solver binary installed (highs, cbc, glpsol)")
	}
}

// TestMPSBadRequests: invalid options and foreign solution files exit 2
// with a message naming the problem; a failed export leaves an existing
// file untouched.
func TestMPSBadRequests(t *testing.T) {
	data := mpsData(t)
	dir := t.TempDir()
	mps := filepath.Join(dir, "m.mps")
	if err := os.WriteFile(mps, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.sol")
	os.WriteFile(junk, []byte("Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective 0\n# Columns -1\nnosuch 1 0\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--to", "mps", "--backend", "milp-odt", "--depth", "2", "--opt", "foo=1", data, "-o", mps}, "has no option foo"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odt", "--depth", "2", "--opt", "gap=-1", data, "-o", mps}, "gap"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odt", "--depth", "2", "--opt", "gap=0.1", data, "-o", mps}, "steers the solve"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--opt", "epsilon=0", data, "-o", mps}, "epsilon"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--opt", "fair-ratio=1.5", data, "-o", mps}, "fair-ratio"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--opt", "fair-ratio=0.5", data, "-o", mps}, "needs fair-column"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--opt", "restarts=-1", data, "-o", mps}, "restarts"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--opt", "max-active=-1", data, "-o", mps}, "max-active"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--opt", "min-flow=-1", data, "-o", mps}, "min-flow"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--max-nodes", "3", data, "-o", mps}, "node limit"},
		{[]string{"export", "--to", "mps", "--backend", "milp-odd", data, "-o", mps}, "skeleton"},
		{[]string{"export", "--to", "dimacs", "--backend", "milp-odt", data, "-o", mps}, "writes mps"},
		{[]string{"decode", "--backend", "milp-odt", "--depth", "2", data, junk}, "no column \"nosuch\""},
		{[]string{"decode", "--backend", "milp-odt", "--depth", "2", data, mps}, "unknown format"},
	} {
		_, stderr, code := odt(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("odt %s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
		if b, _ := os.ReadFile(mps); string(b) != "keep me" {
			t.Fatalf("odt %s: the existing output file was changed", strings.Join(c.args, " "))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".m.mps.tmp*")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestExportToDevice: an output that is not a regular file (/dev/null)
// is written to, not replaced by a renamed temporary file.
func TestExportToDevice(t *testing.T) {
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here", os.DevNull)
	}
	if _, stderr, code := odt(t, "export", "--to", "mps", "--backend", "milp-odt", "--depth", "1", mpsData(t), "-o", os.DevNull); code != 0 {
		t.Fatalf("export to %s: exit %d: %s", os.DevNull, code, stderr)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, st.Mode(), err)
	}
}
