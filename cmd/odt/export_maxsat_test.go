package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runSolver runs an external solver, writing its standard output to a
// file (MaxSAT and PB solvers exit with 10, 20 or 30 by convention, so
// the exit status is not checked; the answer is).
func runSolver(t *testing.T, out string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, _ := exec.CommandContext(ctx, name, args...).Output()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: did not finish", name, strings.Join(args, " "))
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMaxSATRoundTrips: the sat-odt formula exported as WCNF is solved
// by clasp and z3, and as OPB by minisat+ and z3; odt decode reads each
// answer (clasp's last v block, minisat+'s named literals, z3's
// define-fun model), verifies the tree and
// reports the optimum, whose error equals dl85's on the same problem;
// the in-process sat-odt run agrees too. The header-less WCNF form is
// exported as well and its header repeats the decode command.
func TestMaxSATRoundTrips(t *testing.T) {
	type run struct {
		bin, to string
		args    func(in string) []string
	}
	runs := []run{
		{"clasp", "wcnf", func(in string) []string { return []string{in} }},
		{"minisat+", "opb", func(in string) []string { return []string{in} }},
		{"z3", "wcnf", func(in string) []string { return []string{"-model", in} }},
		{"z3", "opb", func(in string) []string { return []string{"-model", in} }},
	}
	cases := []struct {
		data  string
		depth int
	}{
		{"../../testdata/vote.txt", 1},
		{"../../testdata/iris.csv", 2},
		{"../../testdata/monk1.csv", 2},
	}
	dir := t.TempDir()
	for _, c := range cases {
		depth := strconv.Itoa(c.depth)
		ref := odtJSON(t, "solve", "-q", "--backend", "dl85", "--depth", depth, "--format", "json", c.data)
		own := odtJSON(t, "solve", "-q", "--backend", "sat-odt", "--depth", depth, "--format", "json", c.data)
		if !ref.Optimal || !own.Optimal || own.Objective != ref.Objective {
			t.Fatalf("%s depth %s: sat-odt %v (optimal %v), dl85 %v (optimal %v)", c.data, depth, own.Objective, own.Optimal, ref.Objective, ref.Optimal)
		}
		for _, r := range runs {
			if _, err := exec.LookPath(r.bin); err != nil {
				t.Logf("%s not installed (apt-get install %s): round trip skipped", r.bin, r.bin)
				continue
			}
			in := filepath.Join(dir, filepath.Base(c.data)+"."+r.to)
			ans := in + ".answer"
			if _, stderr, code := odt(t, "export", "--to", r.to, "--backend", "sat-odt", "--depth", depth, c.data, "-o", in); code != 0 {
				t.Fatalf("export %s: exit %d: %s", r.to, code, stderr)
			}
			runSolver(t, ans, r.bin, r.args(in)...)
			// The solver's optimum is its claim: trusted, a proof.
			got := odtJSON(t, "decode", "--backend", "sat-odt", "--depth", depth, "--format", "json", "--opt", "trust-solver=true", c.data, ans)
			if !got.Optimal || got.Objective != ref.Objective || got.Errors != ref.Errors {
				t.Errorf("%s depth %s via %s: decoded %v errors (optimal %v), dl85 %v", c.data, depth, r.bin, got.Objective, got.Optimal, ref.Objective)
			}
			if got.Model == nil || jsonDepth(got.Model) > c.depth {
				t.Errorf("%s depth %s via %s: decoded model missing or too deep", c.data, depth, r.bin)
			}
		}
	}
	if _, err := exec.LookPath("clasp"); err != nil {
		t.Skip("clasp not installed (apt-get install clasp): the 2022-form round trip is skipped")
	}
	// The header-less form: no "p" line, "h" before hard clauses; the
	// comment header repeats the decode command.
	in := filepath.Join(dir, "vote.2022.wcnf")
	if _, stderr, code := odt(t, "export", "--to", "wcnf", "--opt", "wcnf-form=2022", "--backend", "sat-odt", "--depth", "1", "../../testdata/vote.txt", "-o", in); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	text, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "\np wcnf") || !strings.Contains(string(text), "\nh ") || !strings.Contains(string(text), "odt decode --backend sat-odt --depth 1") {
		t.Errorf("the 2022 form has a p line, no h clause or no decode command:\n%.600s", text)
	}
}

// TestMaxSATRoundTripDiagram: the sat-odd formula of iris on the
// skeleton 1,2 goes through clasp (WCNF), minisat+ (OPB) and z3 (both)
// and decodes
// to the in-process sat-odd optimum.
func TestMaxSATRoundTripDiagram(t *testing.T) {
	data := "../../testdata/iris.csv"
	flags := []string{"--backend", "sat-odd", "--skeleton", "1,2", "--alpha", "0.01"}
	own := odtJSON(t, append(append([]string{"solve", "-q", "--format", "json"}, flags...), data)...)
	if !own.Optimal {
		t.Fatalf("in-process sat-odd not optimal: %+v", own)
	}
	dir := t.TempDir()
	for _, r := range []struct{ bin, to string }{{"clasp", "wcnf"}, {"minisat+", "opb"}, {"z3", "wcnf"}, {"z3", "opb"}} {
		if _, err := exec.LookPath(r.bin); err != nil {
			t.Logf("%s not installed (apt-get install %s): skipped", r.bin, r.bin)
			continue
		}
		in := filepath.Join(dir, "iris."+r.to)
		if _, stderr, code := odt(t, append(append([]string{"export", "--to", r.to}, flags...), data, "-o", in)...); code != 0 {
			t.Fatalf("export %s: exit %d: %s", r.to, code, stderr)
		}
		args := []string{in}
		if r.bin == "z3" {
			args = []string{"-model", in}
		}
		runSolver(t, in+".answer", r.bin, args...)
		got := odtJSON(t, append(append([]string{"decode", "--format", "json", "--opt", "trust-solver=true"}, flags...), data, in+".answer")...)
		if !got.Optimal || got.Objective != own.Objective {
			t.Errorf("via %s: decoded %v (optimal %v), in-process %v", r.bin, got.Objective, got.Optimal, own.Objective)
		}
	}
}
