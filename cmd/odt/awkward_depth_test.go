package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAwkwardDepth: depths larger than can matter, depth 0 and no depth
// limit for every objective, limits held by deep sparse searches, the
// memory accounting of a long blossom search, and results without a
// model.
func TestAwkwardDepth(t *testing.T) {
	unsat := map[string]string{"out": "UNSAT\n"}
	runAwkward(t, []awkwardCase{
		// A leaf cost at depth 30 is solved, not answered by the single
		// leaf (the optimum itself is cross-checked against smaller depths
		// in TestDeepLeafCostOptimum).
		{name: "leaf cost at depth 30", args: []string{"solve", "--backend", "dl85", "--depth", "30", "--leaf-cost", "0.01",
			"--time-limit", "60s", "--memory-limit", "300", "$T/iris.csv"},
			code: 0, stdout: []string{"status:      optimal (optimal: true)", "max depth 30"}, absent: []string{"× 1 leaves"},
			limit: 60, limitMB: 300},
		// Deeper still: the run holds its time limit and memory cap.
		{name: "leaf cost at depth 40 in limits", args: []string{"solve", "--backend", "dl85", "--depth", "40", "--leaf-cost", "0.001",
			"--time-limit", "3s", "--memory-limit", "300", "$T/iris.csv"},
			code: 0, stdout: []string{"status:", "max depth 40"}, absent: []string{"× 1 leaves"}, limit: 3, limitMB: 300},
		{name: "leaf cost at depth 31 on 500 rows in limits", args: []string{"solve", "--backend", "contree", "--depth", "31",
			"--leaf-cost", "0.0001", "--time-limit", "3s", "--memory-limit", "300", "$T/500_Person_Gender_Height_Weight_Index.csv"},
			code: 0, stdout: []string{"status:"}, limit: 3, limitMB: 300},
		// A depth above the data's distinct tests is searched at that
		// number, and the output says so.
		{name: "depth above the tests", args: []string{"solve", "--backend", "blossom", "--depth", "200", "--time-limit", "30s", "$T/vote.txt"},
			code: 0, stdout: []string{"max depth 200 (searched to depth 48: no path needs a test twice and the data has 48 distinct tests)",
				"status:      optimal"}, limit: 30},
		// A MILP too deep to index is refused from its estimate, at once
		// and within the time limit (the estimate counts by level, not
		// over the tree's 2^40 nodes).
		{name: "milp-binoct at depth 40", args: []string{"solve", "--backend", "milp-binoct", "--depth", "40", "--time-limit", "5s", "$T/vote.txt"},
			code: 2, stderr: []string{"milp-binoct MILP of depth 40 would have", "more than a MILP solver can index"}, limit: 5},
		{name: "milp-oct at depth 40", args: []string{"solve", "--backend", "milp-oct", "--depth", "40", "--time-limit", "5s", "$T/vote.txt"},
			code: 2, stderr: []string{"milp-oct MILP of depth 40 would have", "more than a MILP solver can index"}, limit: 5},
		{name: "depth above the min support", args: []string{"solve", "--backend", "dl85", "--depth", "12", "--min-support", "60",
			"--format", "json", "$T/iris.csv"},
			code: 0, stdout: []string{`"depth_reduced": {`, `"requested": 12`, `"used": 1`, `"max_depth": 12`}},
		// The blossom search's memory accounting releases what it frees:
		// a long search under a small cap runs to its time limit instead
		// of stopping for memory it does not hold.
		{name: "blossom long search under a small cap", args: []string{"solve", "--backend", "blossom", "--depth", "6",
			"--memory-limit", "4", "--time-limit", "3s", "$T/500_Person_Gender_Height_Weight_Index.csv"},
			code: 0, stdout: []string{"status:      time-limit"}, absent: []string{"memory-limit"}, limit: 3},
		// --depth is the maximum depth for every objective: 0 is a single
		// leaf, and the text output shows the limit.
		{name: "sat-depth at depth 0", args: []string{"solve", "--backend", "sat-depth", "--depth", "0", "$T/iris.csv"},
			code: 0, stdout: []string{"min-depth, max depth 0 (a single leaf)", "status:      infeasible"}},
		{name: "sat-size at depth 0", args: []string{"solve", "--backend", "sat-size", "--depth", "0", "$T/monk1.csv"},
			code: 0, stdout: []string{"min-size, max depth 0 (a single leaf)", "status:      infeasible"}},
		{name: "sat-depth with no limit", args: []string{"solve", "--backend", "sat-depth", "$T/iris.csv"},
			code: 0, stdout: []string{"min-depth, no depth limit", "status:      optimal"}},
		{name: "sat-depth capped", args: []string{"solve", "--objective", "min-depth", "--depth", "2", "$T/iris.csv"},
			code: 0, stdout: []string{"min-depth, max depth 2", "status:      infeasible"}},
		{name: "error at depth 0", args: []string{"solve", "--depth", "0", "$T/iris.csv"},
			code: 0, stdout: []string{"max depth 0 (a single leaf)", "model:       tree, depth 0"}},
		{name: "depth beside a skeleton", args: []string{"solve", "--backend", "milp-odd", "--skeleton", "1,2", "--depth", "2", "--check", "$T/iris.csv"},
			code: 2, stderr: []string{"skeleton gives the diagram's depth"}},
		{name: "export at depth 0", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "0", "$T/iris.csv", "-o", "$D/f.cnf"},
			code: 2, stderr: []string{"at least 1"}},
		// No numbers without a model; an unsatisfiable formula bounds both
		// objectives alike: depth k refuted, depth ≥ k+1 and ≥ 2(k+1)+1 nodes.
		{name: "no model, no numbers", args: []string{"solve", "--backend", "sat-depth", "--depth", "1", "--format", "json", "$T/iris.csv"},
			code: 0, stdout: []string{`"status": "infeasible"`, `"model": null`}, absent: []string{`"errors"`, `"objective": 0`}},
		// The solver's refutation is its claim: trusted, a proof.
		{name: "unsat decode sat-depth", args: []string{"decode", "--backend", "sat-depth", "--depth", "1", "--format", "json", "$T/iris.csv", "$D/out"},
			files: unsat, code: 0, stdout: []string{`"claimed_bound": 2,`, `"status": "no-solution"`}, absent: []string{`"errors"`, `"infeasible"`}},
		{name: "unsat decode sat-depth trusted", args: []string{"decode", "--backend", "sat-depth", "--depth", "1", "--format", "json", "--opt", "trust-solver=true", "$T/iris.csv", "$D/out"},
			files: unsat, code: 0, stdout: []string{`"lower_bound": 2,`, `"status": "infeasible"`, `"trusted_solver": true`}, absent: []string{`"errors"`}},
		{name: "unsat decode sat-size", args: []string{"decode", "--backend", "sat-size", "--depth", "1", "--format", "json", "--opt", "trust-solver=true", "$T/iris.csv", "$D/out"},
			files: unsat, code: 0, stdout: []string{`"lower_bound": 5,`, `"status": "infeasible"`}, absent: []string{`"errors"`}},
	})
}

// The leaf-cost optimum at depth 30 is the one every smaller depth from
// the optimum's own depth gives (iris, λ = 0.01: no tree deeper than
// three levels pays), for every DP backend and the race.
func TestDeepLeafCostOptimum(t *testing.T) {
	objective := func(backend string, depth int) (float64, string) {
		r := odtJSON(t, "solve", "-q", "--backend", backend, "--depth", strconv.Itoa(depth), "--leaf-cost", "0.01",
			"--time-limit", "60s", "--format", "json", "../../testdata/iris.csv")
		return r.Objective, r.Status
	}
	var want []float64
	for depth := 2; depth <= 4; depth++ {
		o, st := objective("dl85", depth)
		if st != "optimal" {
			t.Fatalf("dl85 depth %d: %s", depth, st)
		}
		want = append(want, o)
	}
	if want[1] > want[0] || want[2] != want[1] {
		t.Fatalf("optima at depths 2-4: %v; want non-increasing and settled at depth 3", want)
	}
	for _, backend := range []string{"dl85", "cadl85", "blossom", "contree", "race"} {
		o, st := objective(backend, 30)
		if st != "optimal" || math.Abs(o-want[2]) > 1e-9 {
			t.Errorf("%s depth 30: %s %v; depth 3 and 4 give %v", backend, st, o, want[2])
		}
	}
}

// A result without a model has no errors and no objective in its JSON.
func TestNoModelNoNumbers(t *testing.T) {
	stdout, _, code := odt(t, "solve", "-q", "--backend", "sat-size", "--depth", "1", "--format", "json", "../../testdata/iris.csv")
	var r map[string]any
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, stdout)
	}
	if r["model"] != nil || r["status"] != "infeasible" {
		t.Fatalf("status %v, model %v", r["status"], r["model"])
	}
	for _, k := range []string{"errors", "objective"} {
		if v, ok := r[k]; ok {
			t.Errorf("%s: %v without a model", k, v)
		}
	}
}

// The decode command in an exported formula's header names the depth
// the export was asked for, also when one class makes the formula that of
// a single leaf; decoding as told then works.
func TestExportHeaderDepth(t *testing.T) {
	dir := t.TempDir()
	data, cnf, out := filepath.Join(dir, "one.csv"), filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.out")
	if err := os.WriteFile(data, []byte("a,b,y\n0,1,k\n1,0,k\n1,1,k\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := odt(t, "export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "2", data, "-o", cnf); code != 0 {
		t.Fatalf("export exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(cnf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "odt decode --backend sat-depth --depth 2 ") {
		t.Fatalf("header does not repeat --depth 2:\n%s", b)
	}
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat not installed (apt-get install minisat)")
	}
	if err := exec.Command("minisat", "-verb=0", cnf, out).Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 10 {
			t.Fatalf("minisat: %v", err)
		}
	}
	r := odtJSON(t, "decode", "--backend", "sat-depth", "--depth", "2", "--format", "json", data, out)
	if r.Model == nil || r.Errors != 0 || jsonDepth(r.Model) != 0 {
		t.Fatalf("decode: status %s, model %v", r.Status, r.Model != nil)
	}
}
