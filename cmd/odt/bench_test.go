package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchEndToEnd runs a small grid with a failing backend and a missing
// data file, then the same grid in three shards merged: the bench must
// complete, report the failures in its table, write the pictures, and the
// merged shards must give the same table rows.
func TestBenchEndToEnd(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	args := []string{"bench", "--backends", "cart,no-such-backend", "--depth", "1,2", "--time-limit", "5s", "-q",
		filepath.Join("..", "..", "testdata", "vote.txt"), filepath.Join(dir, "missing.txt")}
	out, errOut, code := odt(t, append(args, "-o", whole)...)
	if code != 0 {
		t.Fatalf("bench exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"vote", "cart", "no-such-backend", "failed", "unknown backend", "missing"} {
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
}

// tableRows keeps the table's identifying and result columns (dataset,
// depth, backend, objective, bound, optimal, status), dropping timings and memory.
func tableRows(table string) string {
	var rows []string
	for _, l := range strings.Split(table, "\n") {
		f := strings.Fields(l)
		if len(f) == 10 {
			rows = append(rows, strings.Join(append(f[:6:6], f[9]), " "))
		}
	}
	return strings.Join(rows, "\n")
}
