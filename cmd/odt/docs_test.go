package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/odtkit/odtkit"
)

// repoRoot is the repository root, seen from this package's folder.
const repoRoot = "../.."

// docs/backends.md is the output of the command it names, from the
// current registry: a backend added or an option changed without
// regenerating the page fails here.
func TestBackendsDocIsCurrent(t *testing.T) {
	var want bytes.Buffer
	if err := writeBackendsMarkdown(&want, odtkit.DefaultRegistry().List()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(repoRoot, "docs", "backends.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("docs/backends.md is not the current output of its command; regenerate it from the repository root with\n\tgo run ./cmd/odt %s", backendsDocCommand[len("odt "):])
	}
	if !bytes.Contains(got, []byte(backendsDocCommand)) {
		t.Errorf("docs/backends.md does not name its generating command %q", backendsDocCommand)
	}
}
