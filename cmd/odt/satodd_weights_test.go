package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// weightedCSV is n rows of three 0/1 features, a label and a whole
// weight in 1..3.
func weightedCSV(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("x0,x1,x2,y,w\n")
	for range n {
		x := [3]int{rng.IntN(2), rng.IntN(2), rng.IntN(2)}
		y := x[0] ^ x[1]
		if rng.IntN(4) == 0 {
			y = rng.IntN(2)
		}
		fmt.Fprintf(&b, "%d,%d,%d,c%d,%d\n", x[0], x[1], x[2], y, 1+rng.IntN(3))
	}
	return b.String()
}

// TestSatODDWeightsCLI: on a weighted CSV, odt solve with sat-odd in
// process, sat-odd on clasp and minisat+ (maxsat-solver), and the
// exported formula solved by clasp and read by odt decode all reach the
// same proven optimum, whose objective counts the rows' weights (the
// weight column read as --weight).
func TestSatODDWeightsCLI(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "w.csv")
	if err := os.WriteFile(data, []byte(weightedCSV(rand.New(rand.NewPCG(51, 52)), 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--backend", "sat-odd", "--skeleton", "1,2", "--alpha", "0.1", "--label", "y", "--weight", "w"}
	own := odtJSON(t, append(append([]string{"solve", "-q", "--format", "json"}, flags...), data)...)
	if !own.Optimal {
		t.Fatalf("in-process sat-odd not optimal: %+v", own)
	}
	for _, r := range []struct{ bin, cmd, format string }{{"clasp", "clasp {in}", "wcnf"}, {"minisat+", "minisat+ {in}", "opb"}} {
		if _, err := exec.LookPath(r.bin); err != nil {
			t.Logf("%s not installed (apt-get install %s; scripts/setup.sh installs it): skipped", r.bin, r.bin)
			continue
		}
		// The solvers' optima are their claims: trusted, proofs.
		got := odtJSON(t, append(append([]string{"solve", "-q", "--format", "json", "--opt", "trust-solver=true", "--opt", "maxsat-solver=external:" + r.cmd, "--opt", "format=" + r.format}, flags...), data)...)
		if !got.Optimal || math.Abs(got.Objective-own.Objective) > 1e-12 {
			t.Errorf("solve on %s: %v (optimal %v), in process %v", r.bin, got.Objective, got.Optimal, own.Objective)
		}
		in := filepath.Join(dir, "w."+r.format)
		if _, stderr, code := odt(t, append(append([]string{"export", "--to", r.format}, flags...), data, "-o", in)...); code != 0 {
			t.Fatalf("export %s: exit %d: %s", r.format, code, stderr)
		}
		if text, _ := os.ReadFile(in); !strings.Contains(string(text), "--weight") {
			t.Errorf("the %s header does not say the rows are weighted", r.format)
		}
		runSolver(t, in+".answer", r.bin, in)
		dec := odtJSON(t, append(append([]string{"decode", "--format", "json", "--opt", "trust-solver=true"}, flags...), data, in+".answer")...)
		if !dec.Optimal || math.Abs(dec.Objective-own.Objective) > 1e-12 {
			t.Errorf("decoded from %s: %v (optimal %v), in process %v", r.bin, dec.Objective, dec.Optimal, own.Objective)
		}
	}
}

// TestAwkwardSatODD: requests sat-odd must refuse cleanly (exit 2, the
// problem named); an external solver that outlives the time limit or a
// Ctrl-C is killed, its temporary files removed, and the stump printed.
func TestAwkwardSatODD(t *testing.T) {
	weighted := "x,y,w\n0,a,1\n1,b,2.5\n1,a,2\n"
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the solve's temporary files, checked after each run
	noTemp := func(t *testing.T, dir string) {
		entries, _ := os.ReadDir(tmp)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "odtkit-maxsat-") {
				t.Errorf("temporary %s left behind", e.Name())
			}
		}
		if pid, err := os.ReadFile(filepath.Join(dir, "pid")); err != nil {
			t.Errorf("the solver did not start: %v", err)
		} else if _, err := os.Stat("/proc/" + strings.TrimSpace(string(pid))); err == nil {
			t.Errorf("the solver (pid %s) still runs", strings.TrimSpace(string(pid)))
		}
	}
	sleeper := map[string]string{"sleeper.sh": "#!/bin/sh\necho $$ > pid\nexec sleep 60\n"}
	runAwkward(t, []awkwardCase{
		{name: "time limit kills the solver", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,2", "--time-limit", "1s", "--opt", "maxsat-solver=external:sh $D/sleeper.sh {in}", "$T/iris.csv"},
			files: sleeper, code: 0, stdout: []string{"status:      time-limit", "model:"}, limit: 1, after: noTemp},
		{name: "Ctrl-C kills the solver", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,2", "--opt", "maxsat-solver=external:sh $D/sleeper.sh {in}", "$T/iris.csv"},
			files: sleeper, code: 0, stdout: []string{"status:      cancelled", "model:"}, signal: syscall.SIGINT, signalAt: []time.Duration{time.Second}, after: noTemp},
		{name: "fractional weights", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,2", "--weight", "w", "--label", "y", "$D/w.csv"},
			files: map[string]string{"w.csv": weighted}, code: 2, stderr: []string{"whole-number", "row 2"}},
		{name: "unknown maxsat solver", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,2", "--opt", "maxsat-solver=clasp", "$T/iris.csv"}, code: 2, stderr: []string{"external:"}},
		{name: "maxsat solver not found", args: []string{"solve", "--backend", "sat-odd", "--skeleton", "1,2", "--opt", "maxsat-solver=external:no-such-maxsat-solver {in}", "$T/iris.csv"}, code: 1, stderr: []string{"no-such-maxsat-solver"}},
	})
}
