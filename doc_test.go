package odtkit_test

import (
	"os"
	"strings"
	"testing"

	"github.com/odtkit/odtkit"
)

// TestPackageDocTable: the backends table of the package documentation
// lists every registered backend with its family and objectives, and
// nothing else.
func TestPackageDocTable(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		text, ok := strings.CutPrefix(line, "//\t")
		if !ok {
			if in {
				break
			}
			continue
		}
		f := strings.Fields(text)
		if len(f) > 0 && f[0] == "backend" {
			in = true
			continue
		}
		if in && len(f) >= 3 {
			rows[f[0]] = f[1:]
		}
	}
	infos := odtkit.DefaultRegistry().List()
	if len(rows) != len(infos) {
		t.Errorf("doc.go lists %d backends, the registry %d", len(rows), len(infos))
	}
	for _, in := range infos {
		r, ok := rows[in.Name]
		if !ok {
			t.Errorf("doc.go does not list %s", in.Name)
			continue
		}
		if r[0] != string(in.Family) {
			t.Errorf("doc.go: %s is family %s, the registry says %s", in.Name, r[0], in.Family)
		}
		var objs []string
		for _, o := range in.Objectives {
			objs = append(objs, string(o))
		}
		if got := strings.Join(r[1:], " "); !strings.HasPrefix(got, strings.Join(objs, ", ")+" ") {
			t.Errorf("doc.go: %s solves %q, the registry says %s", in.Name, got, strings.Join(objs, ", "))
		}
	}
}
