package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// awkwardCase is one awkward input run as a user would run it: an odt
// command line, the files it reads, and what it must do — the exit code,
// fragments of its messages, and the limits it was given.
//
// In args, "$D/" names a file written from files into a fresh directory and
// "$T/" a file of testdata/.
type awkwardCase struct {
	name  string
	args  []string
	files map[string]string
	stdin string
	// code is the exit code wanted.
	code int
	// stdout and stderr list fragments each stream must contain; absent
	// lists fragments neither may contain.
	stdout, stderr, absent []string
	// limit and limitMB are the time limit (seconds) and memory cap (MiB)
	// the command was given: the run may take at most limit+1 s of wall
	// time and reach at most 1.1 × limitMB of resident memory (0: not
	// checked; every run is stopped after two minutes).
	limit   float64
	limitMB int
	// fifos names named pipes made in the directory ("$D/NAME"), that
	// nothing writes to: a reader waits for ever unless it gives up.
	fifos []string
	// signal is sent to the command at each delay of signalAt after its
	// start (e.g. SIGTERM at 1 s: an interrupt; twice: a quit).
	signal   syscall.Signal
	signalAt []time.Duration
	// after, when set, checks the directory once the command has ended
	// (the files it wrote, the files it must not leave).
	after func(t *testing.T, dir string)
}

// runAwkward runs each case against the odt binary built for the
// end-to-end tests.
func runAwkward(t *testing.T, cases []awkwardCase) {
	t.Helper()
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range c.fifos {
				if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
					t.Skipf("no named pipes here: %v", err)
				}
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				a = strings.ReplaceAll(a, "$D/", dir+string(filepath.Separator))
				args[i] = strings.ReplaceAll(a, "$T/", testdata+string(filepath.Separator))
			}
			cmd := exec.Command(odtBin, args...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(c.stdin)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// A run that overruns its limit by far is stopped, so that a
			// hang fails in seconds, not minutes.
			stopAfter := 2 * time.Minute
			if c.limit > 0 {
				stopAfter = time.Duration(c.limit*float64(time.Second)) + 10*time.Second
			}
			timers := []*time.Timer{time.AfterFunc(stopAfter, func() { cmd.Process.Kill() })}
			for _, at := range c.signalAt {
				timers = append(timers, time.AfterFunc(at, func() { cmd.Process.Signal(c.signal) }))
			}
			err := cmd.Wait()
			for _, tm := range timers {
				tm.Stop()
			}
			wall := time.Since(start).Seconds()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					t.Errorf("killed by %v after %.2f s (want exit code %d)", ws.Signal(), time.Since(start).Seconds(), c.code)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			show := func() string {
				return "odt " + strings.Join(c.args, " ") + "\nstdout:\n" + out.String() + "\nstderr:\n" + errb.String()
			}
			if code != c.code {
				t.Errorf("exit code %d, want %d\n%s", code, c.code, show())
			}
			for _, f := range c.stdout {
				if !strings.Contains(out.String(), f) {
					t.Errorf("stdout lacks %q\n%s", f, show())
				}
			}
			for _, f := range c.stderr {
				if !strings.Contains(errb.String(), f) {
					t.Errorf("stderr lacks %q\n%s", f, show())
				}
			}
			for _, f := range c.absent {
				if strings.Contains(out.String(), f) || strings.Contains(errb.String(), f) {
					t.Errorf("output has %q\n%s", f, show())
				}
			}
			if c.limit > 0 && wall > c.limit+1 {
				t.Errorf("ran %.2f s with a %.0f s time limit\n%s", wall, c.limit, show())
			}
			if c.after != nil {
				c.after(t, dir)
			}
			if c.limitMB > 0 {
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					if mb := rssMB(ru); mb > 1.1*float64(c.limitMB) {
						t.Errorf("peak resident memory %.0f MiB with a %d MiB cap\n%s", mb, c.limitMB, show())
					}
				}
			}
		})
	}
}

// TestAwkwardBasics: inputs every command must refuse cleanly.
func TestAwkwardBasics(t *testing.T) {
	runAwkward(t, []awkwardCase{
		{name: "missing file", args: []string{"solve", "$D/none.csv"}, code: 2, stderr: []string{"none.csv"}},
		{name: "unknown backend", args: []string{"solve", "--backend", "nope", "$T/iris.csv"}, code: 2, stderr: []string{"nope"}},
		{name: "label-only csv", args: []string{"solve", "$D/a.csv"}, files: map[string]string{"a.csv": "y\n"}, code: 2, stderr: []string{"a.csv"}},
		{name: "iris depth 2 in limits", args: []string{"solve", "--depth", "2", "--time-limit", "10s", "--memory-limit", "300", "$T/iris.csv"},
			code: 0, stdout: []string{"optimal"}, limit: 10, limitMB: 300},
	})
}
