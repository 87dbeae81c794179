package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// reportLinks checks that every relative link of dir/report.html names a
// file of dir, and returns how many there are.
func reportLinks(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`href="([^"#]+)"`).FindAllStringSubmatch(string(b), -1)
	n := 0
	for _, l := range links {
		if strings.HasPrefix(l[1], "data:") {
			continue
		}
		n++
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(l[1]))); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s/report.html links to %s, which is not there (%v)", filepath.Base(dir), l[1], err)
		}
	}
	return n
}

// withoutSettings is report.html without its settings table, the one
// part that says where and when the runs were made.
func withoutSettings(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, `<table class="settings">`)
	j := strings.Index(s[max(i, 0):], "</table>")
	if i < 0 || j < 0 {
		t.Fatalf("%s has no settings table", path)
	}
	return s[:i] + s[i+j:]
}

// splitShards writes the runs of the result folder whole into n shard
// folders as --shard I/N would have (the cells at position I−1 modulo N,
// their outputs, meta.json with the shard's command) and returns them.
func splitShards(t *testing.T, whole string, n int) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(whole, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	mb, err := os.ReadFile(filepath.Join(whole, "meta.json"))
	if err != nil || json.Unmarshal(mb, &meta) != nil {
		t.Fatalf("meta.json: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var dirs []string
	for i := 1; i <= n; i++ {
		d := filepath.Join(t.TempDir(), "shard-"+strconv.Itoa(i))
		if err := os.MkdirAll(filepath.Join(d, "runs"), 0o755); err != nil {
			t.Fatal(err)
		}
		var keep []string
		for j, l := range lines {
			if j%n != i-1 {
				continue
			}
			keep = append(keep, l)
			var r struct {
				Output string `json:"output"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			if r.Output != "" {
				out, err := os.ReadFile(filepath.Join(whole, r.Output))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, r.Output), out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.WriteFile(filepath.Join(d, "runs.jsonl"), []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var cmd []string
		for _, a := range meta["command"].([]any) {
			cmd = append(cmd, a.(string))
		}
		m := map[string]any{}
		for k, v := range meta {
			m[k] = v
		}
		m["command"] = append(cmd, "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
		m["host"] = "node-" + strconv.Itoa(i)
		mb, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(d, "meta.json"), mb, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// TestBenchMergeGivesTheWholeReport: the runs of a grid split into
// shards and merged give the whole grid's tables and report.html (all but
// its settings) byte for byte, every link of the merged report resolves,
// and meta.json lists every shard's command and host.
func TestBenchMergeGivesTheWholeReport(t *testing.T) {
	whole := filepath.Join(t.TempDir(), "whole")
	if o, e, code := odt(t, "bench", "-q", "--backends", "dl85,cart,blossom", "--depth", "1,2", "--time-limit", "20s", "-o", whole,
		"../../testdata/iris.csv", "../../testdata/vote.txt"); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, o, e)
	}
	shards := splitShards(t, whole, 3)
	merged := filepath.Join(t.TempDir(), "merged")
	if o, e, code := odt(t, append([]string{"bench", "merge", "-q", "-o", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, o, e)
	}
	for _, f := range []string{"aggregate.csv", "summary.csv", "aggregate.md", "summary.md"} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, err := os.ReadFile(filepath.Join(merged, f))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the whole grid's (%v):\n%s\nvs\n%s", f, err, a, b)
		}
	}
	if a, b := withoutSettings(t, filepath.Join(whole, "report.html")), withoutSettings(t, filepath.Join(merged, "report.html")); a != b {
		t.Errorf("merged report.html differs from the whole grid's beyond its settings")
	}
	if n := reportLinks(t, merged); n != 12 {
		t.Errorf("merged report links %d run outputs, want 12", n)
	}
	reportLinks(t, whole)
	var meta struct {
		Command []string `json:"command"`
		Shards  []struct {
			Path    string   `json:"path"`
			Command []string `json:"command"`
			Host    string   `json:"host"`
		} `json:"shards"`
		Differences []string `json:"differences"`
	}
	b, err := os.ReadFile(filepath.Join(merged, "meta.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("meta.json: %v\n%s", err, b)
	}
	if len(meta.Shards) != 3 || len(meta.Differences) != 0 || !strings.Contains(strings.Join(meta.Command, " "), "bench merge") {
		t.Fatalf("merged meta.json: %s", b)
	}
	for i, s := range meta.Shards {
		want := "--shard " + strconv.Itoa(i+1) + "/3"
		if !strings.Contains(strings.Join(s.Command, " "), want) || s.Host != "node-"+strconv.Itoa(i+1) || s.Path != shards[i] {
			t.Errorf("shard %d in meta.json: %+v, want its command with %s, its host and folder", i+1, s, want)
		}
	}
	html, _ := os.ReadFile(filepath.Join(merged, "report.html"))
	for _, want := range []string{"node-1", "node-3", "--shard 2/3"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("merged report's settings lack %q", want)
		}
	}
}

// TestBenchMergeRefusesDifferentSettings: shards run with different time
// limits (or options) are refused with exit 2 naming the difference, and
// merged with --force, meta.json then recording the difference.
func TestBenchMergeRefusesDifferentSettings(t *testing.T) {
	var shards []string
	for i, limit := range []string{"5s", "7s"} {
		d := filepath.Join(t.TempDir(), "shard")
		args := []string{"bench", "-q", "--backends", "cart,dl85", "--depth", "1", "--time-limit", limit, "--shard", strconv.Itoa(i+1) + "/2", "-o", d, "../../testdata/iris.csv"}
		if o, e, code := odt(t, args...); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s\n%s", i+1, code, o, e)
		}
		shards = append(shards, d)
	}
	out := filepath.Join(t.TempDir(), "m")
	_, e, code := odt(t, "bench", "merge", "-q", "-o", out, shards[0], shards[1])
	if code != 2 || !strings.Contains(e, "time limit: 5 s in "+shards[0]) || !strings.Contains(e, "7 s in "+shards[1]) || !strings.Contains(e, "--force") {
		t.Errorf("merge of shards with different time limits: exit %d\n%s", code, e)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused merge wrote %s", out)
	}
	// Without meta.json, the runs' own time limits differ.
	_, e, code = odt(t, "bench", "merge", "-q", "-o", out, filepath.Join(shards[0], "runs.jsonl"), filepath.Join(shards[1], "runs.jsonl"))
	if code != 2 || !strings.Contains(e, "time limit of the runs") {
		t.Errorf("merge of runs files with different time limits: exit %d\n%s", code, e)
	}
	if _, _, code := odt(t, "bench", "merge", "-q", "--force", "-o", out, shards[0], shards[1]); code != 0 {
		t.Fatalf("merge --force: exit %d", code)
	}
	b, _ := os.ReadFile(filepath.Join(out, "meta.json"))
	if !strings.Contains(string(b), `"differences"`) || !strings.Contains(string(b), "time limit") {
		t.Errorf("meta.json of a forced merge does not record the difference:\n%s", b)
	}
	// Another grid (here, other depths) is another difference.
	other := filepath.Join(t.TempDir(), "other")
	if o, e, code := odt(t, "bench", "-q", "--backends", "cart,dl85", "--depth", "2", "--time-limit", "5s",
		"--shard", "2/2", "-o", other, "../../testdata/iris.csv"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	_, e, code = odt(t, "bench", "merge", "-q", "-o", filepath.Join(t.TempDir(), "m2"), shards[0], other)
	if code != 2 || !strings.Contains(e, "grid:") || !strings.Contains(e, "--depth 2") {
		t.Errorf("merge of shards of different grids: exit %d\n%s", code, e)
	}
}

// expectData are the data files and reference table of the expected-optima
// tests: cp4im files and their reference optima when ../shared is present;
// else testdata, with the optima dl85 proves written as the table.
func expectData(t *testing.T) ([]string, string) {
	t.Helper()
	ref := "../../../shared/reference/cp4im-optima.tsv"
	data := []string{"../../../shared/data/cp4im/hepatitis.txt", "../../../shared/data/cp4im/vote.txt", "../../../shared/data/cp4im/zoo-1.txt"}
	if _, err := os.Stat(ref); err == nil {
		return data, ref
	}
	t.Log("../shared is absent: expected optima of testdata from dl85")
	data = []string{"../../testdata/vote.txt", "../../testdata/iris.csv"}
	var sb strings.Builder
	sb.WriteString("# optima proved by dl85\ndataset\tdepth\toptimum\n")
	for _, d := range data {
		for _, depth := range []string{"1", "2"} {
			o, e, code := odt(t, "solve", "--backend", "dl85", "--depth", depth, "--format", "json", d)
			var r struct {
				Objective float64 `json:"objective"`
				Optimal   bool    `json:"optimal"`
			}
			if code != 0 || json.Unmarshal([]byte(o), &r) != nil || !r.Optimal {
				t.Fatalf("dl85 on %s: exit %d\n%s", d, code, e)
			}
			sb.WriteString(strings.TrimSuffix(filepath.Base(d), filepath.Ext(d)) + "\t" + depth + "\t" + strconv.FormatFloat(r.Objective, 'g', -1, 64) + "\n")
		}
	}
	p := filepath.Join(t.TempDir(), "optima.tsv")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return data, p
}

// readRuns reads a result folder's runs.jsonl as JSON objects.
func readRuns(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

// TestBenchExpect: with the reference optima every run is marked (dl85's
// proofs correct, cart's unproven models unknown) and the aggregate
// counts them; a table with one wrong optimum makes dl85's run there
// incorrect — flagged in the tables and report.html, exit code 1 — from
// odt bench and from odt bench report alike.
func TestBenchExpect(t *testing.T) {
	data, ref := expectData(t)
	dir := filepath.Join(t.TempDir(), "grid")
	o, e, code := odt(t, append([]string{"bench", "-q", "--backends", "dl85,cart", "--depth", "1,2", "--time-limit", "30s", "--expect", ref, "-o", dir}, data...)...)
	if code != 0 {
		t.Fatalf("bench --expect: exit %d\n%s\n%s", code, o, e)
	}
	runs := readRuns(t, dir)
	var wrongRun map[string]any
	for _, r := range runs {
		want := "unknown"
		if r["optimal"] == true { // dl85, and cart where its bound meets its objective
			want = "correct"
		}
		if r["backend"] == "dl85" {
			if r["optimal"] != true {
				t.Errorf("dl85 did not prove %s depth %v", r["dataset"], r["depth"])
			}
			if r["depth"].(float64) == 2 && wrongRun == nil {
				wrongRun = r
			}
		}
		if r["verdict"] != want || r["expected"] == nil {
			t.Errorf("%s %s depth %v: verdict %v, expected %v; want %s", r["backend"], r["dataset"], r["depth"], r["verdict"], r["expected"], want)
		}
	}
	recs := readCSV(t, filepath.Join(dir, "aggregate.csv"))
	if strings.Join(recs[0][len(recs[0])-3:], ",") != "correct,incorrect,unknown" {
		t.Fatalf("aggregate.csv header %v", recs[0])
	}
	for _, r := range recs[1:] {
		if r[0] == "dl85" && r[1] == "all" && (r[len(r)-3] != strconv.Itoa(2*len(data)) || r[len(r)-2] != "0") {
			t.Errorf("dl85 over all depths: %v, want %d correct and none incorrect", r, 2*len(data))
		}
	}
	// One wrong optimum in the table: the dl85 run's, plus one.
	b, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	ds := wrongRun["dataset"].(string)
	name := strings.TrimSuffix(filepath.Base(ds), filepath.Ext(ds))
	var col map[string]int
	changed := 0
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		f := strings.Split(l, "\t")
		if col == nil {
			col = map[string]int{}
			for j, h := range f {
				col[h] = j
			}
			continue
		}
		if f[col["dataset"]] == name && f[col["depth"]] == "2" {
			f[col["optimum"]] = strconv.FormatFloat(wrongRun["expected"].(float64)+1, 'g', -1, 64)
			lines[i] = strings.Join(f, "\t")
			changed++
		}
	}
	if changed != 1 {
		t.Fatalf("changed %d rows of %s for %s depth 2", changed, ref, name)
	}
	wrong := filepath.Join(t.TempDir(), "wrong.tsv")
	if err := os.WriteFile(wrong, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	checkWrong := func(dir, out, e string, code int) {
		t.Helper()
		if code != 1 || !strings.Contains(e, "1 incorrect result") || !strings.Contains(out, "INCORRECT: "+name+" depth 2 dl85 run 1: claims optimum") {
			t.Errorf("a run against a wrong optimum: exit %d\n%s\n%s", code, out, e)
		}
		html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
		if !strings.Contains(string(html), `<td class="bad">INCORRECT</td>`) || !strings.Contains(string(html), "Incorrect results") {
			t.Errorf("%s/report.html does not flag the incorrect run", dir)
		}
		n := 0
		for _, r := range readRuns(t, dir) {
			if r["verdict"] == "incorrect" {
				n++
				if r["backend"] != "dl85" || r["dataset"] != ds || r["depth"].(float64) != 2 {
					t.Errorf("incorrect run %v", r)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d incorrect runs in %s/runs.jsonl, want 1", n, dir)
		}
		for _, r := range readCSV(t, filepath.Join(dir, "aggregate.csv"))[1:] {
			if r[0] == "dl85" && r[1] == "2" && r[len(r)-2] != "1" {
				t.Errorf("aggregate dl85 depth 2: %v, want 1 incorrect", r)
			}
		}
	}
	rep := filepath.Join(t.TempDir(), "rep")
	o, e, code = odt(t, "bench", "report", "--expect", wrong, "-o", rep, dir)
	checkWrong(rep, o, e, code)
	again := filepath.Join(t.TempDir(), "again")
	o, e, code = odt(t, "bench", "--backends", "dl85", "--depth", "2", "-q", "--expect", wrong, "-o", again, ds)
	checkWrong(again, o, e, code)
	// A table without an optimum column is refused before any run.
	bad := filepath.Join(t.TempDir(), "bad.tsv")
	os.WriteFile(bad, []byte("dataset\tdepth\tmin_depth\nvote\t2\t3\n"), 0o644)
	if _, e, code := odt(t, "bench", "--backends", "dl85", "-q", "--expect", bad, "-o", filepath.Join(t.TempDir(), "x"), ds); code != 2 || !strings.Contains(e, "bad.tsv:1") {
		t.Errorf("a table without optimum: exit %d\n%s", code, e)
	}
}

// TestBenchTimeCPU: --time cpu makes the aggregate count CPU seconds: its
// PAR-2 and shifted geometric mean recompute from the runs' cpu_seconds;
// a report of the same runs with --time wall recomputes from their wall
// seconds; a report without --time keeps the clock meta.json records.
func TestBenchTimeCPU(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grid")
	if o, e, code := odt(t, "bench", "-q", "--backends", "dl85,blossom", "--depth", "1,2", "--time", "cpu", "--time-limit", "30s", "-o", dir,
		"../../testdata/vote.txt", "../../testdata/iris.csv"); code != 0 {
		t.Fatalf("bench --time cpu: exit %d\n%s\n%s", code, o, e)
	}
	runs := readRuns(t, dir)
	// dl85 proves every cell: PAR-2 is the mean time, the SGM that of
	// the shifted logarithms.
	want := func(field string) (par2, sgm float64) {
		n := 0.0
		for _, r := range runs {
			if r["backend"] != "dl85" {
				continue
			}
			if r["status"] != "optimal" {
				t.Fatalf("dl85 run %v", r)
			}
			v := r[field].(float64)
			par2 += v
			sgm += math.Log(v + 10)
			n++
		}
		return par2 / n, math.Exp(sgm/n) - 10
	}
	got := func(dir string) (par2, sgm float64) {
		for _, r := range readCSV(t, filepath.Join(dir, "aggregate.csv"))[1:] {
			if r[0] == "dl85" && r[1] == "all" {
				par2, _ = strconv.ParseFloat(r[7], 64)
				sgm, _ = strconv.ParseFloat(r[8], 64)
				return par2, sgm
			}
		}
		t.Fatalf("%s/aggregate.csv has no row dl85 all", dir)
		return 0, 0
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	wallDir := filepath.Join(t.TempDir(), "wall")
	if o, e, code := odt(t, "bench", "report", "--time", "wall", "-o", wallDir, dir); code != 0 {
		t.Fatalf("report --time wall: exit %d\n%s\n%s", code, o, e)
	}
	again := filepath.Join(t.TempDir(), "again")
	if o, e, code := odt(t, "bench", "report", "-o", again, dir); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, o, e)
	}
	for _, c := range []struct{ dir, field string }{{dir, "cpu_seconds"}, {again, "cpu_seconds"}, {wallDir, "seconds"}} {
		p, s := got(c.dir)
		wp, ws := want(c.field)
		if !near(p, wp) || !near(s, ws) {
			t.Errorf("%s: dl85 PAR-2 %v, SGM %v; from %s: %v, %v", filepath.Base(c.dir), p, s, c.field, wp, ws)
		}
	}
	cpuPar2, _ := got(dir)
	if wallPar2, _ := got(wallDir); near(cpuPar2, wallPar2) {
		t.Errorf("the CPU and wall aggregates are the same (%v)", cpuPar2)
	}
	for _, f := range []string{"aggregate.txt", "aggregate.md"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if !strings.Contains(string(b), "CPU seconds") {
			t.Errorf("%s does not say its times are CPU seconds:\n%s", f, b)
		}
	}
	if _, e, code := odt(t, "bench", "report", "--time", "user", "-o", filepath.Join(t.TempDir(), "x"), dir); code != 2 || !strings.Contains(e, "want wall or cpu") {
		t.Errorf("--time user: exit %d\n%s", code, e)
	}
}

// TestBenchThreadLabels: a thread count joins a series' label only when
// its runs differ in it.
func TestBenchThreadLabels(t *testing.T) {
	for _, c := range []struct {
		threads string
		want    []string
	}{{"1", []string{"cart", "dl85"}}, {"1,2", []string{"cart t1", "cart t2", "dl85 t1", "dl85 t2"}}} {
		dir := filepath.Join(t.TempDir(), "grid")
		if o, e, code := odt(t, "bench", "-q", "--backends", "cart,dl85", "--depth", "1", "--threads", c.threads, "-o", dir, "../../testdata/iris.csv"); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, o, e)
		}
		var got []string
		for _, r := range readCSV(t, filepath.Join(dir, "aggregate.csv"))[1:] {
			if r[1] != "1" {
				t.Errorf("a grid of one depth has the row %v", r)
			}
			if r[0] != "VBS" {
				got = append(got, r[0])
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("--threads %s: series %v, want %v", c.threads, got, c.want)
		}
	}
}

// TestBenchFormulationViews: with --export-sizes the formulation table has
// the formula as solved and as exported, each labelled, the exported
// sizes those of the file odt export writes; a run that built no formula
// (a zero-error tree at once) is counted apart, not in the means.
func TestBenchFormulationViews(t *testing.T) {
	dir := t.TempDir()
	sep := filepath.Join(dir, "sep.csv")
	if err := os.WriteFile(sep, []byte("a,b,y\n0,1,x\n1,0,z\n1,1,x\n0,0,z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "grid")
	if o, e, code := odt(t, "bench", "-q", "--backends", "sat-odt,dl85", "--depth", "2", "--export-sizes", "wcnf,mps", "-o", out, "../../testdata/monk1.csv", sep); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	// The exported file's size, read from its own header.
	file := filepath.Join(dir, "monk1.wcnf")
	if o, e, code := odt(t, "export", "--to", "wcnf", "--backend", "sat-odt", "--depth", "2", "-o", file, "../../testdata/monk1.csv"); code != 0 {
		t.Fatalf("export: exit %d\n%s\n%s", code, o, e)
	}
	b, _ := os.ReadFile(file)
	var vars, clauses string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 4 && f[0] == "p" && f[1] == "wcnf" {
			vars, clauses = f[2], f[3]
		}
	}
	recs := readCSV(t, filepath.Join(out, "formulation.csv"))
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	views := map[string][]string{}
	for _, r := range recs[1:] {
		views[r[col["backend"]]+" "+r[col["view"]]] = r
	}
	solved, exported := views["sat-odt solved"], views["sat-odt exported wcnf"]
	if solved == nil || exported == nil || len(recs) != 3 {
		t.Fatalf("formulation.csv rows %v: want sat-odt solved and exported wcnf", recs)
	}
	if exported[col["variables_mean"]] != vars || exported[col["clauses_mean"]] != clauses || vars == "" {
		t.Errorf("exported view %v, the file says %s variables, %s clauses", exported, vars, clauses)
	}
	if solved[col["runs"]] != "1" || solved[col["trivial"]] != "1" {
		t.Errorf("solved view %v: want monk1 in the means and sep.csv counted trivial", solved)
	}
	for _, f := range []string{"formulation.txt", "formulation.md", "report.html"} {
		b, _ := os.ReadFile(filepath.Join(out, f))
		if !strings.Contains(string(b), "view solved: the formula the backend solved") || !strings.Contains(string(b), "exported wcnf") {
			t.Errorf("%s does not show the two views and what they measure", f)
		}
	}
}

// TestExportIndexLPSizes: index.csv states the sizes of LP files, the same
// as those of the MPS files of the same models.
func TestExportIndexLPSizes(t *testing.T) {
	sizes := map[string][][]string{}
	for _, format := range []string{"lp", "mps"} {
		dir := filepath.Join(t.TempDir(), format)
		if o, e, code := odt(t, "export", "--to", format, "--backend", "milp-flowoct,milp-odt", "--depth", "1,2", "-o", dir, "../../testdata/iris.csv"); code != 0 {
			t.Fatalf("export --to %s: exit %d\n%s\n%s", format, code, o, e)
		}
		for _, r := range readCSV(t, filepath.Join(dir, "index.csv"))[1:] {
			sizes[format] = append(sizes[format], r[5:8])
			for _, v := range r[5:8] {
				if n, err := strconv.Atoi(v); err != nil || n <= 0 {
					t.Errorf("index.csv of %s: size %q in %v", format, v, r)
				}
			}
		}
	}
	if fmt.Sprint(sizes["lp"]) != fmt.Sprint(sizes["mps"]) || len(sizes["lp"]) != 4 {
		t.Errorf("LP sizes %v, MPS sizes %v", sizes["lp"], sizes["mps"])
	}
}

// TestBenchCertify: with --certify the runs of a backend that can write
// proofs do so in proofs/, their results are certified, the aggregate
// counts them and the formulation table shows the proofs' sizes and check
// times; backends without proofs run as before.
func TestBenchCertify(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grid")
	if o, e, code := odt(t, "bench", "-q", "--backends", "sat-odt,dl85", "--depth", "2", "--certify", "-o", dir, "../../testdata/iris.csv"); code != 0 {
		t.Fatalf("bench --certify: exit %d\n%s\n%s", code, o, e)
	}
	for _, r := range readRuns(t, dir) {
		switch r["backend"] {
		case "sat-odt":
			if r["certified"] != true || r["proofs"] == nil {
				t.Fatalf("sat-odt run not certified: %v", r)
			}
			if _, err := os.Stat(filepath.Join(dir, r["proofs"].(string), "index.json")); err != nil {
				t.Errorf("no proof index: %v", err)
			}
			if o, e, code := odt(t, "certify", filepath.Join(dir, r["proofs"].(string))); code != 0 {
				t.Errorf("odt certify of the run's proofs: exit %d\n%s\n%s", code, o, e)
			}
		case "dl85":
			if r["certified"] != false || r["proofs"] != nil || r["status"] != "optimal" {
				t.Errorf("dl85 run %v", r)
			}
		}
	}
	for _, r := range readCSV(t, filepath.Join(dir, "aggregate.csv"))[1:] {
		want := map[string]string{"sat-odt": "1", "dl85": "0", "VBS": "-"}[r[0]]
		if r[11] != want {
			t.Errorf("aggregate %v: certified %s, want %s", r, r[11], want)
		}
	}
	recs := readCSV(t, filepath.Join(dir, "formulation.csv"))
	head := strings.Join(recs[0], ",")
	if !strings.Contains(head, "proof_bytes_mean") || !strings.Contains(head, "proof_check_s_mean") {
		t.Errorf("formulation.csv has no proof columns: %s", head)
	}
	// A merge carries the proofs with the outputs.
	merged := filepath.Join(t.TempDir(), "merged")
	if o, e, code := odt(t, "bench", "merge", "-q", "-o", merged, dir); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, o, e)
	}
	for _, r := range readRuns(t, merged) {
		if p, ok := r["proofs"].(string); ok {
			if o, e, code := odt(t, "certify", filepath.Join(merged, p)); code != 0 {
				t.Errorf("odt certify of the merged run's proofs: exit %d\n%s\n%s", code, o, e)
			}
		}
	}
}
