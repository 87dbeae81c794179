package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/sat/lrat"
)

// index is the part of a certificate's index.json the tests read.
type index struct {
	Proofs []struct {
		Name, Formula, Proof string
	}
}

func readIndex(t *testing.T, dir string) index {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var x index
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// certifyCase is a solve whose optimum odt solve --certify certifies.
type certifyCase struct {
	name string
	args []string
	want float64 // the optimum (0: not checked)
}

// checkCertify solves with --certify, checks the result and odt certify
// on the directory, then corrupts each proof in turn (a literal negated,
// a hint dropped) and expects odt certify to refuse it, naming the file,
// line and clause of the step.
func checkCertify(t *testing.T, tc certifyCase) {
	dir := filepath.Join(t.TempDir(), "cert")
	out, errOut, code := odt(t, append([]string{"solve", "-q", "--format", "json", "--certify", dir}, tc.args...)...)
	if code != 0 {
		t.Fatalf("solve --certify: exit %d: %s", code, errOut)
	}
	var res struct {
		Objective   float64 `json:"objective"`
		Optimal     bool    `json:"optimal"`
		Certified   bool    `json:"certified"`
		Certificate struct {
			Dir    string   `json:"dir"`
			Bounds []string `json:"bounds"`
		} `json:"certificate"`
		Stats map[string]any `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Optimal || !res.Certified || res.Certificate.Dir != dir || len(res.Certificate.Bounds) == 0 {
		t.Fatalf("want an optimal result certified by refutations in %s, got %s", dir, out)
	}
	if tc.want != 0 && res.Objective != tc.want {
		t.Fatalf("optimum %v, want %v", res.Objective, tc.want)
	}
	for _, k := range []string{"proof_bytes", "proof_steps", "proof_check_seconds"} {
		if _, ok := res.Stats[k]; !ok {
			t.Errorf("stats lack %s", k)
		}
	}
	if out, errOut, code := odt(t, "certify", dir); code != 0 || !strings.Contains(out, "certified:") {
		t.Fatalf("odt certify: exit %d: %s%s", code, out, errOut)
	}
	x := readIndex(t, dir)
	for _, p := range x.Proofs {
		path := filepath.Join(dir, p.Proof)
		good, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(good), "\n"), "\n")
		// The middle step with two hints or more, and the last one.
		var steps []int
		for i, ln := range lines {
			if st, err := lrat.ParseStep(ln); err == nil && !st.Delete && len(st.Lits) > 0 && len(st.Hints) >= 2 {
				steps = append(steps, i)
			}
		}
		if len(steps) == 0 {
			t.Fatalf("%s: no step to corrupt", path)
		}
		for _, i := range []int{steps[len(steps)/2], steps[len(steps)-1]} {
			st, _ := lrat.ParseStep(lines[i])
			for _, bad := range []lrat.Step{
				{ID: st.ID, Lits: append([]int{-st.Lits[0]}, st.Lits[1:]...), Hints: st.Hints},
				{ID: st.ID, Lits: st.Lits, Hints: st.Hints[:len(st.Hints)-1]},
			} {
				b := slices.Clone(lines)
				b[i] = bad.String()
				if err := os.WriteFile(path, []byte(strings.Join(b, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				_, errOut, code := odt(t, "certify", dir)
				want := fmt.Sprintf("%s:%d: clause %d:", p.Proof, i+1, st.ID)
				if code != 1 || !strings.Contains(errOut, want) {
					t.Fatalf("%s line %d changed to %q: odt certify exit %d, %q; want exit 1 naming %q", p.Proof, i+1, b[i], code, errOut, want)
				}
			}
		}
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCertify(t *testing.T) {
	for _, tc := range []certifyCase{
		{"sat-depth", []string{"--backend", "sat-depth", "../../testdata/monk1.csv"}, 5},
		{"sat-size", []string{"--backend", "sat-size", "../../testdata/monk1.csv"}, 15},
		{"sat-odd", []string{"--backend", "sat-odd", "--skeleton", "1,2", "../../testdata/iris.csv"}, 0},
		{"sat-odt", []string{"--backend", "sat-odt", "--depth", "2", "../../testdata/iris.csv"}, 0},
		{"sat-odt-bisect", []string{"--backend", "sat-odt", "--depth", "2", "--opt", "search=bisect", "--opt", "per-root=false", "../../testdata/iris.csv"}, 0},
		{"sat-odt-rows-counter", []string{"--backend", "sat-odt", "--depth", "2", "--opt", "counter=rows", "../../testdata/iris.csv"}, 0},
		{"sat-odd-alpha", []string{"--backend", "sat-odd", "--skeleton", "1,2,2", "--alpha", "0.01", "../../testdata/iris.csv"}, 0},
		{"sat-size-bisect", []string{"--backend", "sat-size", "--opt", "size-search=bisect", "../../testdata/monk1.csv"}, 15},
		{"sat-size-nodes", []string{"--backend", "sat-size", "--max-nodes", "15", "../../testdata/monk1.csv"}, 15},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCertify(t, tc) })
	}
}

// TestCertifyVote is the certified optimum of vote at depth 2 (17
// errors) on the cp4im file of ../shared.
func TestCertifyVote(t *testing.T) {
	data := filepath.Join(shared.Dir(t, "data/cp4im/vote.txt"), "data/cp4im/vote.txt")
	checkCertify(t, certifyCase{"vote", []string{"--backend", "sat-odt", "--depth", "2", data}, 17})
}

// TestCertifyRefused: solvers and backends that write no proof are
// refused before the solve, a directory without a certificate is bad
// input.
func TestCertifyRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", "--certify", dir, "--backend", "sat-odt", "--sat-solver", "gini", "../../testdata/vote.txt"}, `only odtkit's CDCL solver (sat-solver=cdcl) writes proofs, not "gini"`},
		{[]string{"solve", "--certify", dir, "--backend", "sat-depth", "--sat-solver", "gini", "../../testdata/monk1.csv"}, `not "gini"`},
		{[]string{"solve", "--certify", dir, "--backend", "sat-depth", "--sat-solver", "external:minisat {in} {out}", "../../testdata/monk1.csv"}, "or an external solver that writes proofs ({drat} or {proof})"},
		{[]string{"solve", "--certify", dir, "--backend", "sat-size", "--sat-solver", "external:cadical -q {in} {drat}", "../../testdata/monk1.csv"}, "sat-size's descent refutes under assumptions"},
		{[]string{"solve", "--certify", dir, "--backend", "sat-odt", "--opt", "search=rows", "../../testdata/vote.txt"}, "search=rows writes no proof"},
		{[]string{"solve", "--certify", dir, "--backend", "dl85", "../../testdata/vote.txt"}, "has no option certify"},
		{[]string{"solve", "--certify", dir, "--backend", "sat-odt", "--depth", "1,2", "../../testdata/vote.txt"}, "--certify certifies one solve"},
		{[]string{"certify", dir}, "no certificate (index.json missing)"},
	} {
		_, errOut, code := odt(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestCertifyInfeasible: sat-depth's proof that no tree within the node
// limit is consistent (status infeasible) is certified too.
func TestCertifyInfeasible(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cert")
	out, errOut, code := odt(t, "solve", "-q", "--format", "json", "--certify", dir, "--backend", "sat-depth", "--max-nodes", "6", "../../testdata/monk1.csv")
	var res struct {
		Status    string `json:"status"`
		Certified bool   `json:"certified"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Status != "infeasible" || !res.Certified {
		t.Fatalf("exit %d, %s%s: want a certified infeasible result", code, out, errOut)
	}
	if out, errOut, code := odt(t, "certify", dir, "../../testdata/monk1.csv"); code != 0 || !strings.Contains(out, "with at most 6 internal nodes") {
		t.Fatalf("odt certify: exit %d: %s%s", code, out, errOut)
	}
}
