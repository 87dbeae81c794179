package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// smallDisk mounts a tmpfs of 1 MiB and fills it, for tests of a full
// disk; it skips when the test cannot mount one (not root, no tmpfs).
func smallDisk(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root: skipped (the /dev/full cases still run)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	// Fill it but for a few KiB, so that the first files fit.
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Repeat([]byte{0}, 1<<20-16<<10))
	f.Close()
	return dir
}

// TestAwkwardOutputFull: a result that cannot be written to --out (a
// full device or disk) is printed to stdout with a message naming the
// file and the cause, and the exit code is 1 (an I/O failure, not bad
// input); no temporary file is left. The same for an export.
func TestAwkwardOutputFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	data := "../../testdata/vote.txt"
	for _, format := range []string{"text", "json"} {
		stdout, stderr, code := odt(t, "solve", "-q", "--backend", "dl85", "--depth", "2", "--format", format, "-o", "/dev/full", data)
		if code != 1 || !strings.Contains(stderr, "cannot write the result to /dev/full") || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "printed to stdout") {
			t.Errorf("%s to /dev/full: exit %d, stderr %q; want 1 naming the file, the cause and stdout", format, code, stderr)
		}
		if format == "json" {
			var r trustResult
			if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.Objective != 17 || !r.Optimal {
				t.Errorf("json to /dev/full: stdout %q (%v); want the result, objective 17", stdout, err)
			}
		} else if !strings.Contains(stdout, "objective:   17") {
			t.Errorf("text to /dev/full: stdout %q; want the result", stdout)
		}
	}
	_, stderr, code := odt(t, "export", "--to", "mps", "--backend", "milp-flowoct", "--depth", "1", data, "-o", "/dev/full")
	if code != 1 || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("export to /dev/full: exit %d, stderr %q; want 1", code, stderr)
	}

	disk := smallDisk(t)
	out := filepath.Join(disk, "r.json")
	if err := os.WriteFile(filepath.Join(disk, "pad"), bytes.Repeat([]byte{0}, 16<<10), 0o644); err != nil && !strings.Contains(err.Error(), "no space") {
		t.Fatal(err)
	}
	stdout, stderr, code := odt(t, "solve", "-q", "--backend", "dl85", "--depth", "2", "--format", "json", "-o", out, data)
	if code != 1 || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stdout, `"objective": 17`) {
		t.Errorf("solve to a full disk: exit %d, stderr %q, stdout %.80q; want 1 and the result on stdout", code, stderr, stdout)
	}
	left, _ := filepath.Glob(filepath.Join(disk, ".r.json.tmp*"))
	if _, err := os.Stat(out); err == nil || len(left) > 0 {
		t.Errorf("solve to a full disk left %s or %v", out, left)
	}
}

// TestAwkwardBenchFullDisk: odt bench on a disk that fills up ends at
// the first write that fails, exits 1 naming the cause, and keeps the
// runs written before it in runs.jsonl, which odt bench report reads.
func TestAwkwardBenchFullDisk(t *testing.T) {
	disk := smallDisk(t)
	out := filepath.Join(disk, "b")
	_, stderr, code := odt(t, "bench", "-q", "--backends", "dl85,cart", "--depth", "2,3", "--repeat", "3", "-o", out, "../../testdata/vote.txt")
	if code != 1 || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "the grid stopped") {
		t.Fatalf("bench on a full disk: exit %d, stderr %q; want 1, stopped", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(b), "\n")
	if n == 0 || n >= 12 || !strings.Contains(stderr, "the "+itoa(n)+" runs before") {
		t.Errorf("runs.jsonl holds %d runs, stderr %q; want the runs before the failure, fewer than the grid's 12", n, stderr)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
