package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAwkwardSatODT: requests and solver answers sat-odt must refuse
// cleanly (exit 2, the file and line named), and a time limit held.
func TestAwkwardSatODT(t *testing.T) {
	weighted := "x,y,w\n0,a,1.5\n1,b,1\n1,a,2\n"
	// Noise: 4000 distinct rows of 24 binary features, random labels;
	// the counters of its depth-2 formula are cut at some 1900 errors.
	var noise strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for j := range 24 {
		fmt.Fprintf(&noise, "x%d,", j)
	}
	noise.WriteString("y\n")
	for r := range 4000 {
		for j := range 24 {
			fmt.Fprintf(&noise, "%d,", (r>>(j%12))&1^rng.IntN(2)*(j/12))
		}
		fmt.Fprintf(&noise, "%d\n", rng.IntN(2))
	}
	runAwkward(t, []awkwardCase{
		{name: "opb for a DIMACS backend", args: []string{"export", "--to", "opb", "--backend", "sat-depth", "$T/iris.csv", "-o", "$D/f.opb"}, code: 2, stderr: []string{"--to opb", "dimacs"}},
		{name: "dimacs for sat-odt", args: []string{"export", "--to", "dimacs", "--backend", "sat-odt", "$T/iris.csv", "-o", "$D/f.cnf"}, code: 2, stderr: []string{"wcnf or opb"}},
		{name: "export depth 0", args: []string{"export", "--to", "wcnf", "--backend", "sat-odt", "--depth", "0", "$T/iris.csv", "-o", "$D/f.wcnf"}, code: 2, stderr: []string{"depth"}},
		{name: "bad wcnf form", args: []string{"export", "--to", "wcnf", "--opt", "wcnf-form=2019", "--backend", "sat-odt", "$T/iris.csv", "-o", "$D/f.wcnf"}, code: 2, stderr: []string{"wcnf-form"}},
		{name: "garbage answer", args: []string{"decode", "--backend", "sat-odt", "--depth", "1", "$T/iris.csv", "$D/ans.txt"},
			files: map[string]string{"ans.txt": "s OPTIMUM FOUND\nv 1 2 zz 0\n"}, code: 2, stderr: []string{"ans.txt", "line 2", "zz"}},
		{name: "answer without status", args: []string{"decode", "--backend", "sat-odt", "--depth", "1", "$T/iris.csv", "$D/ans.txt"},
			files: map[string]string{"ans.txt": "v 1 2 0\n"}, code: 2, stderr: []string{"ans.txt", "no status line"}},
		{name: "answer breaking a hard clause", args: []string{"decode", "--backend", "sat-odt", "--depth", "1", "$T/iris.csv", "$D/ans.txt"},
			files: map[string]string{"ans.txt": "s OPTIMUM FOUND\nv -1 " + allFalse(2, 418) + " 0\n"}, code: 2, stderr: []string{"ans.txt", "falsifies hard clause"}},
		{name: "answer cut short", args: []string{"decode", "--backend", "sat-odt", "--depth", "1", "$T/iris.csv", "$D/ans.txt"},
			files: map[string]string{"ans.txt": "s OPTIMUM FOUND\nv -1 0\n"}, code: 2, stderr: []string{"ans.txt", "no value to variable 2 of 418"}},
		{name: "fractional weights", args: []string{"solve", "--backend", "sat-odt", "--depth", "1", "--weight", "w", "--label", "y", "$D/w.csv"},
			files: map[string]string{"w.csv": weighted}, code: 2, stderr: []string{"whole-number", "row 1"}},
		{name: "unknown maxsat solver", args: []string{"solve", "--backend", "sat-odt", "--opt", "maxsat-solver=clasp", "$T/iris.csv"}, code: 2, stderr: []string{"external:"}},
		{name: "min support refused", args: []string{"solve", "--backend", "sat-odt", "--min-support", "3", "$T/iris.csv"}, code: 2, stderr: []string{"min-support"}},
		{name: "formula beyond the memory cap", args: []string{"solve", "--backend", "sat-odt", "--depth", "2", "--memory-limit", "100", "$D/noise.csv"},
			files: map[string]string{"noise.csv": noise.String()}, code: 2, limitMB: 100, stderr: []string{"sat-odt formula of depth 2", "refused before building it"}},
		{name: "vote depth 3 in 3 s", args: []string{"solve", "--backend", "sat-odt", "--depth", "3", "--time-limit", "3s", "--memory-limit", "300", "$T/vote.txt"},
			code: 0, stdout: []string{"time-limit"}, limit: 3, limitMB: 300},
	})
}

// allFalse lists the negative literals of variables from..to.
func allFalse(from, to int) string {
	var b strings.Builder
	for v := from; v <= to; v++ {
		fmt.Fprintf(&b, " -%d", v)
	}
	return b.String()
}
