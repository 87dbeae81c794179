package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Runs that stopped within their gap are counted apart: neither solved
// nor time-outs, in a gaps column that appears only when there are such
// runs.
func TestAggregateCountsGapRuns(t *testing.T) {
	obj := func(x float64) *float64 { return &x }
	runs := []Run{
		{Cell: Cell{Dataset: "a.txt", Backend: "contree", Depth: 4, Repeat: 1}, TimeLimit: 60, Status: "optimal", Optimal: true, Objective: obj(3), Seconds: 1},
		{Cell: Cell{Dataset: "b.txt", Backend: "contree", Depth: 4, Repeat: 1, Index: 1}, TimeLimit: 60, Status: "gap", Objective: obj(10), Seconds: 2},
		{Cell: Cell{Dataset: "c.txt", Backend: "contree", Depth: 4, Repeat: 1, Index: 2}, TimeLimit: 60, Status: "time-limit", Objective: obj(12), Seconds: 60},
	}
	var got *AggRow
	for _, a := range Aggregate(runs, DefaultSGMShift, Wall) {
		if a.Backend == "contree" && a.Depth == "4" {
			got = &a
		}
	}
	if got == nil || got.Solved != 1 || got.Gaps != 1 || got.Timeouts != 1 || got.Runs != 3 {
		t.Fatalf("aggregate row %+v, want 1 solved, 1 gap, 1 time-out of 3", got)
	}
	head := aggHead([]AggRow{*got})
	if !strings.Contains(strings.Join(head, ","), ",gaps") {
		t.Fatalf("header %v has no gaps column", head)
	}
	if h := aggHead(Aggregate(runs[:1], DefaultSGMShift, Wall)); strings.Contains(strings.Join(h, ","), "gaps") {
		t.Fatalf("header %v has a gaps column without gap runs", h)
	}
	var buf bytes.Buffer
	if err := WriteAggregateCSV(&buf, Aggregate(runs, DefaultSGMShift, Wall)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if !strings.HasSuffix(lines[0], ",gaps") || !strings.HasPrefix(lines[1], "contree,4,3,1,1,") || !strings.HasSuffix(lines[1], ",1") {
		t.Fatalf("CSV:\n%s", buf.String())
	}
}

// The runner keeps a run's status gap and the rises of its bound.
func TestRunnerReadsGapAndBounds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "odt")
	script := `#!/bin/sh
echo '{"backend":"x","status":"gap","optimal":false,"errors":5,"objective":5,"lower_bound":4,"seconds":0.1,"incumbents":[{"seconds":0.05,"objective":5,"lower_bound":2}],"bounds":[{"seconds":0.04,"lower_bound":2},{"seconds":0.09,"lower_bound":4}],"model":{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["0"],"root":0,"nodes":[{"id":0,"class":0}]}}'
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rn := &Runner{Exe: p, TimeLimit: 5 * time.Second}
	runs, err := Execute(context.Background(), rn, Grid([]string{"g.txt"}, []string{"b"}, []int{2}, 1), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if r.Status != "gap" || r.Optimal || len(r.Bounds) != 2 || r.Bounds[1].LowerBound != 4 || r.Incumbents[0].LowerBound != 2 {
		t.Fatalf("run %+v", r)
	}
	if outcome(&r) != "gap" {
		t.Fatalf("outcome %q, want gap", outcome(&r))
	}
}
