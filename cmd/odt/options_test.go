package main

import (
	"os"
	"strings"
	"testing"
)

// TestInvalidOptionsExit2: every invalid option and unsupported problem
// field of the contract issue's list is refused before any work with exit
// 2 and one line naming the option (or field) and what it takes.
func TestInvalidOptionsExit2(t *testing.T) {
	iris := "../../testdata/iris.csv"
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--backend", "dl85", "--opt", "order=zzz"}, []string{"order", "gain, index"}},
		{[]string{"--backend", "dl85", "--opt", "cache-mb=-5"}, []string{"cache-mb", "at least 0"}},
		{[]string{"--backend", "contree", "--opt", "max-gap=-1"}, []string{"max-gap", "at least 0"}},
		{[]string{"--backend", "cadl85", "--rule", "bogus"}, []string{"rule", "purity, gain, discrepancy, topk, topk*"}},
		{[]string{"--backend", "cadl85", "--relax", "bogus"}, []string{"relax", "monotonic, exponential, luby"}},
		{[]string{"--backend", "cadl85", "--opt", "step=-1"}, []string{"step", "above 0"}},
		{[]string{"--backend", "sat-depth", "--opt", "batch=0"}, []string{"batch", "at least 1"}},
		{[]string{"--backend", "sat-depth", "--sat-solver", "foo"}, []string{"sat-solver", "gini"}},
		{[]string{"--backend", "milp-odd", "--skeleton", "1,2", "--opt", "gap=-1"}, []string{"gap", "at least 0"}},
		{[]string{"--backend", "milp-odd", "--skeleton", "1,2", "--opt", "restarts=-1"}, []string{"restarts", "at least 0"}},
		{[]string{"--backend", "milp-odd", "--skeleton", "1,2", "--opt", "epsilon=0"}, []string{"epsilon", "above 0"}},
		{[]string{"--backend", "cart", "--opt", "min-leaf=-2"}, []string{"min-leaf", "at least 1"}},
		// cart and the DP backends now take --max-nodes and --leaf-cost;
		// a backend that does not is refused by name.
		{[]string{"--backend", "milp-odt", "--leaf-cost", "0.1"}, []string{"milp-odt", "--leaf-cost"}},
		{[]string{"--backend", "contree", "--min-support", "3"}, []string{"contree", "--min-support"}},
		{[]string{"--backend", "blossom", "--min-support", "3"}, []string{"blossom", "--min-support"}},
		{[]string{"--backend", "dl85", "--alpha", "0.5"}, []string{"alpha", "diagram"}},
		{[]string{"--backend", "dl85", "--opt", "nope=1"}, []string{"nope", "it knows: cache-mb"}},
	}
	for _, c := range cases {
		args := append([]string{"solve", "-q"}, c.args...)
		stdout, stderr, code := odt(t, append(args, iris)...)
		msg := strings.TrimSpace(stderr)
		if code != 2 || stdout != "" || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", c.args, code, stdout, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: %q does not mention %q", c.args, msg, w)
			}
		}
	}
	// odt export validates the options too, and leaves an existing file alone.
	out := t.TempDir() + "/keep.mps"
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := odt(t, "export", "--to", "mps", "--backend", "milp-odd", "--skeleton", "1,2", "--opt", "foo=1", iris, "-o", out)
	if b, _ := os.ReadFile(out); code != 2 || !strings.Contains(stderr, "foo") || string(b) != "keep" {
		t.Errorf("export with an unknown option: exit %d, %q, file %q", code, stderr, b)
	}
}
