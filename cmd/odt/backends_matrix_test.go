package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// TestMatrixCells: each backend is listed in the cell of each objective
// it solves and of its family, in registry order, and nowhere else;
// empty cells print "-".
func TestMatrixCells(t *testing.T) {
	infos := []backend.Info{
		{Name: "a", Family: backend.FamilyDP, Objectives: []model.Objective{model.MinError, model.MinDepth}},
		{Name: "b", Family: backend.FamilySAT, Objectives: []model.Objective{model.MinDepth}},
		{Name: "c", Family: backend.FamilyDP, Objectives: []model.Objective{model.MinDepth, "future"}},
	}
	m := newMatrix(infos)
	if want := []string{"error", "min-depth", "min-size", "min-nodes", "diagram", "future"}; !slices.Equal(m.Objectives, want) {
		t.Errorf("objectives %v, want %v", m.Objectives, want)
	}
	for o, want := range map[string]map[string]string{
		"error":     {"dp": "a", "sat": "-"},
		"min-depth": {"dp": "a, c", "sat": "b", "milp": "-"},
		"min-size":  {"dp": "-", "sat": "-"},
		"min-nodes": {"dp": "-", "sat": "-"},
		"future":    {"dp": "c"},
	} {
		for f, w := range want {
			if got := m.cell(o, f); got != w {
				t.Errorf("cell %s × %s = %q, want %q", o, f, got, w)
			}
		}
	}
	var sb strings.Builder
	if err := m.write(&sb, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "| min-depth | `a`, `c` | `b` | - | - | - | - |\n") {
		t.Errorf("markdown:\n%s", sb.String())
	}
}

// TestBackendsFamilyAndMatrix: `odt backends` gives each backend's family
// in every format, and --matrix places every registered backend under its
// family for each objective it solves.
func TestBackendsFamilyAndMatrix(t *testing.T) {
	infos := odtkit.DefaultRegistry().List()
	out, _, code := odt(t, "backends", "--format", "json")
	var list []struct{ Name, Family string }
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list) != len(infos) {
		t.Fatalf("backends json (exit %d): %v\n%s", code, err, out)
	}
	for i, in := range infos {
		if list[i].Name != in.Name || list[i].Family != string(in.Family) || list[i].Family == "" {
			t.Errorf("json entry %d: %+v, want %s of family %s", i, list[i], in.Name, in.Family)
		}
	}
	text, _, code := odt(t, "backends")
	md, _, code2 := odt(t, "backends", "--format", "markdown")
	if code != 0 || code2 != 0 {
		t.Fatalf("backends: exit %d, markdown exit %d", code, code2)
	}
	for _, in := range infos {
		if !strings.Contains(text, in.Name+"\n  "+in.Description+"\n  family:     "+string(in.Family)+"\n") {
			t.Errorf("text output lacks the family of %s", in.Name)
		}
		if !strings.Contains(md, "| [`"+in.Name+"`](#"+in.Name+") | "+string(in.Family)+" | ") {
			t.Errorf("markdown output lacks the family of %s", in.Name)
		}
	}

	out, _, code = odt(t, "backends", "--matrix", "--format", "json")
	var m matrix
	if err := json.Unmarshal([]byte(out), &m); err != nil || code != 0 {
		t.Fatalf("backends --matrix json (exit %d): %v\n%s", code, err, out)
	}
	for _, in := range infos {
		for _, o := range in.Objectives {
			if !slices.Contains(m.Cells[string(o)][string(in.Family)], in.Name) {
				t.Errorf("%s is not in cell %s × %s: %v", in.Name, o, in.Family, m.Cells[string(o)])
			}
		}
	}
	n := 0
	for _, row := range m.Cells {
		for _, bs := range row {
			n += len(bs)
		}
	}
	want := 0
	for _, in := range infos {
		want += len(in.Objectives)
	}
	if n != want {
		t.Errorf("the matrix lists %d (objective, backend) pairs, the registry declares %d", n, want)
	}
	// The consistent-tree objectives have a DP and a SAT backend.
	for _, o := range []string{"min-depth", "min-size"} {
		if !slices.Contains(m.Cells[o]["dp"], "dl85") || len(m.Cells[o]["sat"]) == 0 {
			t.Errorf("%s: dp %v, sat %v", o, m.Cells[o]["dp"], m.Cells[o]["sat"])
		}
	}
	text, _, code = odt(t, "backends", "--matrix")
	if code != 0 || !strings.HasPrefix(text, "objective  dp ") || !strings.Contains(text, "\nmin-depth  ") {
		t.Errorf("backends --matrix (exit %d):\n%s", code, text)
	}
	md, _, code = odt(t, "backends", "--matrix", "--format", "markdown")
	if code != 0 || !strings.HasPrefix(md, "| objective | dp | sat | milp | cp | heuristic | portfolio |\n|---|") {
		t.Errorf("backends --matrix --format markdown (exit %d):\n%s", code, md)
	}
	if _, errOut, code := odt(t, "backends", "--matrix", "--format", "csv"); code != 2 || !strings.Contains(errOut, "--format") {
		t.Errorf("backends --matrix --format csv: exit %d, %s", code, errOut)
	}
}
