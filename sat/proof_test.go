package sat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/odtkit/odtkit/sat/lrat"
)

// pigeons adds the clauses saying that n+1 pigeons sit in n holes, one
// per hole: unsatisfiable, and hard enough for the learnt clauses to be
// reduced and the arena compacted.
func pigeons(s ClauseAdder, n int) {
	x := func(p, h int) Lit { return Lit(p*n + h + 1) }
	for p := range n + 1 {
		c := make([]Lit, n)
		for h := range n {
			c[h] = x(p, h)
		}
		s.AddClause(c...)
	}
	for h := range n {
		for p := range n + 1 {
			for q := p + 1; q <= n; q++ {
				s.AddClause(-x(p, h), -x(q, h))
			}
		}
	}
}

// proveWith solves pigeons(n) with a proof (the learnt clause number
// corruptAt made wrong when positive) on s, an empty solver, and checks
// the proof.
func proveWith(t *testing.T, s *CDCL, n int, corruptAt int64) (*CDCL, error) {
	t.Helper()
	dir := t.TempDir()
	if err := s.StartProof(filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	s.proof.corruptAt = corruptAt
	pigeons(s, n)
	st, err := s.Solve(context.Background())
	if err != nil || st != Unsatisfiable {
		t.Fatalf("pigeons %d: %v %v", n, st, err)
	}
	id, clause, ok := s.Refutation()
	if !ok || len(clause) != 0 {
		t.Fatalf("refutation %d %v %v: want the empty clause", id, clause, ok)
	}
	files, err := s.EndProof(filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.lrat"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := lrat.CheckFiles(context.Background(), files.Formula, files.Proof)
	if err != nil {
		return s, err
	}
	if cl, ok := c.Clause(files.ID(id)); !ok || len(cl) != 0 {
		t.Fatalf("the empty clause is not in the checked proof")
	}
	return s, nil
}

// TestProofReduced checks a proof through reductions of the learnt
// clauses and compactions of the arena (their deletions included).
func TestProofReduced(t *testing.T) {
	s, err := proveWith(t, NewCDCL(), 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.reductions == 0 || s.compactions == 0 {
		t.Fatalf("%d reductions, %d compactions: the test must go through both", s.reductions, s.compactions)
	}
}

// TestProofCatchesWrongClause makes the solver learn a wrong clause (the
// test hook drops a literal of a learnt clause): the checker must refuse
// the proof at that step.
func TestProofCatchesWrongClause(t *testing.T) {
	for _, at := range []int64{1, 50, 500} {
		_, err := proveWith(t, NewCDCL(), 6, at)
		var se *lrat.StepError
		if !errors.As(err, &se) {
			t.Fatalf("learnt clause %d made wrong: the checker accepted the proof (%v)", at, err)
		}
		t.Logf("learnt clause %d made wrong: %v", at, err)
	}
}

// BenchmarkProof solves the pigeonhole formula of 8 holes without and
// with a proof (written to a temporary directory, turned into its two
// files at the end): the cost of logging.
func BenchmarkProof(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				s := NewCDCL()
				if on {
					if err := s.StartProof(filepath.Join(dir, "log")); err != nil {
						b.Fatal(err)
					}
				}
				pigeons(s, 8)
				if st, _ := s.Solve(context.Background()); st != Unsatisfiable {
					b.Fatal(st)
				}
				if on {
					if _, err := s.EndProof(filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.lrat")); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestProofCheckStops: a check whose context has ended stops with the
// context's error, not a refusal.
func TestProofCheckStops(t *testing.T) {
	dir := t.TempDir()
	s := NewCDCL()
	if err := s.StartProof(filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	pigeons(s, 7)
	if st, _ := s.Solve(context.Background()); st != Unsatisfiable {
		t.Fatal(st)
	}
	files, err := s.EndProof(filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.lrat"))
	if err != nil {
		t.Fatal(err)
	}
	if files.Steps < 2000 {
		t.Fatalf("%d steps: too few for the check to look at its context", files.Steps)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = lrat.CheckFiles(ctx, files.Formula, files.Proof)
	if !errors.Is(err, context.Canceled) || errors.Is(err, lrat.ErrRefused) {
		t.Fatalf("got %v, want the context's error", err)
	}
}

// refutePigeons refutes pigeons(n) on s, an empty solver, logging a
// proof when on, and returns s.
func refutePigeons(t *testing.T, s *CDCL, n int, on bool) *CDCL {
	t.Helper()
	if on {
		if err := s.StartProof(filepath.Join(t.TempDir(), "log")); err != nil {
			t.Fatal(err)
		}
	}
	pigeons(s, n)
	if st, _ := s.Solve(context.Background()); st != Unsatisfiable {
		t.Fatal(st)
	}
	return s
}

// TestProofSameSearch: logging a proof does not change the search (the
// same conflicts, decisions, reductions and compactions), so that the
// cost of logging is measured on the same work.
func TestProofSameSearch(t *testing.T) {
	for _, n := range []int{7, 8} {
		var runs [2][4]int64
		for i, on := range []bool{false, true} {
			s := refutePigeons(t, NewCDCL(), n, on)
			runs[i] = [4]int64{s.conflicts, s.decisions, int64(s.reductions), int64(s.compactions)}
		}
		if runs[0] != runs[1] || runs[0][3] == 0 {
			t.Errorf("pigeons %d: conflicts, decisions, reductions, compactions %v without a proof, %v with (compactions must happen)", n, runs[0], runs[1])
		}
	}
}

// TestProofReset: Reset drops a proof being logged (its log removed),
// and the emptied solver takes a new one.
func TestProofReset(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	s := NewCDCL()
	if err := s.StartProof(log); err != nil {
		t.Fatal(err)
	}
	s.AddClause(1, 2)
	if err := s.StartProof(log + "2"); err == nil {
		t.Fatal("a second proof started while one is logged")
	}
	s.Reset()
	if _, err := os.Stat(log); !errors.Is(err, os.ErrNotExist) || s.Proving() {
		t.Fatalf("after Reset: log %v, proving %v", err, s.Proving())
	}
	if err := s.StartProof(log); err != nil {
		t.Fatal(err)
	}
	s.Reset()
}

// TestProofWriteFailureStops: once the proof log cannot be written (here
// /dev/full, a disk with no space), the search stops with the write error
// at its next restart instead of searching on for a proof it cannot keep.
func TestProofWriteFailureStops(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	s := NewCDCL()
	if err := s.StartProof("/dev/full"); err != nil {
		t.Skipf("/dev/full: %v", err)
	}
	pigeons(s, 9)
	st, err := s.Solve(context.Background())
	if err == nil || st != Unknown {
		t.Fatalf("status %v, error %v: want Unknown and the proof log's write error", st, err)
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("error %v: want it to wrap ENOSPC", err)
	}
}
