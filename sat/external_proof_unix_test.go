//go:build unix

package sat

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/sat/lrat"
)

// TestExternalProof runs a fake external solver that answers UNSAT and
// writes a prepared LRAT proof to {proof}: a proof made by odtkit's CDCL
// on the same clauses (the solver writes the same DIMACS clause order),
// then that proof corrupted, then none. Only the first is accepted, and
// Checked says so.
func TestExternalProof(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	dir := t.TempDir()
	add := func(s ClauseAdder) { pigeons(s, 4) }
	cd := NewCDCL()
	if err := cd.StartProof(filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	add(cd)
	if st, _ := cd.Solve(context.Background()); st != Unsatisfiable {
		t.Fatal(st)
	}
	files, err := cd.EndProof(filepath.Join(dir, "f.cnf"), filepath.Join(dir, "good.lrat"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(files.Proof)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(good)), "\n")
	f := strings.Fields(lines[len(lines)-1]) // the empty clause: ID 0 hints 0
	bad := strings.Join(append(lines[:len(lines)-1], strings.Join(append(f[:len(f)-2], "0"), " ")), "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.lrat"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		proof string // the file the fake solver copies ("" none)
		want  string // the error ("" none)
	}{
		{"good.lrat", ""},
		{"bad.lrat", "the hints end without a conflict"},
		{"", "no such file"},
	} {
		script := `echo "s UNSATISFIABLE"`
		if tc.proof != "" {
			script = "cp " + filepath.Join(dir, tc.proof) + " \"$1\"; " + script
		}
		e, err := NewExternal(`/bin/sh -c '` + script + `' fake {proof}`)
		if err != nil {
			t.Fatal(err)
		}
		add(e)
		st, err := e.Solve(context.Background())
		switch {
		case tc.want == "" && (err != nil || st != Unsatisfiable || !e.Checked()):
			t.Errorf("proof %s: %v %v checked %v, want a checked UNSAT", tc.proof, st, err, e.Checked())
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || e.Checked()):
			t.Errorf("proof %q: %v %v, want an error saying %q", tc.proof, st, err, tc.want)
		}
		if tc.proof == "bad.lrat" && !errors.Is(err, lrat.ErrRefused) {
			t.Errorf("a refused proof's error does not wrap lrat.ErrRefused: %v", err)
		}
	}
}

// TestExternalDRAT runs external solvers that answer UNSAT with a DRAT
// proof ({drat}): CaDiCaL's binary proof (when cadical is installed),
// a fake solver's text proof that is wrong, and none. Only CaDiCaL's is
// accepted; it is elaborated to LRAT and checked, and Checked says so.
func TestExternalDRAT(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	if _, err := NewExternal("cadical {in} {proof} {drat}"); err == nil || !strings.Contains(err.Error(), "two proofs") {
		t.Errorf("a command line with {proof} and {drat}: got %v", err)
	}
	type run struct {
		cmd  string
		want string // the error ("" none)
	}
	runs := []run{
		{`/bin/sh -c 'printf "1 0\n" > "$1"; echo "s UNSATISFIABLE"' fake {drat}`, "lemma 1 [1] does not follow by unit propagation"},
		{`/bin/sh -c 'echo "s UNSATISFIABLE"' fake {drat}`, "no such file"},
	}
	if _, err := exec.LookPath("cadical"); err == nil {
		runs = append(runs, run{"cadical -q {in} {drat}", ""})
	} else {
		t.Log("cadical is not installed (Debian: apt-get install cadical): its binary DRAT proof is not tried")
	}
	for _, tc := range runs {
		e, err := NewExternal(tc.cmd)
		if err != nil {
			t.Fatal(err)
		}
		pigeons(e, 5)
		st, err := e.Solve(context.Background())
		switch {
		case tc.want == "" && (err != nil || st != Unsatisfiable || !e.Checked() || UncheckedRefutations(e) != 0):
			t.Errorf("%s: %v %v checked %v, want a checked UNSAT", tc.cmd, st, err, e.Checked())
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || e.Checked()):
			t.Errorf("%s: %v %v, want an error saying %q", tc.cmd, st, err, tc.want)
		}
	}
}

// TestExternalProofLog: an External solver that writes DRAT proofs logs
// its refutation's checked proof for a certificate: the formula it wrote
// and the elaborated LRAT proof, whose empty clause Refutation names.
// Without {drat} or {proof} it is not certifiable; a call with
// assumptions is refused while logging. Skipped without cadical.
func TestExternalProofLog(t *testing.T) {
	plain, err := NewExternal("minisat {in} {out}")
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.StartProof(filepath.Join(t.TempDir(), "p.log")); !errors.Is(err, ErrNotCertifiable) {
		t.Errorf("StartProof without a proof placeholder: %v", err)
	}
	if err := CertifiableCalls("external:minisat {in} {out}"); !errors.Is(err, ErrNotCertifiable) {
		t.Errorf("CertifiableCalls without a proof placeholder: %v", err)
	}
	if err := CertifiableCalls(`external:"cadical -q {in} {drat}"`); err != nil {
		t.Errorf("CertifiableCalls with {drat}: %v", err)
	}
	if _, err := exec.LookPath("cadical"); err != nil {
		t.Skip("cadical is not installed (Debian: apt-get install cadical)")
	}
	cert, err := NewCertifier(filepath.Join(t.TempDir(), "cert"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer cert.Discard()
	e, err := NewExternal("cadical -q {in} {drat}")
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.Start(e, "php5"); err != nil {
		t.Fatal(err)
	}
	pigeons(e, 5)
	if st, err := e.Solve(context.Background()); st != Unsatisfiable || err != nil || !e.Checked() {
		t.Fatalf("php5: %v %v", st, err)
	}
	id, clause, ok := e.Refutation()
	if !ok || len(clause) != 0 {
		t.Fatalf("refutation %d %v %v", id, clause, ok)
	}
	if err := cert.Finish(context.Background(), e, "php5", nil, Refuted{LogID: id, Bound: 1}); err != nil {
		t.Fatal(err)
	}
	if err := cert.Commit(); err != nil {
		t.Fatal(err)
	}
	p := cert.Proofs[0]
	c, err := lrat.CheckFiles(context.Background(), filepath.Join(cert.Dir, p.Formula), filepath.Join(cert.Dir, p.Proof))
	if err != nil || !c.Refuted() {
		t.Fatalf("the certificate's proof: %v", err)
	}
	if err := c.Refutes(p.Refutations[0]); err != nil {
		t.Error(err)
	}
	// A call with assumptions is not logged.
	e2, _ := NewExternal("cadical -q {in} {drat}")
	if err := e2.StartProof(filepath.Join(t.TempDir(), "q.log")); err != nil {
		t.Fatal(err)
	}
	pigeons(e2, 3)
	if _, err := e2.Solve(context.Background(), 1); !errors.Is(err, ErrNotCertifiable) {
		t.Errorf("a call with assumptions while logging: %v", err)
	}
	e2.dropProof()
}
