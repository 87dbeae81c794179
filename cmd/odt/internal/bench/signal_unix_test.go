//go:build unix

package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A SIGTERM to odt bench reaches the running solve's process group: the
// solve prints its best model, which is recorded; no run starts after,
// and the solve's own child is gone.
func TestSignalForwardedToRun(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	exe := filepath.Join(dir, "odt")
	script := `#!/bin/sh
sleep 60 &
child=$!
echo $child > ` + pidFile + `
trap 'kill $child 2>/dev/null; echo "{\"status\":\"cancelled\",\"optimal\":false,\"errors\":4,\"objective\":4,\"lower_bound\":1,\"seconds\":0.5,\"incumbents\":[],\"model\":{\"format\":\"odtkit-graph-1\",\"kind\":\"tree\",\"features\":[\"a\"],\"classes\":[\"0\"],\"root\":0,\"nodes\":[{\"id\":0,\"class\":0}]}}"; exit 0' TERM
wait
`
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rn := &Runner{Exe: exe, TimeLimit: time.Minute}
	cells := Grid([]string{"a.txt", "b.txt"}, []string{"x"}, []int{2}, 1)
	go func() {
		// Wait for the first run's child, then signal the bench.
		for range 200 {
			if _, err := os.Stat(pidFile); err == nil {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	start := time.Now()
	runs, err := Execute(context.Background(), rn, cells, filepath.Join(dir, "out"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute: %v", err)
	}
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("took %v after the signal", el)
	}
	if len(runs) != 1 || runs[0].Status != "cancelled" || runs[0].Objective == nil || *runs[0].Objective != 4 {
		t.Fatalf("runs %+v", runs)
	}
	back, err := ReadRunFiles([]string{filepath.Join(dir, "out")})
	if err != nil || len(back) != 1 {
		t.Fatalf("runs.jsonl holds %d runs (%v)", len(back), err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	time.Sleep(100 * time.Millisecond)
	if pid > 0 && alive(pid) {
		t.Errorf("the solve's child %d outlived it", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// alive reports whether pid runs (a zombie, dead but not yet reaped by
// whoever adopted it, does not count).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err) && !errors.Is(err, syscall.ENOENT)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) == 0 || f[0] != "Z"
}
