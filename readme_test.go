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

// The README stays a short page for users that starts with the set-up
// and run command and the test command, the latter being what CI runs.
func TestREADMEShortWithQuickStartFirst(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(readme), "\n"), "\n")
	if len(lines) > 300 {
		t.Errorf("README.md has %d lines; keep it at most 300 and move reference material to docs/", len(lines))
	}
	head := strings.Join(lines[:min(len(lines), 25)], "\n")
	for _, cmd := range []string{
		"bash scripts/setup.sh && export PATH=/usr/local/go/bin:$PATH && go run ./cmd/odt solve --depth 3 testdata/vote.txt",
		"bash scripts/test.sh",
	} {
		if !strings.Contains(head, "\n"+cmd+"\n") {
			t.Errorf("the README's first screen lacks the command line %q", cmd)
		}
	}
	ci, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "scripts/test.sh") {
		t.Errorf(".ci/run does not run scripts/test.sh, the README's test command:\n%s", ci)
	}
}
