package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAwkwardBenchSameNames: two different data files of the same name
// in two folders are two instances, labelled by the end of their paths
// (sa/d, sb/d): no cross-check mixes their optima, each has its row and
// its anytime picture; two names that differ only in a non-ASCII letter
// (x ü, x ö) get two pictures, both in report.html.
func TestAwkwardBenchSameNames(t *testing.T) {
	dir := t.TempDir()
	vote, err := os.ReadFile("../../testdata/vote.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(vote), "\n")
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The whole of vote (optimum 17 at depth 2) and its first 120 rows.
	a := write("sa/d.txt", string(vote))
	b := write("sb/d.txt", strings.Join(lines[:120], ""))
	u := write("x ü.txt", strings.Join(lines[:150], ""))
	o := write("x ö.txt", strings.Join(lines[:200], ""))
	out := filepath.Join(dir, "b")
	stdout, stderr, code := odt(t, "bench", "-q", "--backends", "dl85,blossom", "--depth", "2", "--repeat", "2", "-o", out, a, b, u, o)
	if code != 0 || strings.Contains(stdout+stderr, "CROSS-CHECK") {
		t.Fatalf("bench: exit %d\n%s\n%s", code, stdout, stderr)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"sa/d", "sb/d", "x ü", "x ö"} {
		if !strings.Contains(string(summary), label+",") {
			t.Errorf("summary.csv has no row of %q:\n%s", label, summary)
		}
	}
	pics, _ := filepath.Glob(filepath.Join(out, "anytime-*-d2.svg"))
	if len(pics) != 5 { // four data files and their average
		t.Errorf("anytime pictures %v, want one per data file and the average", pics)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pics {
		if strings.Count(string(html), filepath.Base(p)) < 1 {
			t.Errorf("report.html does not show %s", filepath.Base(p))
		}
	}
	if !strings.Contains(string(html), "x ü, depth 2") || !strings.Contains(string(html), "sa/d, depth 2") {
		t.Errorf("report.html lacks the titles of x ü or sa/d")
	}
	// report from runs.jsonl labels the runs alike.
	_, stderr, code = odt(t, "bench", "report", "-o", filepath.Join(dir, "r"), out)
	if code != 0 {
		t.Fatalf("bench report: exit %d: %s", code, stderr)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "r", "summary.csv"))
	if string(again) != string(summary) {
		t.Errorf("bench report's summary differs from bench's:\n%s\n%s", again, summary)
	}
}
