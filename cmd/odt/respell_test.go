package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOldOptionSpellingIsNoted: an option's old spelling is still taken,
// with a note on stderr naming the new one; the new spelling has none.
func TestOldOptionSpellingIsNoted(t *testing.T) {
	data := "../../testdata/monk1.csv"
	_, stderr, code := odt(t, "solve", "--check", "--backend", "milp-flowoct", "--depth", "2", "--opt", "formulation=benders", data)
	if code != 0 || !strings.Contains(stderr, "note:") || !strings.Contains(stderr, "formulation=benders is deprecated, now spelled method=benders") {
		t.Errorf("old spelling: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = odt(t, "solve", "--check", "--backend", "milp-flowoct", "--depth", "2", "--opt", "method=benders", data)
	if code != 0 || strings.Contains(stderr, "note:") {
		t.Errorf("new spelling: exit %d, stderr %q", code, stderr)
	}
	// An export writes the published MILP, so it takes formulation=published.
	out := filepath.Join(t.TempDir(), "f.lp")
	_, stderr, code = odt(t, "export", "--to", "lp", "--backend", "milp-flowoct", "--depth", "2", "--opt", "formulation=published", data, "-o", out)
	if code != 0 {
		t.Errorf("export formulation=published: exit %d, stderr %q", code, stderr)
	}
}
