package main

import "testing"

// TestAwkwardHelpAndCompletion: the completion command and the flags the
// help no longer offers are refused cleanly; the old --encoding name
// still works.
func TestAwkwardHelpAndCompletion(t *testing.T) {
	runAwkward(t, []awkwardCase{
		{name: "completion without a shell", args: []string{"completion"}, code: 2, stderr: []string{"usage: odt completion"}},
		{name: "completion of an unknown shell", args: []string{"completion", "tcsh"}, code: 2, stderr: []string{"tcsh", "bash, zsh or fish"}},
		{name: "completion with two shells", args: []string{"completion", "bash", "zsh"}, code: 2, stderr: []string{"too many arguments"}},
		{name: "export --min-support", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--min-support", "2", "$T/monk1.csv", "-o", "$D/x.cnf"},
			code: 2, stderr: []string{"min-support"}},
		{name: "decode --leaf-cost", args: []string{"decode", "--backend", "sat-depth", "--leaf-cost", "0.1", "$T/monk1.csv", "$D/x.out"},
			code: 2, stderr: []string{"leaf-cost"}},
		{name: "export by the old --encoding name", args: []string{"export", "--to", "dimacs", "--encoding", "depth", "--depth", "2", "$T/monk1.csv", "-o", "$D/x.cnf"},
			code: 0},
		{name: "bench with a bad --data-format", args: []string{"bench", "-q", "--backends", "cart", "--data-format", "xml", "--time-limit", "5s", "-o", "$D/out", "$T/iris.csv"},
			code: 2, stderr: []string{"xml"}},
		{name: "bench merge -q of nothing", args: []string{"bench", "merge", "-q", "$D/none"}, code: 2, stderr: []string{"none"}},
	})
}
