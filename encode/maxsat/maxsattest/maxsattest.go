//go:build unix

// Package maxsattest holds the checks every backend with an external
// MaxSAT/PB solver (package maxsat) runs in its tests: fake solvers as
// shell scripts, and a solver still running at the time limit.
package maxsattest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/model"
)

// Script writes an executable shell script with the body and returns
// its path (a fake solver).
func Script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "solver.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Stopped checks that a solve whose external solver still runs at the
// time limit returns soon after the deadline with an unproven model
// (status time-limit) whose objective eval confirms, that the solver
// is killed, and that no temporary file is left. solve runs the
// backend with the option maxsat-solver set to spec.
func Stopped(t *testing.T, solve func(ctx context.Context, spec string) (*model.Result, error), eval func(*model.Graph) float64) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pidFile := filepath.Join(tmp, "pid")
	spec := "external:" + Script(t, "echo $$ > "+pidFile+"\nexec sleep 30\n")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := solve(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("returned %v after the start (deadline 0.5 s)", took)
	}
	if res.Optimal || res.Model == nil || res.Status != model.StatusTimeLimit {
		t.Fatalf("stopped result: %+v", res)
	}
	if o := eval(res.Model); o != res.Objective || res.LowerBound > res.Objective {
		t.Errorf("stopped result: objective %v (its model's %v), lower bound %v", res.Objective, o, res.LowerBound)
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "odtkit-maxsat-") {
			t.Errorf("temporary %s left behind", e.Name())
		}
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the solver did not start: %v", err)
	}
	if _, err := os.Stat("/proc/" + strings.TrimSpace(string(pid))); err == nil {
		t.Errorf("the solver (pid %s) still runs", strings.TrimSpace(string(pid)))
	}
}

// Malformed checks that a job whose maxsat-solver option is malformed
// (which backend.NewJob refuses for b) is refused with
// backend.ErrInvalid naming the option, before any search, instead of
// being solved in process as if the option were empty. The job is made
// for b's parameters with that option's check removed.
func Malformed(t *testing.T, b backend.Backend, d *model.Dataset, p model.Problem) {
	t.Helper()
	info := b.Info()
	for i := range info.Params {
		if info.Params[i].Name == maxsat.OptSolver {
			info.Params[i].Check = nil
		}
	}
	for _, spec := range []string{"clasp {in}", "external:", `external:"clasp`} {
		job, err := backend.NewJob(info, d, p, map[string]string{maxsat.OptSolver: spec})
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Solve(context.Background(), job)
		if !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), maxsat.OptSolver) {
			t.Errorf("%s=%q: result %+v, error %v; want ErrInvalid naming the option", maxsat.OptSolver, spec, res, err)
		}
	}
}
