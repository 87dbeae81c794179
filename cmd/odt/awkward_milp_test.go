package main

import "testing"

// TestAwkwardMILPSolvers: the MILP backends' solver choice, LP export
// and perfect-tree objectives on awkward requests.
func TestAwkwardMILPSolvers(t *testing.T) {
	conflict := "a,b,y\n0,1,x\n0,1,z\n1,0,x\n"
	runAwkward(t, []awkwardCase{
		{name: "lp for a SAT backend", args: []string{"export", "--to", "lp", "--backend", "sat-depth", "$T/iris.csv", "-o", "$D/f.lp"},
			code: 2, stderr: []string{"writes dimacs"}},
		{name: "unknown MILP solver", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "1", "--opt", "milp-solver=cplex", "$T/iris.csv"},
			code: 2, stderr: []string{"unknown MILP solver", "cplex"}},
		{name: "external solver without {out}", args: []string{"solve", "--backend", "milp-odt", "--depth", "1", "--opt", "milp-solver=external:highs {in}", "$T/iris.csv"},
			code: 2, stderr: []string{"{out}"}},
		{name: "external solver that is not there", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "1", "--opt", "milp-solver=external:/nonexistent/solver {in} {out}", "$T/iris.csv"},
			code: 1, stderr: []string{"/nonexistent/solver"}},
		{name: "conflicting rows, min-depth", args: []string{"solve", "--backend", "milp-flowoct", "--objective", "min-depth", "$D/c.csv"},
			files: map[string]string{"c.csv": conflict}, code: 2, stderr: []string{"conflicting rows", "drop-conflicts"}},
		{name: "min-size export without a depth", args: []string{"export", "--to", "lp", "--backend", "milp-flowoct", "--objective", "min-size", "--depth", "0", "$T/iris.csv", "-o", "$D/f.lp"},
			code: 2, stderr: []string{"--depth K"}},
		{name: "flowoct solve in limits", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "2", "--time-limit", "5s", "--threads", "1", "$T/iris.csv"},
			code: 0, limit: 5},
	})
}
