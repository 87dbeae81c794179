package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runLine is one valid line of runs.jsonl with the given time fields.
func runLine(cell int, seconds string) string {
	return `{"dataset":"x.csv","backend":"cart","depth":2,"repeat":1,"cell":` + string(rune('0'+cell)) +
		`,"threads":0,"time_limit":5,"status":"feasible","optimal":false,"errors":3,"objective":3,"lower_bound":0,` +
		`"seconds":` + seconds + `,"cpu_seconds":0.1,"peak_mb":10,"exit_code":0,"incumbents":[]}` + "\n"
}

// onlyFiles checks that the command left the directory holding only the
// files the case wrote: nothing was written.
func onlyFiles(names ...string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !slices.Contains(names, e.Name()) {
				t.Errorf("the refused command wrote %s", e.Name())
			}
		}
	}
}

// markdownTablesIntact checks every Markdown file of the result folder
// dir/b: each table row has as many cells as its header, and no raw HTML
// tag survives.
func markdownTablesIntact(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "b", "*.md"))
	if len(files) < 2 {
		t.Fatalf("want summary.md and aggregate.md, found %v", files)
	}
	cells := func(line string) int {
		n := 0
		for i := 0; i < len(line); i++ {
			if line[i] == '|' && (i == 0 || line[i-1] != '\\') {
				n++
			}
		}
		return n
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "<img") {
			t.Errorf("%s holds raw HTML:\n%s", filepath.Base(f), b)
		}
		head := -1
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(line, "|") {
				head = -1
				continue
			}
			if head < 0 {
				head = cells(line)
				continue
			}
			if n := cells(line); n != head {
				t.Errorf("%s: row %q has %d separators, its header %d", filepath.Base(f), line, n, head)
			}
		}
	}
}

// TestAwkwardBench: configuration names that would clash with the
// virtual best solver or end up as paths, names that would break
// Markdown tables, and runs.jsonl lines no measurement gives.
func TestAwkwardBench(t *testing.T) {
	var cases []awkwardCase
	for _, name := range []string{"VBS", "vbs", ".", "..", "a/b", `a\b`, "a,b", "a b", ""} {
		cases = append(cases, awkwardCase{name: "config name " + name, args: []string{"bench", "--config", name + "=cart", "-o", "$D/b", "$T/iris.csv"},
			code: 2, stderr: []string{"configuration name"}, after: onlyFiles()})
	}
	good := runLine(0, "0.5")
	cases = append(cases,
		awkwardCase{name: "names escaped in markdown", args: []string{"bench", "-q", "--backends", "cart,dl85", "--depth", "1", "-o", "$D/b",
			"$D/<img src=x onerror=alert(1)>.csv", "$D/a|b&c.csv"},
			files: map[string]string{"<img src=x onerror=alert(1)>.csv": "a,b,y\n0,1,x\n1,0,z\n1,1,x\n", "a|b&c.csv": "a,b,y\n0,1,x\n1,0,z\n0,0,z\n"},
			code:  0, limit: 60, after: markdownTablesIntact},
		awkwardCase{name: "report huge time", args: []string{"bench", "report", "--out", "$D/rep", "$D/runs.jsonl"},
			files: map[string]string{"runs.jsonl": good + runLine(1, "1e308")},
			code:  2, stderr: []string{"runs.jsonl:2", "seconds 1e+308"}, after: onlyFiles("runs.jsonl")},
		awkwardCase{name: "report negative time", args: []string{"bench", "report", "$D/runs.jsonl"},
			files: map[string]string{"runs.jsonl": runLine(0, "-1") + good},
			code:  2, stderr: []string{"runs.jsonl:1", "seconds -1"}, after: onlyFiles("runs.jsonl")},
		awkwardCase{name: "merge huge time", args: []string{"bench", "merge", "--out", "$D/m", "$D/runs.jsonl"},
			files: map[string]string{"runs.jsonl": good + strings.Replace(runLine(1, "0.5"), `"cpu_seconds":0.1`, `"cpu_seconds":2e9`, 1)},
			code:  2, stderr: []string{"runs.jsonl:2", "cpu_seconds"}, after: onlyFiles("runs.jsonl")},
		awkwardCase{name: "report infinite objective", args: []string{"bench", "report", "--out", "$D/rep", "$D/runs.jsonl"},
			files: map[string]string{"runs.jsonl": good + strings.Replace(runLine(1, "0.5"), `"objective":3`, `"objective":1e999`, 1)},
			code:  2, stderr: []string{"runs.jsonl:2"}, after: onlyFiles("runs.jsonl")},
	)
	runAwkward(t, cases)
}
