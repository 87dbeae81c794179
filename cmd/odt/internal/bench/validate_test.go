package bench

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
)

// checkingOdt stands in for odt: backend "bad" and file "broken" are
// refused with exit code 2, anything else fails with 1 (not a refusal).
func checkingOdt(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "odt")
	script := `#!/bin/sh
for a; do last=$a; done
case " $* " in
*" --backend bad "*) echo "odt: unknown backend \"bad\"" >&2; exit 2 ;;
esac
case "$last" in
*broken*) echo "odt: $last:3: row has 2 fields" >&2; exit 2 ;;
esac
exit 1
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateNamesTheBadOne(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("a,b\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, broken := file("good.csv"), file("broken.csv")
	rn := &Runner{Exe: checkingOdt(t), Validate: true}
	if err := Validate(context.Background(), rn, Grid([]string{good}, []string{"cart", "dl85"}, []int{2, 3}, 1)); err != nil {
		t.Fatalf("a good grid refused: %v", err)
	}
	err := Validate(context.Background(), rn, Grid([]string{good}, []string{"cart", "bad"}, []int{2}, 1))
	var ie *InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("bad backend: %v", err)
	}
	err = Validate(context.Background(), rn, Grid([]string{good, broken}, []string{"cart"}, []int{2}, 1))
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "broken.csv:3") {
		t.Fatalf("bad file: %v", err)
	}
	var pe *fs.PathError
	err = Validate(context.Background(), rn, Grid([]string{good, filepath.Join(dir, "none.csv")}, []string{"cart"}, []int{2}, 1))
	if !errors.As(err, &pe) {
		t.Fatalf("missing file: %v", err)
	}
	// Execute refuses before the first run and writes nothing.
	out := filepath.Join(dir, "out")
	if _, err := Execute(context.Background(), rn, Grid([]string{good}, []string{"bad"}, []int{2}, 1), out, nil); !errors.As(err, &ie) {
		t.Fatalf("Execute: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("Execute wrote results for a refused grid")
	}
}
