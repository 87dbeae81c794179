package main

import (
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

	"github.com/odtkit/odtkit/learn"
	"github.com/odtkit/odtkit/model"
)

const (
	voteData = "../../testdata/vote.txt"
	irisData = "../../testdata/iris.csv"
)

// solveJSON runs odt solve --format json and decodes the result.
func solveJSON(t *testing.T, args ...string) (*model.Result, string) {
	t.Helper()
	out, stderr, code := odt(t, append([]string{"solve", "-q", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("odt solve %v: exit %d: %s", args, code, stderr)
	}
	var res model.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("result JSON: %v\n%s", err, out)
	}
	return &res, out
}

func readData(t *testing.T, path string) *model.Dataset {
	t.Helper()
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSolveHoldout: --holdout trains on the stratified split of
// model.StratifiedSplit for --seed, and the test block is the model's
// evaluation on exactly the held-out rows.
func TestSolveHoldout(t *testing.T) {
	res, out := solveJSON(t, "--backend", "dl85", "--depth", "2", "--holdout", "0.25", "--seed", "4", voteData)
	_, again := solveJSON(t, "--backend", "dl85", "--depth", "2", "--holdout", "0.25", "--seed", "4", voteData)
	if stripTimes(out) != stripTimes(again) {
		t.Fatal("same seed, different results")
	}
	d := readData(t, voteData)
	parts, err := model.StratifiedSplit(d, []float64{0.75, 0.25}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != len(parts[0]) || res.Train == nil || res.Train.Rows != len(parts[0]) {
		t.Fatalf("trained on %d rows, want %d", res.Rows, len(parts[0]))
	}
	want := model.Evaluate(res.Model, d.Subset(parts[1]))
	if res.Test == nil || res.Test.Rows != len(parts[1]) || res.Test.Errors != want.Errors || !slices.EqualFunc(res.Test.Confusion, want.Confusion, slices.Equal) {
		t.Fatalf("test block %+v, want %+v", res.Test, want)
	}
	if res.Train.Errors != res.Errors || !res.Model.HasCounts() {
		t.Fatalf("train block %+v vs errors %d; counts %v", res.Train, res.Errors, res.Model.HasCounts())
	}
	// The text output shows the blocks.
	txt, _, _ := odt(t, "solve", "-q", "--backend", "dl85", "--depth", "2", "--holdout", "0.25", "--seed", "4", voteData)
	for _, w := range []string{"train:", "test:", "test confusion matrix", "balanced accuracy"} {
		if !strings.Contains(txt, w) {
			t.Errorf("text output lacks %q:\n%s", w, txt)
		}
	}
}

var timesRE = regexp.MustCompile(`seconds": [0-9.e-]+`) // seconds, read_seconds

func stripTimes(s string) string { return timesRE.ReplaceAllString(s, "") }

// TestSolveTestFileAndTuning: --test on the training file itself gives
// the training errors; a depth list tunes (by inner folds here) and
// reports one chosen grid point.
func TestSolveTestFileAndTuning(t *testing.T) {
	res, _ := solveJSON(t, "--backend", "dl85", "--depth", "1,2,3", "--test", irisData, irisData)
	if res.Test == nil || res.Test.Errors != res.Errors || res.Test.Rows != 150 {
		t.Fatalf("test block %+v, training errors %d", res.Test, res.Errors)
	}
	if len(res.Tuning) != 3 {
		t.Fatalf("%d trials, want 3", len(res.Tuning))
	}
	chosen := -1
	for i, tr := range res.Tuning {
		if tr.Chosen {
			chosen = i
		}
	}
	if chosen < 0 || res.Tuning[chosen].Problem.MaxDepth != res.Problem.MaxDepth {
		t.Fatalf("chosen %d, final problem %+v", chosen, res.Problem)
	}
	for _, tr := range res.Tuning {
		if tr.Score > res.Tuning[chosen].Score {
			t.Fatalf("chose score %v over %v", res.Tuning[chosen].Score, tr.Score)
		}
	}
}

// TestSolveSplitFile: --split trains on the file's train rows, tunes on
// its valid rows, refits on both and tests on its test rows.
func TestSolveSplitFile(t *testing.T) {
	d := readData(t, voteData)
	sf, err := learn.NewSplitFile(d, []float64{0.5, 0.25, 0.25}, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "split.json")
	if err := sf.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	res, _ := solveJSON(t, "--backend", "dl85", "--depth", "1,2", "--split", p, voteData)
	if res.Rows != len(sf.Train)+len(sf.Valid) || res.Test.Rows != len(sf.Test) || res.Validation.Rows != len(sf.Valid) {
		t.Fatalf("rows: fit %d, validation %d, test %d", res.Rows, res.Validation.Rows, res.Test.Rows)
	}
	// A split for other data is bad input.
	_, stderr, code := odt(t, "solve", "-q", "--split", p, irisData)
	if code != 2 || !strings.Contains(stderr, "rows") {
		t.Fatalf("split for other data: exit %d %q", code, stderr)
	}
}

// TestClassWeightBalanced: --class-weight balanced learns the same model
// with the same objective as the explicit weights n/(k·n_c) in a column.
func TestClassWeightBalanced(t *testing.T) {
	// iris with most of class 2 dropped: 50, 50 and 12 rows.
	b, err := os.ReadFile(irisData)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	kept := []string{lines[0]}
	n2 := 0
	for _, l := range lines[1:] {
		if strings.HasSuffix(l, ",2") {
			if n2++; n2 > 12 {
				continue
			}
		}
		kept = append(kept, l)
	}
	count := map[string]int{}
	for _, l := range kept[1:] {
		count[l[strings.LastIndex(l, ",")+1:]]++
	}
	n := len(kept) - 1
	weighted := []string{"w," + kept[0]}
	for _, l := range kept[1:] {
		c := l[strings.LastIndex(l, ",")+1:]
		w := float64(n) / float64(len(count)*count[c])
		weighted = append(weighted, strconv.FormatFloat(w, 'g', -1, 64)+","+l)
	}
	dir := t.TempDir()
	plain, explicit := filepath.Join(dir, "plain.csv"), filepath.Join(dir, "weighted.csv")
	os.WriteFile(plain, []byte(strings.Join(kept, "\n")+"\n"), 0o644)
	os.WriteFile(explicit, []byte(strings.Join(weighted, "\n")+"\n"), 0o644)
	// (blossom and contree take whole-number weights only.)
	for _, backend := range []string{"dl85", "cart", "cadl85"} {
		a, _ := solveJSON(t, "--backend", backend, "--depth", "2", "--class-weight", "balanced", plain)
		e, _ := solveJSON(t, "--backend", backend, "--depth", "2", "--weight", "w", explicit)
		if math.Abs(a.Objective-e.Objective) > 1e-9 || a.Errors != e.Errors {
			t.Errorf("%s: balanced objective %v errors %d, explicit weights %v %d", backend, a.Objective, a.Errors, e.Objective, e.Errors)
		}
		// (The weight column is not a feature: feature indices agree.)
		if ta, te := treeShape(a.Model), treeShape(e.Model); ta != te {
			t.Errorf("%s: balanced tree %s, explicit weights %s", backend, ta, te)
		}
		if a.Train == nil || a.Train.BalancedAccuracy <= 0 {
			t.Errorf("%s: no balanced accuracy reported: %+v", backend, a.Train)
		}
	}
}

// treeShape renders a tree's tests and leaves (not its counts).
func treeShape(g *model.Graph) string {
	var sb strings.Builder
	var walk func(i int)
	walk = func(i int) {
		nd := g.Nodes[i]
		if nd.Leaf {
			fmt.Fprintf(&sb, "(%s)", g.Classes[nd.Class])
			return
		}
		fmt.Fprintf(&sb, "[f%d<=%g ", nd.Feature, nd.Threshold)
		walk(nd.Low)
		walk(nd.High)
		sb.WriteString("]")
	}
	walk(g.Root)
	return sb.String()
}

// TestPredictProba: one probability per class with a header; each line
// sums to 1 and is the leaf's counts; a model without counts exits 2.
func TestPredictProba(t *testing.T) {
	dir := t.TempDir()
	_, out := solveJSON(t, "--backend", "dl85", "--depth", "2", irisData)
	withCounts := filepath.Join(dir, "m.json")
	os.WriteFile(withCounts, []byte(out), 0o644)
	proba, stderr, code := odt(t, "predict", "--proba", "--model", withCounts, irisData)
	if code != 0 {
		t.Fatalf("predict --proba: exit %d %s", code, stderr)
	}
	g, err := model.ReadModelFile(withCounts)
	if err != nil {
		t.Fatal(err)
	}
	d := readData(t, irisData)
	lines := strings.Split(strings.TrimSpace(proba), "\n")
	if lines[0] != strings.Join(g.Classes, ",") || len(lines) != d.Rows()+1 {
		t.Fatalf("header %q, %d lines", lines[0], len(lines))
	}
	for r, l := range lines[1:] {
		leaf := g.Nodes[g.Leaf(d, r)]
		tot := 0.0
		for _, c := range leaf.Counts {
			tot += c
		}
		sum := 0.0
		for k, f := range strings.Split(l, ",") {
			p, err := strconv.ParseFloat(f, 64)
			if err != nil || math.Abs(p-leaf.Counts[k]/tot) > 1e-12 {
				t.Fatalf("row %d: %q, leaf counts %v", r, l, leaf.Counts)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("row %d: probabilities sum to %v", r, sum)
		}
	}
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, regexp.MustCompile(`,\s*"counts": \[[^\]]*\]`).ReplaceAll([]byte(out), nil), 0o644)
	if _, stderr, code := odt(t, "predict", "--model", old, irisData); code != 0 {
		t.Fatalf("a model without counts no longer loads: %s", stderr)
	}
	_, stderr, code = odt(t, "predict", "--proba", "--model", old, irisData)
	if code != 2 || !strings.Contains(stderr, "no class counts") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("proba without counts: exit %d %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	out, _, code := odt(t, "version")
	if code != 0 || !strings.Contains(out, "github.com/odtkit/odtkit") || !strings.Contains(out, "build tags:") || !strings.Contains(out, "HiGHS") {
		t.Fatalf("version: exit %d\n%s", code, out)
	}
}

func TestLearningBadUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"odtkit-split-1","rows":435,"train":[0,1,1]}`), 0o644)
	cases := [][]string{
		{"solve", "--holdout", "1.5", voteData},
		{"solve", "--holdout", "x", voteData},
		{"solve", "--holdout", "0.2", "--test", voteData, voteData},
		{"solve", "--fold", "2", voteData},
		{"solve", "--class-weight", "heavy", voteData},
		{"solve", "--split", filepath.Join(dir, "none.json"), voteData},
		{"solve", "--split", bad, voteData},
		{"solve", "--depth", "2,x", voteData},
		{"solve", "--skeleton", "1,0", voteData},
		{"solve", "--tune-folds", "1", "--depth", "1,2", voteData},
		{"solve", "-q", "--test", irisData, voteData},
		{"export", "--to", "mps", "--encoding", "odd", "--depth", "2,3", voteData, "-o", filepath.Join(dir, "x")},
		{"bench", "--backends", "cart", "--split", "50/50/50/1", voteData},
		{"bench", "--backends", "cart", "--split", "50/25/25", "--seeds", "5-1", voteData},
		{"bench", "--backends", "cart", "--cv", "1", voteData},
		{"bench", "--backends", "cart", "--cv", "3", "--split", "80/20", voteData},
		{"bench", "--backends", "cart", "--tune", voteData},
		{"bench", "--backends", "cart", "--split", "80/20", "--alpha", "0,0.1", voteData},
		{"bench", "--backends", "cart", "--split", "80/20", "--repeat", "2", voteData},
		{"bench", "--backends", "cart", "--split", "80/20", "-o", filepath.Join(dir, "b"), filepath.Join(dir, "missing.txt")},
		{"version", "extra"},
	}
	for _, args := range cases {
		_, stderr, code := odt(t, args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "panic") {
			t.Errorf("odt %s: exit %d, stderr %q; want 2 and one line", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestBenchProtocols: a tuned 50/25/25 split over two seeds, whole and in
// two merged shards, gives the same accuracy table; its split files are
// the library's splits; a 3-fold cross-validation runs every fold.
func TestBenchProtocols(t *testing.T) {
	dir := t.TempDir()
	args := []string{"bench", "-q", "--backends", "dl85,cart", "--depth", "1,2", "--tune", "--split", "50/25/25", "--seeds", "1-2",
		"--time-limit", "20s", voteData, irisData}
	whole := filepath.Join(dir, "whole")
	out, stderr, code := odt(t, append(args, "-o", whole)...)
	if code != 0 {
		t.Fatalf("bench: exit %d %s", code, stderr)
	}
	for _, f := range []string{"accuracy.txt", "accuracy.md", "accuracy.csv", "test-accuracy.svg", "test-accuracy.png", "splits/vote-seed2.json"} {
		if st, err := os.Stat(filepath.Join(whole, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written (%v)", f, err)
		}
	}
	sf, err := learn.ReadSplitFile(filepath.Join(whole, "splits", "iris-seed2.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := learn.NewSplitFile(readData(t, irisData), []float64{0.5, 0.25, 0.25}, 2)
	if !slices.Equal(sf.Train, want.Train) || !slices.Equal(sf.Valid, want.Valid) || !slices.Equal(sf.Test, want.Test) {
		t.Fatal("the written split is not the library's split for seed 2")
	}
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		d := filepath.Join(dir, "shard"+s[:1])
		if _, e, code := odt(t, append(args, "--shard", s, "-o", d)...); code != 0 {
			t.Fatalf("shard %s: exit %d %s", s, code, e)
		}
		shards = append(shards, d)
	}
	merged, e, code := odt(t, append([]string{"bench", "merge", "-o", filepath.Join(dir, "merged")}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d %s", code, e)
	}
	acc := func(s string) string { _, a, _ := strings.Cut(s, "test accuracy over seeds and folds:"); return a }
	if acc(out) == "" || acc(out) != acc(merged) {
		t.Fatalf("accuracy tables differ:\n%s\nmerged:\n%s", out, merged)
	}
	runs, err := os.ReadFile(filepath.Join(whole, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(runs), `"test_accuracy"`); n != 8 {
		t.Errorf("%d runs with a test accuracy, want 8 (2 data × 2 backends × 2 seeds)", n)
	}
	if !strings.Contains(string(runs), `"chosen":{"objective":"error","max_depth":`) {
		t.Error("runs.jsonl lacks the chosen problem")
	}
	cv := filepath.Join(dir, "cv")
	if _, e, code := odt(t, "bench", "-q", "--backends", "cart", "--depth", "2", "--cv", "3", "-o", cv, voteData); code != 0 {
		t.Fatalf("cv bench: exit %d %s", code, e)
	}
	runs, _ = os.ReadFile(filepath.Join(cv, "runs.jsonl"))
	for f := 1; f <= 3; f++ {
		if !strings.Contains(string(runs), fmt.Sprintf(`"fold":%d,`, f)) {
			t.Errorf("fold %d did not run", f)
		}
	}
}
