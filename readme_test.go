package odtkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMELibrarySnippet compiles and runs the first Go block of the
// README's "Library use" section as written, so that the snippet users
// copy keeps working.
func TestREADMELibrarySnippet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "## Library use")
	if i < 0 {
		t.Fatal(`README has no "## Library use" section`)
	}
	s = s[i:]
	start := strings.Index(s, "```go\n")
	if start < 0 {
		t.Fatal("no Go block in the Library use section")
	}
	s = s[start+len("```go\n"):]
	code := s[:strings.Index(s, "```")]
	// A folder inside the module (a leading underscore keeps it out of ./...).
	dir, err := os.MkdirTemp(".", "_readme")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "vet", "./"+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go vet on the README snippet: %v\n%s\n%s", err, out, code)
	}
	out, err = exec.Command("go", "run", "./"+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("the README snippet fails: %v\n%s", err, out)
	}
	// dl85 at depth 2 on iris: 6 errors, proven.
	if first, _, _ := strings.Cut(string(out), "\n"); first != "6 true optimal" {
		t.Errorf("the README snippet printed %q, want its first line to be \"6 true optimal\"", out)
	}
}
