package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
