package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The help shows each flag's value placeholder in capitals and ASCII,
// hides the old --encoding name (still accepted), and offers the
// export/decode flags that an exportable formulation honours (cp-odt's
// minimum support and leaf cost).
func TestHelpPlaceholdersAndOfferedFlags(t *testing.T) {
	solve, _, _ := odt(t, "solve", "--help")
	for _, want := range []string{"--objective OBJECTIVE", "--leaf-cost LAMBDA"} {
		if !strings.Contains(solve, want) {
			t.Errorf("odt solve --help lacks %q", want)
		}
	}
	for _, bad := range []string{"--objective ERROR", "Λ", "λ"} {
		if strings.Contains(solve, bad) {
			t.Errorf("odt solve --help shows %q", bad)
		}
	}
	for _, cmd := range []string{"export", "decode"} {
		help, _, code := odt(t, cmd, "--help")
		if code != 0 {
			t.Fatalf("odt %s --help: exit %d", cmd, code)
		}
		if strings.Contains(help, "--encoding") {
			t.Errorf("odt %s --help offers --encoding", cmd)
		}
		for _, want := range []string{"--min-support", "--leaf-cost"} {
			if !strings.Contains(help, want) {
				t.Errorf("odt %s --help does not offer %s", cmd, want)
			}
		}
	}
	bench, _, _ := odt(t, "bench", "--help")
	for _, want := range []string{"--label NAME", "--weight NAME", "--data-format FORMAT"} {
		if !strings.Contains(bench, want) {
			t.Errorf("odt bench --help lacks %q", want)
		}
	}
}

// odt bench takes the data-reading flags and passes them to every run:
// a CSV whose label is its first column is read as such (with the label
// last by default, the file's "label" column would be a feature and the
// run would be on the wrong problem). bench merge takes -q.
func TestBenchDataFlagsAndQuietMerge(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "first.csv")
	// The label is y (first column); the last column, c, has three values.
	csv := "y,a,b,c\nn,0,0,x\ny,0,1,x\ny,1,0,z\nn,1,1,w\nn,0,0,w\n"
	if err := os.WriteFile(data, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	table, errOut, code := odt(t, "bench", "-q", "--backends", "dl85", "--depth", "2", "--time-limit", "10s",
		"--label", "y", "-o", out, data)
	if code != 0 {
		t.Fatalf("bench --label: exit %d\n%s\n%s", code, table, errOut)
	}
	runs, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// y = a XOR b except one row: depth 2 makes 0 errors on the label y;
	// reading c as the label would not be a two-class problem like this.
	if !strings.Contains(string(runs), `"status":"optimal"`) || !strings.Contains(string(runs), `"errors":0`) {
		t.Errorf("bench --label y: want an optimal run with 0 errors, got\n%s", runs)
	}
	_, mergeErr, code := odt(t, "bench", "merge", "-q", "-o", filepath.Join(dir, "merged"), out)
	if code != 0 {
		t.Fatalf("bench merge -q: exit %d: %s", code, mergeErr)
	}
	if strings.Contains(mergeErr, "wrote") {
		t.Errorf("bench merge -q still reports progress: %q", mergeErr)
	}
}
