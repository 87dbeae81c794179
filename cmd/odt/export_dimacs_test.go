package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// dimacsResult is the part of the contract JSON the DIMACS tests read.
type dimacsResult struct {
	Status    string     `json:"status"`
	Objective float64    `json:"objective"`
	Errors    int        `json:"errors"`
	Optimal   bool       `json:"optimal"`
	Bound     float64    `json:"lower_bound"`
	Claimed   *float64   `json:"claimed_bound"`
	Model     *jsonModel `json:"model"`
}

func odtJSON(t *testing.T, args ...string) dimacsResult {
	t.Helper()
	return odtJSONAs[dimacsResult](t, args...)
}

// odtJSONAs runs odt, which must exit 0, and reads its JSON output
// into a T (the part of the result a test reads).
func odtJSONAs[T any](t *testing.T, args ...string) T {
	t.Helper()
	stdout, stderr, code := odt(t, args...)
	if code != 0 {
		t.Fatalf("odt %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	var r T
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("odt %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// jsonDepth is the depth of the contract JSON tree.
func jsonDepth(m *jsonModel) int {
	byID := map[int]int{}
	for i, n := range m.Nodes {
		byID[n.ID] = i
	}
	var depth func(id int) int
	depth = func(id int) int {
		n := m.Nodes[byID[id]]
		if n.Class != nil {
			return 0
		}
		return 1 + max(depth(*n.Low), depth(*n.High))
	}
	return depth(m.Root)
}

// TestDIMACSMinisat: the in-process sat-depth and sat-size runs fix the
// minimum depth K and size S; the exported formula at depth K (and with
// --max-nodes (S−1)/2, internal nodes) is satisfiable under Debian's
// minisat and decodes to a tree of depth K (and at most S nodes) that
// classifies every row, re-evaluated here from the JSON; at depth K−1
// (and with --max-nodes one less) minisat refutes it and decode says
// infeasible.
func TestDIMACSMinisat(t *testing.T) {
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat not installed (apt-get install minisat)")
	}
	files := []string{"../../testdata/iris.csv", "../../testdata/monk1.csv"}
	if _, err := os.Stat("../../../shared/data/inferdt"); err == nil {
		files = append(files, "../../../shared/data/inferdt/mouse.csv", "../../../shared/data/inferdt/lung_cancer_examples.csv")
	}
	dir := t.TempDir()
	for _, data := range files {
		raw := readRaw(t, data)
		inDepth := odtJSON(t, "solve", "-q", "--backend", "sat-depth", "--format", "json", data)
		inSize := odtJSON(t, "solve", "-q", "--backend", "sat-size", "--format", "json", data)
		if !inDepth.Optimal || !inSize.Optimal {
			t.Fatalf("%s: in-process runs not optimal", data)
		}
		k, size := int(inDepth.Objective), int(inSize.Objective)
		tests := (size - 1) / 2 // --max-nodes counts internal nodes
		for _, c := range []struct {
			depth, maxNodes int
			opts            []string
			sat             bool
		}{
			{k, 0, nil, true},
			{k - 1, 0, nil, false},
			{k, tests, nil, true},
			{k, tests - 1, nil, false},
			{k, tests, []string{"--opt", "counter=sequential", "--opt", "clauses=paper", "--opt", "amo=pairwise", "--opt", "symmetry=true"}, true},
			{k, tests - 1, []string{"--opt", "counter=sequential", "--opt", "clauses=paper", "--opt", "symmetry=true"}, false},
		} {
			name := filepath.Base(data) + " depth " + strconv.Itoa(c.depth) + " max-nodes " + strconv.Itoa(c.maxNodes) + " " + strings.Join(c.opts, " ")
			cnf, out := filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.out")
			flags := append([]string{"--encoding", "depth", "--depth", strconv.Itoa(c.depth), "--max-nodes", strconv.Itoa(c.maxNodes)}, c.opts...)
			if _, stderr, code := odt(t, append(append([]string{"export", "--to", "dimacs"}, flags...), data, "-o", cnf)...); code != 0 {
				t.Fatalf("%s: export exit %d: %s", name, code, stderr)
			}
			b, err := os.ReadFile(cnf)
			if err != nil || !strings.HasPrefix(string(b), "c ") || !strings.Contains(string(b), "\np cnf ") || !strings.Contains(string(b), "c var F ") {
				t.Fatalf("%s: export wrote no commented DIMACS (%v)", name, err)
			}
			err = exec.Command("minisat", "-verb=0", cnf, out).Run()
			ee, _ := err.(*exec.ExitError)
			if ee == nil || (ee.ExitCode() != 10 && ee.ExitCode() != 20) {
				t.Fatalf("%s: minisat: %v", name, err)
			}
			if got := ee.ExitCode() == 10; got != c.sat {
				t.Fatalf("%s: minisat satisfiable=%v, the in-process runs say %v", name, got, c.sat)
			}
			r := odtJSON(t, append(append([]string{"decode", "--format", "json"}, flags...), data, out)...)
			if !c.sat {
				// minisat's UNSAT comes with no proof: it is a claim, not
				// a bound, until the user trusts the solver.
				if r.Status != "no-solution" || r.Model != nil || r.Claimed == nil {
					t.Fatalf("%s: decode status %q, model %v, claimed bound %v", name, r.Status, r.Model != nil, r.Claimed)
				}
				r = odtJSON(t, append(append([]string{"decode", "--format", "json", "--opt", "trust-solver=true"}, flags...), data, out)...)
				if r.Status != "infeasible" || r.Model != nil {
					t.Fatalf("%s: trusted decode status %q, model %v", name, r.Status, r.Model != nil)
				}
				// A refuted depth bounds the minimum depth.
				if c.maxNodes == 0 && len(c.opts) == 0 && r.Bound != float64(c.depth+1) {
					t.Fatalf("%s: lower bound %v after refuting depth %d", name, r.Bound, c.depth)
				}
				continue
			}
			if r.Status != "feasible" || r.Model == nil || r.Errors != 0 {
				t.Fatalf("%s: decode status %q errors %d", name, r.Status, r.Errors)
			}
			if d := jsonDepth(r.Model); d != k {
				t.Fatalf("%s: decoded depth %d, in-process %d", name, d, k)
			}
			if c.maxNodes > 0 && len(r.Model.Nodes) > 2*c.maxNodes+1 {
				t.Fatalf("%s: decoded tree has %d nodes", name, len(r.Model.Nodes))
			}
			for i, row := range raw.rows {
				if got := r.Model.predict(t, row); got != raw.labels[i] {
					t.Fatalf("%s: row %d predicted %s, label %s", name, i+1, got, raw.labels[i])
				}
			}
		}
	}
}

// TestDIMACSBadRequests: wrong encodings, options or solver output are
// usage or input errors (exit 2), never a wrong model.
func TestDIMACSBadRequests(t *testing.T) {
	dir := t.TempDir()
	data := "../../testdata/iris.csv"
	cnf := filepath.Join(dir, "f.cnf")
	if _, stderr, code := odt(t, "export", "--to", "dimacs", "--encoding", "depth", "--depth", "4", data, "-o", cnf); code != 0 {
		t.Fatal(stderr)
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Every variable false: a whole model that breaks the formula.
	vars := 0
	if b, err := os.ReadFile(cnf); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 4 && f[0] == "p" {
				vars, _ = strconv.Atoi(f[2])
			}
		}
	}
	if vars == 0 {
		t.Fatal("the export has no problem line")
	}
	var neg strings.Builder
	neg.WriteString("s SATISFIABLE\nv")
	for v := 1; v <= vars; v++ {
		neg.WriteString(" -" + strconv.Itoa(v))
	}
	neg.WriteString(" 0\n")
	allFalse := write("false.out", neg.String())
	empty := write("empty.out", "s SATISFIABLE\nv 0\n")
	garbage := write("garbage.out", "s SATISFIABLE\nv 1 two 0\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--to", "dimacs", "--encoding", "odd", data, "-o", cnf}, "backend milp-odd writes mps"},
		{[]string{"export", "--to", "dimacs", "--encoding", "depth", "--opt", "colour=red", data, "-o", cnf}, "has no option colour"},
		{[]string{"export", "--to", "dimacs", "--encoding", "depth", "--opt", "counter=abacus", data, "-o", cnf}, "counter"},
		{[]string{"export", "--to", "dimacs", "--encoding", "depth", "--objective", "error", data, "-o", cnf}, "does not solve objective"},
		{[]string{"decode", "--encoding", "depth", "--depth", "4", data, allFalse}, "falsifies clause"},
		{[]string{"decode", "--encoding", "depth", "--depth", "4", data, empty}, "no value to variable 1 "},
		{[]string{"decode", "--encoding", "depth", "--depth", "4", data, garbage}, "not a literal"},
	} {
		_, stderr, code := odt(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("odt %s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// TestDecodeProof: CaDiCaL refutes the exported formulas of monk1 just
// below the optimum (sat-depth at depth K−1, sat-dt1 at N−2 nodes) and
// writes a binary DRAT proof. odt decode --proof checks it: the answer
// is then infeasible, with the bound K or N proven (not claimed);
// without the proof it is only claimed; a proof cut short, or another
// formula's, is refused (exit 2) naming the file; odt solve refuses the
// option. Skipped without cadical.
func TestDecodeProof(t *testing.T) {
	if _, err := exec.LookPath("cadical"); err != nil {
		t.Skip("cadical not installed (apt-get install cadical)")
	}
	data := "../../testdata/monk1.csv"
	k := int(odtJSON(t, "solve", "-q", "--backend", "sat-depth", "--format", "json", data).Objective)
	n := int(odtJSON(t, "solve", "-q", "--backend", "sat-dt1", "--objective", "min-nodes", "--format", "json", data).Objective)
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		flags []string
		bound int
	}{
		{"sat-depth", []string{"--backend", "sat-depth", "--depth", strconv.Itoa(k - 1)}, k},
		{"sat-dt1", []string{"--backend", "sat-dt1", "--objective", "min-nodes", "--max-nodes", strconv.Itoa((n - 3) / 2)}, n},
	} {
		cnf, out, proof := filepath.Join(dir, c.name+".cnf"), filepath.Join(dir, c.name+".out"), filepath.Join(dir, c.name+".drat")
		if _, stderr, code := odt(t, append(append([]string{"export", "--to", "dimacs"}, c.flags...), data, "-o", cnf)...); code != 0 {
			t.Fatalf("%s: export exit %d: %s", c.name, code, stderr)
		}
		answer, _ := exec.Command("cadical", "-q", cnf, proof).Output()
		if !strings.Contains(string(answer), "s UNSATISFIABLE") {
			t.Fatalf("%s: cadical: %s", c.name, answer)
		}
		if err := os.WriteFile(out, answer, 0o644); err != nil {
			t.Fatal(err)
		}
		decode := func(extra ...string) []string {
			return append(append(append([]string{"decode", "--format", "json"}, c.flags...), extra...), data, out)
		}
		r := odtJSONResult(t, decode("--proof", proof)...)
		if r.Status != "infeasible" || r.LowerBound != float64(c.bound) || r.ClaimedBound != nil || r.TrustedSolver || r.Stats["checked_refutations"] != 1.0 {
			t.Errorf("%s with the proof: %+v, want infeasible with the bound %d proven", c.name, r, c.bound)
		}
		r = odtJSONResult(t, decode()...)
		if r.Status != "no-solution" || r.ClaimedBound == nil || *r.ClaimedBound != float64(c.bound) {
			t.Errorf("%s without the proof: %+v, want the bound %d claimed", c.name, r, c.bound)
		}
		b, err := os.ReadFile(proof)
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(dir, c.name+"-cut.drat")
		if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := odt(t, decode("--proof", cut)...); code != 2 || !strings.Contains(stderr, cut) {
			t.Errorf("%s with a proof cut short: exit %d: %s", c.name, code, stderr)
		}
	}
	// The sat-dt1 proof is not one of the sat-depth formula.
	if _, stderr, code := odt(t, "decode", "--backend", "sat-depth", "--depth", strconv.Itoa(k-1), "--proof", filepath.Join(dir, "sat-dt1.drat"), data, filepath.Join(dir, "sat-depth.out")); code != 2 || !strings.Contains(stderr, "does not refute") {
		t.Errorf("another formula's proof: exit %d: %s", code, stderr)
	}
	if _, stderr, code := odt(t, "solve", "--backend", "sat-dt1", "--objective", "min-nodes", "--opt", "proof=x.drat", data); code != 2 || !strings.Contains(stderr, "read by odt decode") {
		t.Errorf("solve with a proof: exit %d: %s", code, stderr)
	}
}
