package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

func TestShardsCoverGridOnce(t *testing.T) {
	cells := Grid([]string{"a.txt", "b.txt", "c.csv"}, []string{"dl85", "cart"}, []int{2, 3, 4}, 2)
	if len(cells) != 3*2*3*2 {
		t.Fatalf("grid has %d cells, want 36", len(cells))
	}
	for _, n := range []int{1, 3, 5, 36, 40} {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			for _, c := range Shard(cells, i, n) {
				seen[c.Key()]++
			}
		}
		if len(seen) != len(cells) {
			t.Fatalf("%d shards cover %d cells of %d", n, len(seen), len(cells))
		}
		for k, v := range seen {
			if v != 1 {
				t.Fatalf("%d shards: cell %q run %d times", n, k, v)
			}
		}
	}
	again := Grid([]string{"a.txt", "b.txt", "c.csv"}, []string{"dl85", "cart"}, []int{2, 3, 4}, 2)
	for i := range cells {
		if cells[i].Key() != again[i].Key() || cells[i].Index != again[i].Index {
			t.Fatal("grid order is not deterministic")
		}
	}
}

func TestParseShard(t *testing.T) {
	if i, n, err := ParseShard("2/3"); err != nil || i != 2 || n != 3 {
		t.Fatalf("2/3 → %d %d %v", i, n, err)
	}
	for _, bad := range []string{"0/3", "4/3", "3", "a/b", "1/0", ""} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func fptr(x float64) *float64 { return &x }
func iptr(x int) *int         { return &x }

func run(ds, b string, depth int, obj float64, optimal bool, incs ...model.Incumbent) Run {
	r := Run{Cell: Cell{Dataset: "/data/" + ds + ".txt", Backend: b, Depth: depth, Repeat: 1}, TimeLimit: 10,
		Status: "time-limit", Objective: fptr(obj), LowerBound: fptr(0), Errors: iptr(int(obj)), Incumbents: incs}
	if optimal {
		r.Status, r.Optimal, r.TimeToProof, r.LowerBound = "optimal", true, fptr(2), fptr(obj)
	}
	return r
}

func TestSummarizeCrossCheckAndIntegral(t *testing.T) {
	runs := []Run{
		run("vote", "dl85", 3, 12, true, model.Incumbent{Seconds: 1, Objective: 20}, model.Incumbent{Seconds: 2, Objective: 12}),
		run("vote", "cart", 3, 14, false, model.Incumbent{Seconds: 0.5, Objective: 14}),
		run("vote", "blossom", 3, 12, true, model.Incumbent{Seconds: 4, Objective: 12}),
	}
	s := Summarize(runs)
	if len(s.Conflicts) != 0 {
		t.Fatalf("agreeing optima flagged: %v", s.Conflicts)
	}
	if s.Best["vote/d3"] != 12 {
		t.Fatalf("best = %v, want 12", s.Best["vote/d3"])
	}
	var dl Entry
	for _, e := range s.Entries {
		if e.Backend == "dl85" {
			dl = e
		}
	}
	// gap 1 on [0,1), 8/20 on [1,2), 0 after: integral 1.4.
	if want := 1 + 0.4; dl.Integral < want-1e-9 || dl.Integral > want+1e-9 {
		t.Fatalf("dl85 integral %v, want %v", dl.Integral, want)
	}
	// cart ends at 14 against the best 12: primal gap 2/14.
	for _, e := range s.Entries {
		if want := map[string]float64{"dl85": 0, "blossom": 0, "cart": 2.0 / 14}[e.Backend]; math.Abs(e.Gap-want) > 1e-12 {
			t.Errorf("%s: primal gap at the end %v, want %v", e.Backend, e.Gap, want)
		}
	}
	// Runs of another objective on the same data and depth are another
	// problem: neither compared nor part of the best objective.
	other := run("vote", "sat-depth", 3, 5, true)
	other.ObjectiveName = "min-depth"
	infeasible := Run{Cell: Cell{Dataset: "/data/vote.txt", Backend: "sat-size", Depth: 3, Repeat: 1, ObjectiveName: "min-size"}, Status: "infeasible"}
	if s := Summarize(append(slices.Clone(runs), other, infeasible)); len(s.Conflicts) != 0 || len(s.Failures) != 0 || s.Best["vote/d3"] != 12 {
		t.Fatalf("another objective compared: conflicts %v, failures %v, best %v", s.Conflicts, s.Failures, s.Best)
	}
	// A proven infeasible problem beside a model of the same problem is
	// a cross-check error.
	infeasible.Backend, infeasible.ObjectiveName = "x", ""
	if s := Summarize(append(slices.Clone(runs), infeasible)); len(s.Conflicts) != 1 || !strings.Contains(s.Conflicts[0], "infeasible") {
		t.Fatalf("infeasible vs found: conflicts %v", s.Conflicts)
	}
	runs = append(runs, run("vote", "contree", 3, 11, true))
	s = Summarize(runs)
	if len(s.Conflicts) == 0 {
		t.Fatal("disagreeing proven optima (12 vs 11) not flagged")
	}
	var buf bytes.Buffer
	s.WriteText(&buf)
	if !strings.Contains(buf.String(), "CROSS-CHECK ERROR") {
		t.Fatalf("table does not show the conflict:\n%s", buf.String())
	}
}

// fakeOdt writes a shell script standing in for odt: it answers per
// dataset name, so one grid can hold good, failing and crashing runs.
func fakeOdt(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "odt")
	script := `#!/bin/sh
for a; do last=$a; done
case "$last" in
*good*) echo '{"backend":"x","status":"optimal","optimal":true,"errors":3,"objective":3,"lower_bound":3,"seconds":0.1,"incumbents":[{"seconds":0.05,"objective":3}],"model":{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["0"],"root":0,"nodes":[{"id":0,"class":0}]}}' ;;
*missing*) echo "odt: $last: no such file" >&2; exit 2 ;;
*crash*) kill -9 $$ ;;
*slow*) sleep 30 ;;
esac
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunnerRecordsFailuresAndCompletes(t *testing.T) {
	rn := &Runner{Exe: fakeOdt(t), TimeLimit: 200 * time.Millisecond}
	cells := Grid([]string{"good.txt", "missing.txt", "crash.txt", "slow.txt"}, []string{"b"}, []int{2}, 1)
	dir := t.TempDir()
	start := time.Now()
	runs, err := Execute(context.Background(), rn, cells, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("a slow run was not killed after its time limit plus grace")
	}
	want := map[string]string{"good": "optimal", "missing": "failed", "crash": "crashed", "slow": "killed"}
	for _, r := range runs {
		if r.Status != want[r.Name()] {
			t.Errorf("%s: status %q (%s), want %q", r.Name(), r.Status, r.Message, want[r.Name()])
		}
	}
	if runs[1].Message == "" || !strings.Contains(runs[1].Message, "no such file") {
		t.Errorf("failure message not kept: %q", runs[1].Message)
	}
	back, err := ReadRunFiles([]string{dir})
	if err != nil || len(back) != len(cells) {
		t.Fatalf("runs.jsonl holds %d runs (%v), want %d", len(back), err, len(cells))
	}
	var out bytes.Buffer
	s, files, err := Report(dir, back, &out, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 4 || !strings.Contains(out.String(), "killed") {
		t.Fatalf("table lacks the failed runs:\n%s", out.String())
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("picture/table %s missing or empty", f)
		}
	}
}

func TestMergedShardsGiveSameTable(t *testing.T) {
	exe := fakeOdt(t)
	rn := &Runner{Exe: exe, TimeLimit: time.Second}
	// Four backends over three shards: shard 1 meets "d" before "b" and
	// "c", so a merge that kept first-seen order would list them apart.
	cells := Grid([]string{"good1.txt", "good2.txt", "missing.txt"}, []string{"a", "b", "c", "d"}, []int{2, 3}, 1)
	whole := t.TempDir()
	runs, err := Execute(context.Background(), rn, cells, whole, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 1; i <= 3; i++ {
		d := t.TempDir()
		if _, err := Execute(context.Background(), rn, Shard(cells, i, 3), d, nil); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	merged, err := ReadRunFiles(dirs)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	Summarize(runs).WriteMarkdown(&a)
	Summarize(merged).WriteMarkdown(&b)
	// Wall and CPU time and peak memory differ between runs of the same
	// cell; compare without them.
	strip := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			f := strings.Split(l, "|")
			if len(f) > 12 {
				f[10], f[11], f[12] = "", "", ""
			}
			out = append(out, strings.Join(f, "|"))
		}
		return strings.Join(out, "\n")
	}
	if strip(a.String()) != strip(b.String()) {
		t.Fatalf("merged shards differ from the whole grid:\n%s\nvs\n%s", a.String(), b.String())
	}
}

// A grid's memory limit reaches each solve as --memory-limit at 80 % of
// it, so a solve stops itself (status memory-limit, best model) before
// the bench would kill it.
func TestRunnerPassesMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "odt")
	script := "#!/bin/sh\necho \"$@\" > " + filepath.Join(dir, "args") + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rn := &Runner{Exe: p, TimeLimit: time.Second, MemoryLimitMB: 2000}
	rn.Run(context.Background(), Cell{Dataset: "d.txt", Backend: "b", Depth: 2})
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "--memory-limit 1600 ") {
		t.Fatalf("solve arguments %q lack --memory-limit 1600", b)
	}
}

// The thread counts multiply the grid (innermost, renumbered), reach each
// solve as --threads N, and the run records its CPU time.
func TestThreadsDimensionAndCPUSeconds(t *testing.T) {
	cells := WithThreads(Grid([]string{"d.txt"}, []string{"a", "b"}, []int{2}, 1), []int{1, 2})
	var got []string
	for i, c := range cells {
		if c.Index != i {
			t.Fatalf("cell %d has index %d", i, c.Index)
		}
		got = append(got, c.Series())
	}
	if strings.Join(got, ",") != "a t1,a t2,b t1,b t2" {
		t.Fatalf("series %v", got)
	}
	if c := WithThreads(cells[:1], nil); len(c) != 1 || c[0].Threads != 1 {
		t.Fatalf("no thread list changed the grid: %+v", c)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "odt")
	// Records its arguments, then burns some CPU in the shell.
	script := "#!/bin/sh\necho \"$@\" > " + filepath.Join(dir, "args") +
		"\ni=0; while [ $i -lt 300000 ]; do i=$((i+1)); done\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rn := &Runner{Exe: p, TimeLimit: time.Minute}
	run := rn.Run(context.Background(), cells[3])
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "--threads 2 ") {
		t.Fatalf("solve arguments %q lack --threads 2", b)
	}
	if run.CPUSeconds <= 0.01 || run.CPUSeconds > run.Seconds+1 {
		t.Fatalf("cpu_seconds %v for a run of %v s that loops in the shell", run.CPUSeconds, run.Seconds)
	}
	line, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"threads":2`) || !strings.Contains(string(line), `"cpu_seconds":`) {
		t.Fatalf("runs.jsonl line lacks threads or cpu_seconds: %s", line)
	}
}

// A grid with thread counts gets a threads column and one row per
// backend and count (no incumbents: primal integral = wall time); the
// cpu_s column is each row's mean CPU time. Without counts the table
// has no threads column.
func TestSummaryThreadsColumn(t *testing.T) {
	one := func(threads int, cpu float64) Run {
		o := 3.0
		return Run{Cell: Cell{Dataset: "d.txt", Backend: "a", Depth: 2, Repeat: 1, Threads: threads},
			Status: "optimal", Optimal: true, Objective: &o, LowerBound: &o, TimeToProof: &o,
			Seconds: 2, CPUSeconds: cpu}
	}
	var b bytes.Buffer
	if err := Summarize([]Run{one(1, 2), one(2, 3.5)}).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "dataset,depth,backend,threads,objective,bound,optimal,proof_s,primal_integral,primal_gap,wall_s,cpu_s,peak_mb,status\n" +
		"d,2,a,1,3,3,1/1,3.000,2.000,0,2.000,2.000,0.0,optimal\n" +
		"d,2,a,2,3,3,1/1,3.000,2.000,0,2.000,3.500,0.0,optimal\n"
	if b.String() != want {
		t.Fatalf("table\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := Summarize([]Run{one(0, 2)}).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "threads") {
		t.Fatalf("threads column without a threads dimension:\n%s", b.String())
	}
}

func TestParseThreads(t *testing.T) {
	if ts, err := ParseThreads("1, 2,4"); err != nil || len(ts) != 3 || ts[2] != 4 {
		t.Fatalf("1,2,4: %v %v", ts, err)
	}
	for _, bad := range []string{"", "0", "1,x", "-1", "2,2"} {
		if _, err := ParseThreads(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestLabels: a data file is labelled by the shortest end of its path
// that no other file of the grid ends with; picture names made from any
// two labels differ; a picture's title reads a label holding "/".
func TestLabels(t *testing.T) {
	for _, c := range []struct {
		paths []string
		want  []string
	}{
		{[]string{"data/vote.txt", "iris.csv"}, []string{"vote", "iris"}},
		{[]string{"sa/d.csv", "sb/d.csv"}, []string{"sa/d", "sb/d"}},
		{[]string{"/x/a/b/d.csv", "/x/c/b/d.csv", "/x/c/e.csv"}, []string{"a/b/d", "c/b/d", "e"}},
		{[]string{"d.csv", "d.txt"}, []string{"d.csv", "d.txt"}},
		{[]string{"a/d.csv", "d.csv"}, []string{"a/d", "d.csv"}},
		{[]string{"./a/d.csv", "a/d.csv", "b/e.csv"}, []string{"d", "d", "e"}},
		{[]string{"x ü.csv", "x ö.csv"}, []string{"x ü", "x ö"}},
	} {
		got := Labels(c.paths)
		for i, p := range c.paths {
			if got[p] != c.want[i] {
				t.Errorf("Labels(%q)[%q] = %q, want %q", c.paths, p, got[p], c.want[i])
			}
		}
	}
	names := []string{"sa-d/d2", "sa/d/d2", "x ö/d2", "x ü/d2", "x_ü/d2", "x?ü/d2"}
	files := uniqueNames(names)
	seen := map[string]string{}
	for _, n := range names {
		if other, ok := seen[files[n]]; ok {
			t.Errorf("%q and %q both make the file name %q", n, other, files[n])
		}
		seen[files[n]] = n
	}
	if files["x ö/d2"] != "x_ö-d2" {
		t.Errorf("x ö/d2 makes %q, want x_ö-d2 (no hash where no name shares it)", files["x ö/d2"])
	}
	for name, want := range map[string]string{
		"sa/d/d2":              "sa/d, depth 2",
		"vote/d3":              "vote, depth 3",
		"average/d-/min-depth": "average over datasets, no depth limit, min-depth",
		"a/d1/d-":              "a/d1, no depth limit",
	} {
		if got := pictureTitle(name); got != want {
			t.Errorf("pictureTitle(%q) = %q, want %q", name, got, want)
		}
	}
}

// A run's traced lower bound becomes a dual-gap curve beside its
// incumbents' primal gap; a backend that traced no bound gets none.
func TestPicturesDrawTheBound(t *testing.T) {
	dl := run("vote", "dl85", 3, 10, false, model.Incumbent{Seconds: 1, Objective: 20}, model.Incumbent{Seconds: 3, Objective: 10})
	dl.Seconds, dl.LowerBound = 10, fptr(8)
	dl.Bounds = []model.BoundPoint{{Seconds: 0.5, LowerBound: 0}, {Seconds: 2, LowerBound: 5}, {Seconds: 6, LowerBound: 7}}
	sat := run("vote", "sat-odt", 3, 12, false, model.Incumbent{Seconds: 2, Objective: 12})
	s := Summarize([]Run{dl, sat})
	pics, _ := Pictures([]Run{dl, sat}, s)
	curves := pics["vote/d3"]
	if _, ok := curves[boundSeries("sat-odt")]; ok {
		t.Fatal("a bound curve for a backend that traced none")
	}
	b, ok := curves[boundSeries("dl85")]
	if !ok {
		t.Fatalf("no bound curve for dl85: %v", curves)
	}
	// Best known objective 10: bound 5 is a dual gap of 0.5, 7 of 0.3,
	// and the final bound 8 (at the run's end, 10 s, past the 10 s
	// horizon) is not drawn.
	for _, c := range []struct{ at, want float64 }{{0.1, 1}, {1, 1}, {2.5, 0.5}, {7, 0.3}, {9.9, 0.3}} {
		if g := b.at(c.at); math.Abs(g-c.want) > 1e-12 {
			t.Errorf("bound curve at %v s: %v, want %v", c.at, g, c.want)
		}
	}
	if g := curves["dl85"].at(5); g != 0 {
		t.Errorf("primal gap at 5 s: %v, want 0", g)
	}
	avg := pics["average/d3"]
	if _, ok := avg[boundSeries("dl85")]; !ok {
		t.Error("the average picture has no bound curve")
	}
	files, err := WritePictures(t.TempDir(), []Run{dl, sat}, s, []string{".svg"})
	if err != nil || len(files) == 0 {
		t.Fatalf("pictures: %v %v", files, err)
	}
}
