package main

import "testing"

// TestAwkwardMessages: data problems found after reading name the file
// and line, a solve without a model says so, and a leaf cost that makes
// one leaf optimal is proven, not left to a MILP it overflows.
func TestAwkwardMessages(t *testing.T) {
	// Line 3 holds the fractional weight (a blank line before it); lines
	// 2 and 4 the conflicting rows.
	weights := "a,b,w,y\n0,1,1,x\n\n1,0,1.5,y\n1,1,1,x\n"
	conflict := "a,b,y\n0,1,x\n1,1,x\n0,1,z\n"
	cases := []awkwardCase{
		{name: "fractional weight, whole-weight backend", args: []string{"solve", "--weight", "w", "--backend", "sat-odt", "--depth", "1", "$D/w.csv"},
			files: map[string]string{"w.csv": weights}, code: 2, stderr: []string{"w.csv:4: ", "row 2 has weight 1.5"}},
		{name: "fractional weight, text data", args: []string{"solve", "--class-weight", "balanced", "--backend", "blossom", "--depth", "1", "$D/c.txt"},
			files: map[string]string{"c.txt": "x 0 1\n\ny 1 0\nx 1 1\n"}, code: 2, stderr: []string{"c.txt:1: ", "whole-number row weights"}},
		{name: "conflicting rows, min-depth", args: []string{"solve", "--backend", "dl85", "--objective", "min-depth", "$D/c.csv"},
			files: map[string]string{"c.csv": conflict}, code: 2, stderr: []string{"c.csv:2: conflicting rows", "line 2 (label x), line 4 (label z)"}},
		{name: "no model found", args: []string{"solve", "--backend", "sat-depth", "--objective", "min-depth", "--depth", "1", "$T/iris.csv"},
			code: 0, stdout: []string{"status:      infeasible", "model:       none found"}, stderr: []string{"status infeasible, no model found"}, absent: []string{"objective 0"}},
		{name: "leaf cost 1e300, dl85", args: []string{"solve", "--backend", "dl85", "--leaf-cost", "1e300", "--depth", "2", "$T/iris.csv"},
			code: 0, stdout: []string{"status:      optimal", "objective:   1e+300", "lower bound: 1e+300"}},
		{name: "leaf cost 1e300, milp-odt", args: []string{"solve", "--backend", "milp-odt", "--leaf-cost", "1e300", "--depth", "2", "$T/iris.csv"},
			code: 2, stderr: []string{"milp-odt does not support a leaf cost"}},
	}
	if e2eTags == "highs" {
		cases = append(cases,
			awkwardCase{name: "conflicting rows, milp-flowoct min-depth", args: []string{"solve", "--backend", "milp-flowoct", "--objective", "min-depth", "$D/c.csv"},
				files: map[string]string{"c.csv": conflict}, code: 2, stderr: []string{"c.csv:2: conflicting rows", "line 2 (label x), line 4 (label z)"}},
			awkwardCase{name: "leaf cost 1e300, milp-flowoct", args: []string{"solve", "--backend", "milp-flowoct", "--leaf-cost", "1e300", "--depth", "2", "$T/iris.csv"},
				code: 0, stdout: []string{"status:      optimal", "objective:   1e+300", "lower bound: 1e+300"}},
			awkwardCase{name: "leaf cost 1e300, milp-flowoct at depth 0", args: []string{"solve", "--backend", "milp-flowoct", "--leaf-cost", "1e300", "--depth", "0", "$T/vote.txt"},
				code: 0, stdout: []string{"status:      optimal", "lower bound: 1e+300"}},
		)
	}
	runAwkward(t, cases)
}
