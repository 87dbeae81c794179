package main

import (
	"syscall"
	"testing"
	"time"
)

// TestAwkwardBenders: milp-flowoct's Benders formulation refuses what it
// does not state and stops in its limits with its best tree.
func TestAwkwardBenders(t *testing.T) {
	runAwkward(t, []awkwardCase{
		{name: "benders for min-depth", args: []string{"solve", "--backend", "milp-flowoct", "--objective", "min-depth", "--opt", "formulation=benders", "$T/iris.csv"},
			code: 2, stderr: []string{"formulation=benders", "error objective"}},
		{name: "unknown formulation", args: []string{"solve", "--backend", "milp-flowoct", "--opt", "formulation=oct", "$T/iris.csv"},
			code: 2, stderr: []string{"formulation", "benders"}},
		{name: "benders export", args: []string{"export", "--to", "lp", "--backend", "milp-flowoct", "--depth", "2", "--opt", "formulation=benders", "$T/iris.csv", "-o", "$D/f.lp"},
			code: 2, stderr: []string{"formulation", "steers the solve"}, after: absentFile("f.lp")},
		{name: "benders in its time limit", args: []string{"solve", "--backend", "milp-flowoct", "--opt", "formulation=benders", "--depth", "2", "--threads", "1",
			"--time-limit", "3s", "--format", "json", "-o", "$D/out.json", "$T/vote.txt"},
			code: 0, limit: 3, after: wroteFile("out.json", `"formulation": "benders"`)},
		{name: "benders SIGTERM keeps the best tree", args: []string{"solve", "-q", "--backend", "milp-flowoct", "--opt", "formulation=benders", "--depth", "2", "--threads", "1",
			"--format", "json", "-o", "$D/out.json", "$T/vote.txt"},
			signal: syscall.SIGTERM, signalAt: []time.Duration{1500 * time.Millisecond},
			code: 0, stderr: []string{"interrupted"}, limit: 3, after: wroteFile("out.json", `"status": "cancelled"`)},
	})
}
