package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScatterMarksUnsolved: a scatter plot draws time-outs, memory-outs
// and failures with their own markers, each counted in the legend.
func TestScatterMarksUnsolved(t *testing.T) {
	mk := func(b, ds, status string, secs float64) Run {
		r := Run{Cell: Cell{Dataset: ds + ".txt", Backend: b, Depth: 2, Repeat: 1}, TimeLimit: 10, Status: status, Seconds: secs, CPUSeconds: secs}
		if status != "memory-limit" && status != "failed" {
			r.Objective, r.LowerBound, r.Optimal = fptr(3), fptr(3), status == "optimal"
		}
		return r
	}
	runs := []Run{
		mk("a", "x", "optimal", 1), mk("b", "x", "optimal", 2),
		mk("a", "y", "optimal", 1), mk("b", "y", "time-limit", 10),
		mk("a", "z", "time-limit", 10), mk("b", "z", "time-limit", 10),
		mk("a", "w", "optimal", 3), mk("b", "w", "memory-limit", 4),
		mk("a", "v", "failed", 0.1), mk("b", "v", "optimal", 2),
	}
	dir := t.TempDir()
	if _, err := WriteComparePictures(dir, runs, nil, Wall, []string{".svg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "scatter-a-b.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"both solved (1)", "time-out (2)", "memory-out (1)", "failed (1)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("scatter-a-b.svg has no legend entry %q", want)
		}
	}
}
