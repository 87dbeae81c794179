package sat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCertificateDir: a certificate goes into a missing or empty
// directory, or replaces one (with replace); it is written beside and
// put in place by Commit, and Discard leaves nothing.
func TestCertificateDir(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(root, "other")
	os.Mkdir(other, 0o755)
	write(filepath.Join(other, "notes.txt"), "x")
	old := filepath.Join(root, "old")
	os.Mkdir(old, 0o755)
	write(filepath.Join(old, "index.json"), "{}")
	write(filepath.Join(old, "stale.lrat"), "x")
	file := filepath.Join(root, "file")
	write(file, "x")
	for _, tc := range []struct {
		dir     string
		replace bool
		ok      bool
	}{
		{filepath.Join(root, "missing"), false, true},
		{other, true, false},
		{old, false, false},
		{old, true, true},
		{file, true, false},
	} {
		err := CheckCertificateDir(tc.dir, tc.replace)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrCertificateDir) {
			t.Errorf("%s (replace %v): %v", filepath.Base(tc.dir), tc.replace, err)
		}
	}

	c, err := NewCertifier(old, true)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(c.Work) != root {
		t.Fatalf("work directory %s is not beside %s", c.Work, old)
	}
	write(filepath.Join(c.Work, "index.json"), "{\"new\": true}")
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(old, "stale.lrat")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old certificate's files are still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(old, "index.json")); string(b) != "{\"new\": true}" {
		t.Errorf("index %q", b)
	}

	c, err = NewCertifier(filepath.Join(root, "gone"), false)
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(c.Work, "f.cnf"), "p cnf 0 0\n")
	c.Discard()
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if e.Name() != "other" && e.Name() != "old" && e.Name() != "file" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestEndProofStops: writing a proof's files stops at once when the
// context has ended.
func TestEndProofStops(t *testing.T) {
	dir := t.TempDir()
	s := NewCDCL()
	if err := s.StartProof(filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	s.AddClause(1, 2)
	s.AddClause(-1, 2)
	s.AddClause(1, -2)
	s.AddClause(-1, -2)
	if st, _ := s.Solve(context.Background()); st != Unsatisfiable {
		t.Fatal(st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.EndProofContext(ctx, filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.lrat"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the context's end", err)
	}
}
