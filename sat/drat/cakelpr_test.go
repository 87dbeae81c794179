package drat_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/sat/drat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// TestCakeLPR checks elaborated proofs with cake_lpr, the formally
// verified LRAT checker (../shared/tools/cake_lpr): DRAT proofs made
// from odtkit's CDCL's refutations of pigeonhole formulas, and
// CaDiCaL's binary DRAT proof of one when cadical is installed. It
// skips, saying so, where ../shared has no cake_lpr.
func TestCakeLPR(t *testing.T) {
	checker := shared.CakeLPR(t)
	dir := t.TempDir()
	type inst struct {
		name       string
		cnf, proof string // file paths
	}
	var insts []inst
	for _, n := range []int{4, 6} {
		v, cs := pigeons(n)
		both, ok := cdclDRAT(t, v, cs)
		if !ok {
			t.Fatalf("php%d satisfiable", n)
		}
		cnf, text, _ := strings.Cut(both, "\x00")
		name := fmt.Sprintf("cdcl-php%d", n)
		in := inst{name, filepath.Join(dir, name+".cnf"), filepath.Join(dir, name+".drat")}
		write(t, in.cnf, cnf)
		write(t, in.proof, text)
		insts = append(insts, in)
	}
	if _, err := exec.LookPath("cadical"); err == nil {
		v, cs := pigeons(7)
		in := inst{"cadical-php7", filepath.Join(dir, "php7.cnf"), filepath.Join(dir, "php7.drat")}
		write(t, in.cnf, dimacs(v, cs))
		out, _ := exec.Command("cadical", "-q", in.cnf, in.proof).CombinedOutput()
		if !strings.Contains(string(out), "s UNSATISFIABLE") {
			t.Fatalf("cadical on php7: %s", out)
		}
		insts = append(insts, in)
	} else {
		t.Log("cadical is not installed: its binary DRAT proof is not tried")
	}
	for _, in := range insts {
		f, err := lrat.ReadFormula(in.cnf)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := os.Open(in.proof)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		st, err := drat.Elaborate(context.Background(), f, pf, in.proof, &out, drat.Options{TempDir: dir})
		pf.Close()
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		lratPath := filepath.Join(dir, in.name+".lrat")
		write(t, lratPath, out.String())
		got := shared.RunCakeLPR(t, checker, in.cnf, lratPath)
		if !strings.Contains(got, "s VERIFIED UNSAT") {
			t.Fatalf("%s: cake_lpr: %s", in.name, got)
		}
		t.Logf("%s: %d lemmas read, %d kept; cake_lpr: s VERIFIED UNSAT", in.name, st.Added, st.Kept)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
