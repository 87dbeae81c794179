package shared

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadTable(t *testing.T) {
	rows, err := readTable(write(t, "good.tsv", "# comment\n\ndataset\tdepth\tcpu\tnotes\nanneal\t3\t0.5\tx\nvote\t4\t-\n"))
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v %v", rows, err)
	}
	if rows[0]["dataset"] != "anneal" || rows[0]["notes"] != "x" {
		t.Errorf("row 0: %v", rows[0])
	}
	if n, ok := rows[1].Int("depth"); !ok || n != 4 {
		t.Errorf("depth %d %v", n, ok)
	}
	if x, ok := rows[0].Float("cpu"); !ok || x != 0.5 {
		t.Errorf("cpu %v %v", x, ok)
	}
	if _, ok := rows[1].Float("cpu"); ok {
		t.Error(`"-" read as a number`)
	}
	if rows[1]["notes"] != "" {
		t.Errorf("left-off column reads %q", rows[1]["notes"])
	}
	if _, err := readTable(write(t, "bad.tsv", "a\tb\n1\t2\n3\t4\t5\n")); err == nil || !strings.Contains(err.Error(), "bad.tsv:3") {
		t.Errorf("line with an extra field: %v", err)
	}
	if _, err := readTable(write(t, "empty.tsv", "# nothing\na\tb\n")); err == nil {
		t.Error("a table without rows was accepted")
	}
}

func TestReferenceTablesParse(t *testing.T) {
	for _, name := range []string{"cp4im-optima.tsv", "inferdt.tsv", "numeric-optima.tsv"} {
		rows := Table(t, filepath.Join("reference", name))
		if rows[0]["dataset"] == "" {
			t.Errorf("%s: no dataset column", name)
		}
	}
}
