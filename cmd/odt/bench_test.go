package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchEndToEnd runs a small grid on two real data files (one copied
// to a temporary folder), then the same grid in three shards merged: the
// bench must complete, report every run in its table, write the
// pictures, and the merged shards must give the same table rows.
func TestBenchEndToEnd(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	small := filepath.Join(dir, "small.csv")
	if err := os.WriteFile(small, []byte("a,b,y\n0,0,n\n0,1,y\n1,0,y\n1,1,n\n0,0,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"bench", "--backends", "cart,dl85", "--depth", "1,2", "--time-limit", "5s", "-q",
		filepath.Join("..", "..", "testdata", "vote.txt"), small}
	out, errOut, code := odt(t, append(args, "-o", whole)...)
	if code != 0 {
		t.Fatalf("bench exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"vote", "small", "cart", "dl85", "optimal"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"runs.jsonl", "summary.txt", "summary.md", "summary.csv", "anytime-vote-d2.svg", "anytime-vote-d2.png", "anytime-average-d1.png"} {
		if st, err := os.Stat(filepath.Join(whole, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written (%v)", f, err)
		}
	}
	var shards []string
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		d := filepath.Join(dir, "shard"+s[:1])
		if _, e, code := odt(t, append(args, "--shard", s, "-o", d)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, e)
		}
		shards = append(shards, d)
	}
	merged, e, code := odt(t, append([]string{"bench", "merge", "-o", filepath.Join(dir, "merged")}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	if tableRows(out) != tableRows(merged) {
		t.Fatalf("merged shards differ from the whole grid:\n%s\nvs\n%s", out, merged)
	}
	if n := reportLinks(t, filepath.Join(dir, "merged")); n != 8 {
		t.Errorf("merged report links %d run outputs, want 8", n)
	}
}

// tableRows keeps the table's identifying and result columns (dataset,
// depth, backend, objective, bound, optimal, status), dropping timings and memory.
func tableRows(table string) string {
	var rows []string
	for _, l := range strings.Split(table, "\n") {
		f := strings.Fields(l)
		if len(f) == 12 {
			rows = append(rows, strings.Join(append(f[:6:6], f[11]), " "))
		}
	}
	return strings.Join(rows, "\n")
}

// A grid with an unknown backend, a bad option or a missing data file is
// refused before its first run: exit code 2, a message naming the bad
// part, and no results written.
func TestBenchRefusesBadGrid(t *testing.T) {
	dir := t.TempDir()
	vote := filepath.Join("..", "..", "testdata", "vote.txt")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--backends", "cart,no-such-backend", vote}, "no-such-backend"},
		{[]string{"--backends", "dl85", "--opt", "no-such-option=1", vote}, "no-such-option"},
		{[]string{"--backends", "cart", vote, filepath.Join(dir, "missing.txt")}, "missing.txt"},
	} {
		out := filepath.Join(dir, "out")
		args := append([]string{"bench", "--depth", "2", "--time-limit", "5s", "-q", "-o", out}, c.args...)
		_, errOut, code := odt(t, args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("odt %v: exit %d, stderr %q; want exit 2 naming %q", args, code, errOut, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
			t.Errorf("odt %v wrote results although the grid was refused", args)
		}
	}
}

// A diagram backend in a plain grid: the skeleton fixes its depth, so the
// grid's depths give it one run (no depth: model.NoDepthLimit), and the check before the first
// run passes it the skeleton and alpha its runs get (it was refused: the
// check solved without them).
func TestBenchDiagramBackend(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := odt(t, "bench", "-q", "--backends", "milp-odd,cart", "--depth", "1,2", "--skeleton", "1,2",
		"--alpha", "0.01", "--time-limit", "5s", "-o", dir, filepath.Join("..", "..", "testdata", "iris.csv"))
	if code != 0 {
		t.Fatalf("bench exit %d\n%s\n%s", code, out, errOut)
	}
	runs, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(runs)), "\n")
	odd := 0
	for _, l := range lines {
		if strings.Contains(l, `"backend":"milp-odd"`) {
			odd++
			if !strings.Contains(l, `"depth":-1`) { // model.NoDepthLimit
				t.Errorf("diagram run with a depth: %s", l)
			}
		}
	}
	if odd != 1 || len(lines) != 3 {
		t.Errorf("%d runs, %d of milp-odd; want 3 and 1:\n%s", len(lines), odd, runs)
	}
}

// --threads 1,2 is a grid dimension: two runs per cell, each with its
// threads and CPU time in runs.jsonl and a threads column in the table;
// a bad list is refused with exit 2 before any run.
func TestBenchThreads(t *testing.T) {
	dir := t.TempDir()
	vote := filepath.Join("..", "..", "testdata", "vote.txt")
	out := filepath.Join(dir, "out")
	table, errOut, code := odt(t, "bench", "--backends", "cart", "--depth", "2", "--threads", "1,2",
		"--time-limit", "5s", "-q", "-o", out, vote)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var threads []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Threads    int      `json:"threads"`
			CPUSeconds *float64 `json:"cpu_seconds"`
			Status     string   `json:"status"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.CPUSeconds == nil || *r.CPUSeconds <= 0 || r.Status == "failed" {
			t.Errorf("run %s: cpu_seconds %v, status %s", l, r.CPUSeconds, r.Status)
		}
		threads = append(threads, r.Threads)
	}
	if len(threads) != 2 || threads[0] != 1 || threads[1] != 2 {
		t.Fatalf("threads of the runs: %v, want [1 2]", threads)
	}
	if !strings.Contains(table, "threads") || !strings.Contains(table, "cpu_s") {
		t.Fatalf("table lacks the threads or cpu_s column:\n%s", table)
	}
	for _, bad := range []string{"0", "1,x", "2,2", ""} {
		_, errOut, code := odt(t, "bench", "--backends", "cart", "--threads", bad, "-q", "-o", filepath.Join(dir, "bad"), vote)
		if code != 2 || !strings.Contains(errOut, "--threads") {
			t.Errorf("--threads %q: exit %d, %q; want 2 naming --threads", bad, code, errOut)
		}
	}
}
