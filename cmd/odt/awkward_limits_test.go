//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// classes300 is 3,000 rows of 20 random binary features and random labels
// of 300 classes (seeded): no greedy tree of depth 12 is optimal on it.
func classes300() string {
	var b strings.Builder
	rng := rand.New(rand.NewPCG(5, 6))
	for j := range 20 {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for range 3000 {
		for range 20 {
			fmt.Fprintf(&b, "%d,", rng.IntN(2))
		}
		fmt.Fprintf(&b, "c%d\n", rng.IntN(300))
	}
	return b.String()
}

// noTemp checks that a stopped or refused export leaves no file in the
// directory beside its inputs.
func noTemp(inputs ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.Contains(strings.Join(inputs, " "), e.Name()) {
				t.Errorf("the export left %s", filepath.Join(dir, e.Name()))
			}
		}
	}
}

// TestAwkwardDeepFormulations: the SAT and MILP formulations at depths
// and skeleton widths far beyond what fits end within the time limit
// and the memory cap, with a result or a refusal before building (exit
// 2, naming the cap or the depth), never a runtime crash; a first
// SIGTERM stops the build and the search.
func TestAwkwardDeepFormulations(t *testing.T) {
	if testing.Short() {
		t.Skip("long: solves and exports at the edge of their limits")
	}
	crash := []string{"goroutine ", "runtime.", "internal error", "makeslice"}
	num := numericFile(t, 5000, 300) // 1.5 million thresholds: a binary view beyond any formula
	var cases []awkwardCase
	for _, depth := range []string{"20", "25", "40", "48", "1000"} {
		cases = append(cases, awkwardCase{name: "sat-odt depth " + depth,
			args: []string{"solve", "--backend", "sat-odt", "--depth", depth, "--time-limit", "5s", "--memory-limit", "200", "$T/vote.txt"},
			code: 0, stdout: []string{"status:      optimal"}, absent: crash, limit: 5, limitMB: 200})
	}
	cases = append(cases,
		awkwardCase{name: "sat-odt depth 25 without a cap", args: []string{"solve", "--backend", "sat-odt", "--depth", "25", "--time-limit", "5s", "$T/vote.txt"},
			code: 0, stdout: []string{"status:      optimal"}, absent: crash, limit: 5},
		awkwardCase{name: "sat-odt SIGTERM in the search", args: []string{"solve", "--backend", "sat-odt", "--depth", "3", "--memory-limit", "300", "$T/vote.txt"},
			signal: syscall.SIGTERM, signalAt: []time.Duration{2 * time.Second},
			code: 0, stdout: []string{"status:      cancelled"}, absent: crash, limit: 2, limitMB: 300},
		awkwardCase{name: "sat-odt export depth 1000", args: []string{"export", "--to", "wcnf", "--backend", "sat-odt", "--depth", "1000", "--memory-limit", "200", "$T/vote.txt", "-o", "$D/f.wcnf"},
			code: 2, stderr: []string{"refused before building it"}, absent: crash, limitMB: 200, after: noTemp()},
		awkwardCase{name: "milp-flowoct depth 12", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "12", "--time-limit", "2s", "--memory-limit", "200", "$T/vote.txt"},
			code: 2, stderr: []string{"memory cap of 200.0 MiB", "refused before building it"}, absent: crash, limit: 2, limitMB: 200},
		awkwardCase{name: "milp-flowoct depth 1000", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "1000", "--time-limit", "2s", "--memory-limit", "200", "$T/vote.txt"},
			code: 2, stderr: []string{"the subtree MILPs of depth 46 below the 2 enumerated levels of a depth-48 tree", "exceeds the deepest tree the flow MILP states (12)"}, absent: crash, limit: 2, limitMB: 200},
		awkwardCase{name: "milp-flowoct one MILP depth 1000", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "1000", "--opt", "decompose=0", "--time-limit", "2s", "--memory-limit", "200", "$T/vote.txt"},
			code: 2, stderr: []string{"depth 48 exceeds the deepest tree the flow MILP states (12)"}, absent: crash, limit: 2, limitMB: 200},
		awkwardCase{name: "milp-flowoct depth 2 under a cap only its subtree MILPs fit", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "2", "--time-limit", "60s", "--threads", "1", "--memory-limit", "85", "$T/vote.txt"},
			code: 0, stdout: []string{"status:      optimal", "objective:   17"}, absent: crash, limitMB: 85},
		awkwardCase{name: "milp-flowoct one MILP of depth 2 under that cap", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "2", "--opt", "decompose=0", "--time-limit", "60s", "--memory-limit", "85", "$T/vote.txt"},
			code: 2, stderr: []string{"the milp-flowoct MILP of depth 2 would need", "refused before building it"}, absent: crash, limitMB: 85},
		awkwardCase{name: "milp-flowoct export depth 12", args: []string{"export", "--to", "lp", "--backend", "milp-flowoct", "--depth", "12", "--memory-limit", "200", "$T/vote.txt", "-o", "$D/f.lp"},
			code: 2, stderr: []string{"memory cap of 200.0 MiB"}, absent: append(crash, "context canceled"), limitMB: 200, after: noTemp()},
		awkwardCase{name: "sat-depth on 1.5M thresholds", args: []string{"solve", "--backend", "sat-depth", "--objective", "min-depth", "--opt", "drop-conflicts=true", "--time-limit", "5s", "--memory-limit", "300", num},
			code: 2, stderr: []string{"the binary view of every threshold", "refused before building"}, absent: crash, limit: 5, limitMB: 300},
		awkwardCase{name: "sat-size SIGTERM on 1.5M thresholds", args: []string{"solve", "--backend", "sat-size", "--objective", "min-size", "--opt", "drop-conflicts=true", num},
			signal: syscall.SIGTERM, signalAt: []time.Duration{2 * time.Second},
			code: 0, stdout: []string{"status:      cancelled"}, absent: crash, limit: 2},
		awkwardCase{name: "milp-flowoct depth 2 on 1.5M thresholds", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "2", "--time-limit", "20s", "--memory-limit", "400", num},
			code: 2, stderr: []string{"refused before building it"}, absent: crash, limit: 20, limitMB: 400},
		awkwardCase{name: "sat-odd skeleton 1,2 on 1.5M thresholds", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,2", "--time-limit", "5s", "--memory-limit", "400", num},
			code: 2, stderr: []string{"refused before building it"}, absent: crash, limit: 5, limitMB: 400},
		// A cap (100 TB) above the machine's memory is lowered to it, and
		// said: the sizing then refuses what the machine cannot hold, and a
		// table the cap would admit is never allocated beyond the machine
		// (dl85's depth-2 tables on 1.5 million tests: 1.4 TB).
		awkwardCase{name: "sat-odd on 1.5M thresholds, a cap above the machine", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,2", "--time-limit", "20s", "--memory-limit", "100000000", num},
			code: 2, stderr: []string{"is more than this process may use", "refused before building it"}, absent: crash, limit: 20},
		awkwardCase{name: "dl85 SIGTERM on 1.5M thresholds, a cap above the machine", args: []string{"solve", "--backend", "dl85", "--depth", "4", "--memory-limit", "100000000", num},
			signal: syscall.SIGTERM, signalAt: []time.Duration{4 * time.Second},
			// Its workers stop at their next poll; on a loaded machine that
			// can take a second or two, so the wall-time check allows 3 s.
			code: 0, stdout: []string{"status:      cancelled"}, stderr: []string{"is more than this process may use"}, absent: crash, limit: 6},
		// The rows' transpose of 1.5 million tests takes seconds: the time
		// limit stops it, and the run answers with the majority leaf.
		awkwardCase{name: "dl85 stopped before its search on 1.5M thresholds", args: []string{"solve", "--backend", "dl85", "--depth", "4", "--time-limit", "1s", num},
			code: 0, stdout: []string{"status:      time-limit", "model:       tree, depth 0, 0 internal nodes, 1 leaves"}, absent: crash, limit: 1},
		awkwardCase{name: "sat-odd skeleton 1,1000000", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,1000000", "--time-limit", "5s", "--memory-limit", "300", "$T/iris.csv"},
			code: 2, stderr: []string{"memory cap of 300.0 MiB", "refused before building it"}, absent: crash, limit: 5, limitMB: 300},
		awkwardCase{name: "sat-odd skeleton 1,10000", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,10000", "--time-limit", "5s", "--memory-limit", "300", "$T/iris.csv"},
			code: 2, stderr: []string{"refused before building it"}, absent: crash, limit: 5, limitMB: 300},
		awkwardCase{name: "sat-odd export skeleton 1,1000000", args: []string{"export", "--to", "wcnf", "--backend", "sat-odd", "--skeleton", "1,1000000", "--memory-limit", "300", "$T/iris.csv", "-o", "$D/f.wcnf"},
			code: 2, stderr: []string{"refused before building it"}, absent: crash, limitMB: 300, after: noTemp()},
	)
	runAwkward(t, cases)
}

// TestAwkwardCheckSizes: odt solve refuses, before building it, a
// formulation beyond a small memory cap — with --check (odtkit.Check and
// the backend's Sizer) and without. (The peak resident memory of a run
// this short is the test process's own, inherited while starting it.)
func TestAwkwardCheckSizes(t *testing.T) {
	many := map[string]string{"many.csv": classes300()}
	var cases []awkwardCase
	for _, check := range []bool{true, false} {
		var flag []string
		name := "solve"
		if check {
			flag, name = []string{"--check"}, "check"
		}
		args := func(a ...string) []string { return append(append([]string{"solve"}, flag...), a...) }
		cases = append(cases,
			awkwardCase{name: name + " sat-odt depth 12 on 300 classes", args: args("--backend", "sat-odt", "--depth", "12", "--memory-limit", "50", "$D/many.csv"),
				files: many, code: 2, stderr: []string{"memory cap of 50.0 MiB", "refused before building it"}},
			awkwardCase{name: name + " milp-flowoct depth 10", args: args("--backend", "milp-flowoct", "--depth", "10", "--memory-limit", "50", "$T/vote.txt"),
				code: 2, stderr: []string{"memory cap of 50.0 MiB", "refused before building it"}},
			awkwardCase{name: name + " sat-odd skeleton 1,2,300", args: args("--backend", "sat-odd", "--skeleton", "1,2,300", "--memory-limit", "50", "$T/iris.csv"),
				code: 2, stderr: []string{"memory cap of 50.0 MiB", "refused before building it"}},
		)
	}
	runAwkward(t, cases)
}

// TestAwkwardMushroomFlowOCT: milp-flowoct at depth 8 on mushroom (from
// ../shared) is refused before building, for a solve and an export in
// either format, within its memory cap.
func TestAwkwardMushroomFlowOCT(t *testing.T) {
	mushroom, err := filepath.Abs("../../../shared/data/cp4im/mushroom.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mushroom); err != nil {
		t.Skipf("mushroom not found beside the clone: %v", err)
	}
	crash := []string{"goroutine ", "runtime.", "internal error", "context canceled"}
	runAwkward(t, []awkwardCase{
		{name: "solve depth 8", args: []string{"solve", "--backend", "milp-flowoct", "--depth", "8", "--time-limit", "2s", "--memory-limit", "200", mushroom},
			code: 2, stderr: []string{"memory cap of 200.0 MiB", "refused before building it"}, absent: crash, limit: 2, limitMB: 200},
		{name: "export mps depth 8", args: []string{"export", "--to", "mps", "--backend", "milp-flowoct", "--depth", "8", "--memory-limit", "200", mushroom, "-o", "$D/f.mps"},
			code: 2, stderr: []string{"memory cap of 200.0 MiB", "refused before building it"}, absent: crash, limitMB: 200, after: noTemp()},
		{name: "export lp depth 8", args: []string{"export", "--to", "lp", "--backend", "milp-flowoct", "--depth", "8", "--memory-limit", "200", mushroom, "-o", "$D/f.lp"},
			code: 2, stderr: []string{"memory cap of 200.0 MiB", "refused before building it"}, absent: crash, limitMB: 200, after: noTemp()},
	})
}
