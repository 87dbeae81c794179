//go:build unix

package sat

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

// TestExternalCancelKillsTheGroup: a solver that starts a child and
// waits is stopped by a cancel well within a second (generous bound:
// 2 s), and its child is killed with it (no orphan).
func TestExternalCancelKillsTheGroup(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	s, err := NewExternal(`/bin/sh -c 'sleep 30 & echo $! > ` + pidFile + `; wait'`)
	if err != nil {
		t.Fatal(err)
	}
	s.AddClause(1, 2)
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	time.AfterFunc(300*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	st, err := s.Solve(ctx)
	if err != nil || st != Unknown {
		t.Fatalf("cancelled solve: %v, %v; want Unknown", st, err)
	}
	if lat := time.Since(cancelled); lat > 2*time.Second {
		t.Fatalf("Solve returned %v after the cancel", lat)
	} else {
		t.Logf("Solve returned %v after the cancel", lat)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the solver's child never started: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		// Gone, or a zombie waiting for init: either way not running.
		err := syscall.Kill(pid, 0)
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(err, syscall.ESRCH) || strings.Contains(string(stat), ") Z ") {
			break
		}
		if i == 100 {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the solver's child %d still runs after the cancel", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
