package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadExpectations: columns are found by name whatever their order,
// other columns and # lines are ignored, "-" optima state nothing, and
// bad tables are refused naming the file and line.
func TestReadExpectations(t *testing.T) {
	p := writeTemp(t, "opt.tsv", "# a comment\n# another\nrows\toptimum\tdataset\tdepth\tobjective\n"+
		"100\t17\tvote\t2\t\n100\t-\tvote\t3\t\n5\t3\tzoo\t-\tmin-depth\n\n")
	ex, err := ReadExpectations(p)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Len() != 2 {
		t.Errorf("%d expectations, want 2 (vote d2, zoo min-depth)", ex.Len())
	}
	r := Run{Cell: Cell{Dataset: "/x/vote.txt", Backend: "dl85", Depth: 2}, Status: "optimal", Optimal: true, Objective: fptr(17), LowerBound: fptr(17)}
	ex.Mark(&r)
	if r.Verdict != Correct || r.Expected == nil || *r.Expected != 17 {
		t.Errorf("vote d2 proved 17: verdict %q, expected %v", r.Verdict, r.Expected)
	}
	z := Run{Cell: Cell{Dataset: "zoo.csv", Backend: "sat-depth", Depth: NoDepth, ObjectiveName: "min-depth"}, Status: "optimal", Optimal: true, Objective: fptr(3), LowerBound: fptr(3)}
	ex.Mark(&z)
	if z.Verdict != Correct {
		t.Errorf("zoo min-depth: verdict %q", z.Verdict)
	}
	for _, c := range []struct{ body, want string }{
		{"dataset\tdepth\n", "no column \"optimum\""},
		{"# only comments\n", "no header"},
		{"dataset\tdepth\toptimum\nvote\t2\tx\n", "bad.tsv:2: optimum \"x\""},
		{"dataset\tdepth\toptimum\nvote\ttwo\t3\n", "bad.tsv:2: depth \"two\""},
		{"dataset\tdepth\toptimum\nvote 2 3\n", "bad.tsv:2: 1 fields"},
		{"dataset\tdepth\toptimum\nvote\t2\t3\nvote\t2\t4\n", "bad.tsv:3: vote depth 2 error: optimum 4, but an earlier line says 3"},
		{"dataset\tdepth\toptimum\tDataset\nvote\t2\t3\tx\n", "column \"dataset\" appears twice"},
		{"dataset\tdepth\toptimum\tobjective\nvote\t2\t3\tbogus\n", "bad.tsv:2: unknown objective \"bogus\""},
		{"dataset\tdepth\toptimum\tobjective\nvote\t2\t3\tError\n", "bad.tsv:2: unknown objective \"Error\""},
		{"dataset\tdepth\toptimum\nvote\t2\t-1\n", "bad.tsv:2: optimum \"-1\" is negative"},
		{"dataset\tdepth\toptimum\nvote\t2\t-0.5\n", "bad.tsv:2: optimum \"-0.5\" is negative"},
	} {
		_, err := ReadExpectations(writeTemp(t, "bad.tsv", c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("table %q: error %v, want one containing %q", c.body, err, c.want)
		}
	}
}

// TestReadSharedReference: the reference optima of the shared folder load
// as they are.
func TestReadSharedReference(t *testing.T) {
	for _, name := range []string{"cp4im-optima.tsv", "numeric-optima.tsv"} {
		p := filepath.Join("..", "..", "..", "..", "..", "shared", "reference", name)
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is absent: skipped", p)
		}
		ex, err := ReadExpectations(p)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Len() < 20 {
			t.Errorf("%s: %d optima read", name, ex.Len())
		}
	}
}

// TestMark: each verdict from the run's claims against the optimum.
func TestMark(t *testing.T) {
	ex := &Expectations{optima: map[expectKey]float64{{"d", 2, "error"}: 10}}
	run := func(status string, optimal bool, obj, lb float64) Run {
		r := Run{Cell: Cell{Dataset: "d.txt", Backend: "b", Depth: 2}, Status: status, Optimal: optimal}
		if status != "infeasible" && status != "failed" {
			r.Objective, r.LowerBound = fptr(obj), fptr(lb)
		}
		return r
	}
	for _, c := range []struct {
		name string
		r    Run
		want string
	}{
		{"proved the optimum", run("optimal", true, 10, 10), Correct},
		{"proved another value", run("optimal", true, 11, 11), Incorrect},
		{"model below the optimum", run("time-limit", false, 9, 0), Incorrect},
		{"bound above the optimum", run("time-limit", false, 12, 11), Incorrect},
		{"proved infeasible", run("infeasible", false, 0, 0), Incorrect},
		{"unproven, consistent", run("time-limit", false, 12, 3), Unknown},
		{"failed", run("failed", false, 0, 0), Unknown},
	} {
		r := c.r
		ex.Mark(&r)
		if r.Verdict != c.want {
			t.Errorf("%s: verdict %q, want %q", c.name, r.Verdict, c.want)
		}
		if r.Verdict == Incorrect && !strings.Contains(verdictText(&r), "expected optimum is 10") {
			t.Errorf("%s: %s", c.name, verdictText(&r))
		}
	}
	other := run("optimal", true, 3, 3)
	other.Depth = 3
	ex.Mark(&other)
	if other.Verdict != Unknown || other.Expected != nil {
		t.Errorf("no expectation: verdict %q, expected %v", other.Verdict, other.Expected)
	}
	split := run("optimal", true, 3, 3)
	split.Protocol = "split 80/20"
	ex.Mark(&split)
	if split.Verdict != Unknown {
		t.Errorf("a run on part of the rows: verdict %q", split.Verdict)
	}
}

// TestGridArgs: two shards of one grid have the same grid arguments
// whatever their shard, output folder, quiet flag and report flags; other
// backends or options make another grid.
func TestGridArgs(t *testing.T) {
	a := gridArgs([]string{"/usr/bin/odt", "bench", "--backends", "dl85", "--shard", "1/2", "-o", "s1", "-q", "--time", "cpu", "--opt", "k=v", "d.txt"})
	b := gridArgs([]string{"./odt", "bench", "--shard=2/2", "--backends", "dl85", "--out=s2", "--expect", "x.tsv", "--opt", "k=v", "d.txt"})
	if strings.Join(a, " ") != "bench --backends dl85 --opt k=v d.txt" || strings.Join(b, " ") != "bench --backends dl85 --opt k=v d.txt" {
		t.Errorf("grid arguments %q and %q", a, b)
	}
	c := gridArgs([]string{"odt", "bench", "--backends", "dl85", "--opt", "k=w", "d.txt"})
	if strings.Join(a, " ") == strings.Join(c, " ") {
		t.Errorf("other options gave the same grid %q", c)
	}
}

// TestRunnerReadsCertificationAndMarks: a run records the result's own
// "certified" field and its proof statistics, read by name, and is marked
// against the expected optimum as it ends; the aggregate counts the
// certified run.
func TestRunnerReadsCertificationAndMarks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "odt")
	script := `#!/bin/sh
for a; do last=$a; done
case "$last" in
*cert*) echo '{"backend":"x","status":"optimal","optimal":true,"certified":true,"errors":3,"objective":3,"lower_bound":3,"seconds":0.1,"stats":{"variables":10,"clauses":20,"proof_bytes":4096,"proof_check_seconds":0.25},"model":{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["0"],"root":0,"nodes":[{"id":0,"class":0}]}}' ;;
*) echo '{"backend":"x","status":"optimal","optimal":true,"errors":4,"objective":4,"lower_bound":4,"seconds":0.1,"model":{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["0"],"root":0,"nodes":[{"id":0,"class":0}]}}' ;;
esac
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ex := &Expectations{optima: map[expectKey]float64{{"cert", 2, "error"}: 3, {"plain", 2, "error"}: 3}}
	rn := &Runner{Exe: p, TimeLimit: 5 * time.Second, Expect: ex}
	runs, err := Execute(context.Background(), rn, Grid([]string{"cert.txt", "plain.txt"}, []string{"b"}, []int{2}, 1), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, plain := runs[0], runs[1]
	if !c.Certified || plain.Certified {
		t.Errorf("certified: %v and %v, want true and false", c.Certified, plain.Certified)
	}
	if f := c.Formulation; f == nil || f.ProofBytes == nil || *f.ProofBytes != 4096 || f.ProofCheckSeconds == nil || *f.ProofCheckSeconds != 0.25 {
		t.Errorf("proof statistics not read: %+v", c.Formulation)
	}
	if c.Verdict != Correct || plain.Verdict != Incorrect {
		t.Errorf("verdicts %q and %q, want correct and incorrect (proved 4, expected 3)", c.Verdict, plain.Verdict)
	}
	for _, a := range Aggregate(runs, 10, Wall) {
		if a.Backend == "b" && (a.Certified != 1 || a.Correct != 1 || a.Incorrect != 1 || a.Solved != 1) {
			t.Errorf("aggregate %+v: want 1 certified, 1 correct, 1 incorrect, 1 solved", a)
		}
	}
}
