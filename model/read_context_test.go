package model_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// ReadFileContext stops at its context's first check after the cancel,
// within a few thousand rows, naming the line reached; the error wraps
// the context's cause. The same rows read in full without a cancel.
func TestReadFileContextStops(t *testing.T) {
	dir := t.TempDir()
	var csvText, txt strings.Builder
	csvText.WriteString("a,b,class\n")
	for i := range 10_000 {
		fmt.Fprintf(&csvText, "%d,%d,%d\n", i%7, i%5, i%2)
		fmt.Fprintf(&txt, "%d %d %d\n", i%2, i%7, i%5)
	}
	for _, c := range []struct{ file, text, line string }{
		{"d.csv", csvText.String(), "d.csv:4097:"}, // the header, then row 4096
		{"d.txt", txt.String(), "d.txt:4096:"},
	} {
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		// The first look (before opening) passes, the second stops.
		_, err := model.ReadFileContext(modeltest.StopAfter(1), p, model.ReadOptions{})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), c.line) {
			t.Errorf("%s: err %v, want context.Canceled at %s", c.file, err, c.line)
		}
		var de *model.DataError
		if errors.As(err, &de) {
			t.Errorf("%s: a stopped read is reported as bad data: %v", c.file, err)
		}
		d, err := model.ReadFileContext(context.Background(), p, model.ReadOptions{})
		if err != nil || d.Rows() != 10_000 {
			t.Fatalf("%s: uncancelled read: %v", c.file, err)
		}
	}
}
