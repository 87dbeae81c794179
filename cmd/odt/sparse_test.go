package main

import (
	"math"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// --leaf-cost and --max-nodes: bad values and backends that do not
// declare them exit 2 naming the flag or backend; the DP backends agree
// on the sparse objective, which the JSON reports beside the errors and
// the text shows with its leaves.
func TestLeafCostAndMaxNodes(t *testing.T) {
	const data = "../../testdata/monk1.csv"
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"solve", "--backend", "dl85", "--leaf-cost", "-1", data}, "leaf-cost: out of range: want a number from 0 to 1e+300"},
		{[]string{"solve", "--backend", "dl85", "--leaf-cost", "NaN", data}, "leaf-cost: not a number: want a number from 0 to 1e+300"},
		{[]string{"solve", "--backend", "dl85", "--leaf-cost", "0.1,0.2", "--max-nodes", "-3", data}, "--max-nodes -3"},
		{[]string{"solve", "--backend", "milp-odt", "--depth", "2", "--leaf-cost", "0.01", data}, "backend milp-odt does not support a leaf cost"},
		{[]string{"solve", "--backend", "sat-depth", "--leaf-cost", "0.01", data}, "error objective only"},
		{[]string{"bench", "--backends", "dl85", "--leaf-cost", "0.1,0.2", "--split", "50/25/25", data}, "need --tune"},
	} {
		_, stderr, code := odt(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("odt %s: exit %d, stderr %q; want 2 mentioning %q", strings.Join(c.args, " "), code, stderr, c.msg)
		}
	}
	d, err := model.ReadFile(data, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := math.NaN()
	for _, b := range []string{"dl85", "cadl85", "blossom", "contree"} {
		r := odtJSON(t, "solve", "-q", "--backend", b, "--depth", "3", "--leaf-cost", "0.02", "--max-nodes", "4", "--format", "json", data)
		if !r.Optimal || r.Model == nil {
			t.Fatalf("%s: not optimal (%+v)", b, r)
		}
		leaves := jsonLeaves(r.Model)
		if got := float64(r.Errors)/float64(d.Rows()) + 0.02*float64(leaves); math.Abs(got-r.Objective) > 1e-9 {
			t.Errorf("%s: objective %v, errors %d and %d leaves give %v", b, r.Objective, r.Errors, leaves, got)
		}
		if leaves > 5 {
			t.Errorf("%s: %d leaves under --max-nodes 4", b, leaves)
		}
		if math.IsNaN(want) {
			want = r.Objective
		} else if math.Abs(want-r.Objective) > 1e-9 {
			t.Errorf("%s: objective %v, dl85's %v", b, r.Objective, want)
		}
	}
	out, _, code := odt(t, "solve", "-q", "--backend", "contree", "--depth", "2", "--leaf-cost", "0.05", data)
	if code != 0 || !strings.Contains(out, "leaf cost 0.05") || !strings.Contains(out, "leaves)") || !strings.Contains(out, "errors:") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
	out, _, _ = odt(t, "backends")
	if !strings.Contains(out, "--leaf-cost") {
		t.Errorf("odt backends does not list the leaf cost:\n%s", out)
	}
}

// jsonLeaves counts the leaves of a model's JSON (its nodes with a class).
func jsonLeaves(m *jsonModel) int {
	n := 0
	for _, nd := range m.Nodes {
		if nd.Class != nil {
			n++
		}
	}
	return n
}
