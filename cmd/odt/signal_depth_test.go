//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// SIGTERM to a leaf-cost search at a depth above 30 (which once ran on
// without end, through every signal): it prints its best model, status
// cancelled, and exits 0 soon.
func TestSolveDeepLeafCostTerm(t *testing.T) {
	cmd := exec.Command(odtBin, "solve", "-q", "--format", "json", "--backend", "dl85", "--depth", "40",
		"--leaf-cost", "0.001", "--memory-limit", "300", "../../testdata/iris.csv")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	time.Sleep(1500 * time.Millisecond)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := exitCodeOf(t, cmd)
	took := time.Since(sent)
	var r solveStatus
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("exit %d, output is not a result: %v\n%s", code, err, out.String())
	}
	if code != 0 || r.Status != "cancelled" || len(r.Model) == 0 || string(r.Model) == "null" {
		t.Fatalf("exit %d, status %q, model %s; want 0, cancelled and a model", code, r.Status, r.Model)
	}
	if took > stopBound {
		t.Fatalf("exited %v after SIGTERM, want within %v", took, stopBound)
	}
}
