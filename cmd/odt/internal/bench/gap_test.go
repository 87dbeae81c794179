package bench

import (
	"bytes"
	"strings"
	"testing"
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
