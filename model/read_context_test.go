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

// A compressed data file is refused with the format named, whatever its
// extension, instead of being parsed as text.
func TestReadFileCompressed(t *testing.T) {
	dir := t.TempDir()
	for format, head := range map[string]string{
		"gzip":  "\x1f\x8b\x08\x00\x00\x00",
		"bzip2": "BZh91AY&SY\x01\x02",
		"xz":    "\xfd7zXZ\x00\x00\x04",
		"zstd":  "\x28\xb5\x2f\xfd\x04\x00",
		"zip":   "PK\x03\x04\x14\x00",
	} {
		for _, name := range []string{"d.csv", "d.txt"} {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(head+"rest,of,it\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := model.ReadFile(p, model.ReadOptions{})
			var de *model.DataError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), "compressed ("+format+")") {
				t.Errorf("%s %s: %v, want a DataError naming %s", format, name, err, format)
			}
		}
	}
	// Text that merely starts like a magic number is read.
	p := filepath.Join(dir, "bz.csv")
	if err := os.WriteFile(p, []byte("BZh,b,y\n1,2,a\n3,4,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := model.ReadFile(p, model.ReadOptions{}); err != nil {
		t.Errorf("a header starting BZh: %v", err)
	}
}
