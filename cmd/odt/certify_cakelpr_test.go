package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/internal/shared"
)

// TestCertifyStandardCakeLPR checks the standard form that odt certify
// --standard writes with cake_lpr, the formally verified LRAT checker of
// the CakeML project (../shared/tools/cake_lpr): every formula and proof
// must print "s VERIFIED UNSAT", and a proof with a hint dropped must
// not. It skips, saying so, where ../shared has no cake_lpr.
func TestCertifyStandardCakeLPR(t *testing.T) {
	checker := shared.CakeLPR(t)
	type certCase struct {
		name string
		data string
		args []string
	}
	cases := []certCase{
		{"vote-depth2", "../../testdata/vote.txt", []string{"--backend", "sat-odt", "--depth", "2"}},
		{"monk1-sat-depth", "../../testdata/monk1.csv", []string{"--backend", "sat-depth"}},
		{"monk1-sat-size", "../../testdata/monk1.csv", []string{"--backend", "sat-size"}},
		{"iris-sat-odd-1,2", "../../testdata/iris.csv", []string{"--backend", "sat-odd", "--skeleton", "1,2"}},
	}
	// Certificates of CaDiCaL's refutations: the LRAT proofs its DRAT
	// proofs were elaborated into.
	if _, err := exec.LookPath("cadical"); err == nil {
		cadical := []string{"--opt", "sat-solver=external:cadical -q {in} {drat}"}
		cases = append(cases,
			certCase{"monk1-sat-depth-cadical", "../../testdata/monk1.csv", append([]string{"--backend", "sat-depth"}, cadical...)},
			certCase{"monk1-sat-dt1-cadical", "../../testdata/monk1.csv", append([]string{"--backend", "sat-dt1", "--objective", "min-nodes"}, cadical...)})
	} else {
		t.Log("cadical is not installed: certificates of its proofs are not tried")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := certified(t, append(tc.args, tc.data)...)
			std := filepath.Join(t.TempDir(), "standard")
			out, errOut, code := odt(t, "certify", "--standard", std, dir, tc.data)
			if code != 0 {
				t.Fatalf("odt certify --standard: exit %d: %s%s", code, out, errOut)
			}
			cnfs, _ := filepath.Glob(filepath.Join(std, "*.cnf"))
			if len(cnfs) == 0 {
				t.Fatal("no standard form written")
			}
			for _, cnf := range cnfs {
				proof := strings.TrimSuffix(cnf, ".cnf") + ".lrat"
				if got := shared.RunCakeLPR(t, checker, cnf, proof); !strings.Contains(got, "s VERIFIED UNSAT") {
					t.Fatalf("cake_lpr %s: %s", filepath.Base(cnf), got)
				}
			}
			// The last step with hints loses its conflict: refused.
			proof := strings.TrimSuffix(cnfs[0], ".cnf") + ".lrat"
			b, err := os.ReadFile(proof)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			last := strings.Fields(lines[len(lines)-1]) // ID 0 H... 0
			lines[len(lines)-1] = strings.Join(append(last[:len(last)-2:len(last)-2], "0"), " ")
			bad := proof + ".bad"
			if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := shared.RunCakeLPR(t, checker, cnfs[0], bad); strings.Contains(got, "s VERIFIED UNSAT") {
				t.Fatalf("cake_lpr accepts a proof whose last step lost its conflict: %s", got)
			}
		})
	}
}
