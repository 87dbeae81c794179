package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestAwkwardPerfect: the consistent-tree objectives on the DP backends
// and in bench, given awkward requests.
func TestAwkwardPerfect(t *testing.T) {
	conflict := "x,y\n0,a\n1,b\n1,a\n2,b\n"
	runAwkward(t, []awkwardCase{
		{name: "dl85 min-depth conflicting rows", args: []string{"solve", "--backend", "dl85", "--objective", "min-depth", "$D/c.csv"},
			files: map[string]string{"c.csv": conflict}, code: 2,
			stderr: []string{"c.csv:3: conflicting rows", "line 3 (label b), line 4 (label a)", "drop-conflicts"}},
		{name: "dl85 min-size drop-conflicts", args: []string{"solve", "--backend", "dl85", "--objective", "min-size", "--opt", "drop-conflicts=true", "$D/c.csv"},
			files: map[string]string{"c.csv": conflict}, code: 0, stdout: []string{"optimal", "objective:   3"}},
		{name: "cadl85 min-depth depth cap too low", args: []string{"solve", "--backend", "cadl85", "--objective", "min-depth", "--depth", "1", "$T/iris.csv"},
			code: 0, stdout: []string{"infeasible"}},
		{name: "dl85 min-size in limits", args: []string{"solve", "--backend", "dl85", "--objective", "min-size", "--time-limit", "5s", "--memory-limit", "200", "$T/iris.csv"},
			code: 0, stdout: []string{"optimal", "objective:   15"}, limit: 5, limitMB: 200},
		// The size search outgrows a small memory cap: it stops at the cap
		// (or the time limit) with its best tree and the depth bound.
		{name: "dl85 min-size memory cap", args: []string{"solve", "--backend", "dl85", "--objective", "min-size", "--memory-limit", "300",
			"--time-limit", "30s", "$T/500_Person_Gender_Height_Weight_Index.csv"},
			code: 0, stdout: []string{"lower bound: 15", "depth 7"}, limit: 30, limitMB: 300},
		{name: "bench unknown objective", args: []string{"bench", "--backends", "dl85", "--objective", "min-width", "-o", "$D/b", "$T/iris.csv"},
			code: 2, stderr: []string{"min-width"}},
		{name: "bench objective no backend solves", args: []string{"bench", "--backends", "dl85,cart", "--objective", "min-depth", "-o", "$D/b", "$T/iris.csv"},
			code: 2, stderr: []string{"cart", "min-depth"}},
	})
}

// TestBenchObjectives: bench runs each backend on each listed objective it
// solves, tags every run with the objective its solve optimised, and
// finds the DP and SAT optima of each objective in agreement (a min-depth
// optimum is not compared with a min-size one).
func TestBenchObjectives(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := odt(t, "bench", "-q", "--backends", "dl85,sat-depth,sat-size", "--objective", "min-depth,min-size",
		"--time-limit", "60s", "-o", dir, "../../testdata/iris.csv")
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s", code, errOut)
	}
	f, err := os.Open(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Backend   string
			Goal      string `json:"objective_name"`
			Optimal   bool
			Objective *float64
			Problem   struct{ Objective string }
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Goal == "" || !r.Optimal || r.Objective == nil {
			t.Errorf("run %+v: want an optimal run tagged with its objective", r)
			continue
		}
		got[r.Backend+" "+r.Goal] = *r.Objective
	}
	if len(got) != 4 || got["dl85 min-depth"] != got["sat-depth min-depth"] || got["dl85 min-size"] != got["sat-size min-size"] ||
		got["dl85 min-depth"] == got["dl85 min-size"] {
		t.Errorf("runs %v: want dl85 and sat-depth, dl85 and sat-size, each pair equal", got)
	}
}
