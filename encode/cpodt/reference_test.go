package cpodt_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// solveWith solves d with a backend under a time limit (cp-odt with its
// complete search trusted as a proof).
func solveWith(t *testing.T, name string, d *model.Dataset, p model.Problem, limit time.Duration) *model.Result {
	t.Helper()
	s := odtkit.Settings{Backend: name, TimeLimit: limit, Threads: 1}
	if name == "cp-odt" {
		s.Options = map[string]string{"trust-solver": "true"}
	}
	res, err := odtkit.Solve(context.Background(), d, p, s)
	if err != nil {
		t.Fatalf("%s on %s %+v: %v", name, d.Name, p, err)
	}
	return res
}

// inferdt is the folder of the shared inferdt data, or "" when absent.
func inferdt() string {
	dir := filepath.Join("..", "..", "..", "shared", "data", "inferdt")
	if _, err := os.Stat(filepath.Join(dir, "monk1.csv")); err != nil {
		return ""
	}
	return dir
}

func read(t *testing.T, path string) *model.Dataset {
	t.Helper()
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestAgreesWithDL85: on the data of testdata/ and on monk1-3, the
// fewest errors at depth 2 that Gecode proves, plain, with a minimum
// support and with a leaf cost, are dl85's.
func TestAgreesWithDL85(t *testing.T) {
	needMiniZinc(t)
	files := []string{"../../testdata/soybean-small-s1.csv", "../../testdata/monk1.csv", "../../testdata/vote.txt"}
	if dir := inferdt(); dir != "" && !testing.Short() {
		for _, m := range []string{"monk1", "monk2", "monk3"} {
			files = append(files, filepath.Join(dir, m+".csv"))
		}
	} else {
		t.Log("../shared/data/inferdt is not present: monk1-3 are not compared")
	}
	for _, file := range files {
		d := read(t, file)
		for _, p := range []model.Problem{
			{MaxDepth: 2},
			{MaxDepth: 2, MinSupport: 5},
			{MaxDepth: 2, LeafCost: 0.01},
		} {
			cp := solveWith(t, "cp-odt", d, p, time.Minute)
			ref := solveWith(t, "dl85", d, p, time.Minute)
			if !cp.Optimal || !ref.Optimal || math.Abs(cp.Objective-ref.Objective) > 1e-9 {
				t.Errorf("%s %+v: cp-odt %v (optimal %v), dl85 %v (optimal %v)", d.Name, p, cp.Objective, cp.Optimal, ref.Objective, ref.Optimal)
			}
		}
	}
}

// TestAgreesWithSAT: the least depth and the smallest tree that Gecode
// proves are sat-depth's and sat-size's; on monk1-3 (ODTKIT_LONG=1, a
// minute each) a search that proves nothing has found no tree better
// than their optimum.
func TestAgreesWithSAT(t *testing.T) {
	needMiniZinc(t)
	files := []string{"../../testdata/soybean-small-s1.csv"}
	limit := time.Minute
	if shared.Long() {
		dir := shared.Dir(t, "data/inferdt/monk1.csv")
		for _, m := range []string{"monk1", "monk2", "monk3"} {
			files = append(files, filepath.Join(dir, "data", "inferdt", m+".csv"))
		}
	}
	for _, file := range files {
		d := read(t, file)
		for obj, ref := range map[model.Objective]string{model.MinDepth: "sat-depth", model.MinSize: "sat-size"} {
			p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
			want := solveWith(t, ref, d, p, 5*time.Minute)
			if !want.Optimal {
				t.Fatalf("%s %s: %s did not prove its optimum", d.Name, obj, ref)
			}
			cp := solveWith(t, "cp-odt", d, p, limit)
			switch {
			case cp.Model == nil:
				t.Errorf("%s %s: cp-odt found no tree (%s)", d.Name, obj, cp.Status)
			case cp.Optimal && cp.Objective != want.Objective:
				t.Errorf("%s %s: cp-odt proves %v, %s %v", d.Name, obj, cp.Objective, ref, want.Objective)
			case obj == model.MinDepth && cp.Objective < want.Objective:
				t.Errorf("%s %s: cp-odt found %v, below %s's optimum %v", d.Name, obj, cp.Objective, ref, want.Objective)
			case !cp.Optimal && !strings.Contains(file, "monk"):
				t.Errorf("%s %s: cp-odt proves nothing (%s)", d.Name, obj, cp.Status)
			}
		}
	}
}

// TestExportVote: the exported model of vote at depth 2 compiles with
// minizinc -c, Gecode solves it as it is, and odt decode reads its
// answer, in the default and in the JSON output, into a tree of 17
// errors.
func TestExportVote(t *testing.T) {
	needMiniZinc(t)
	d := read(t, "../../testdata/vote.txt")
	p := model.Problem{MaxDepth: 2}
	dir := t.TempDir()
	file := filepath.Join(dir, "vote.mzn")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	format, err := odtkit.Export(context.Background(), f, d, p, odtkit.Settings{Backend: "cp-odt"})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || format != "mzn" {
		t.Fatalf("export: %q, %v", format, err)
	}
	if out, err := exec.Command("minizinc", "-c", "--solver", "gecode", "--fzn", filepath.Join(dir, "vote.fzn"), file).CombinedOutput(); err != nil {
		t.Fatalf("minizinc -c: %v\n%s", err, out)
	}
	for _, mode := range []string{"dzn", "json"} {
		out, err := exec.Command("minizinc", "--solver", "gecode", "-a", "--output-mode", mode, file).Output()
		if err != nil {
			t.Fatalf("minizinc --output-mode %s: %v\n%s", mode, err, out)
		}
		res, err := odtkit.Decode(context.Background(), strings.NewReader(string(out)), d, p, odtkit.Settings{Backend: "cp-odt"})
		if err != nil || res.Errors != 17 || res.ClaimedBound == nil || *res.ClaimedBound != 17 || res.Stats["answer_format"] != mode {
			t.Errorf("decode of the %s answer: %+v, %v", mode, res, err)
		}
	}
}

// TestNoGreedyBound: on the parity of three bits no single test lowers
// the error, so cart's tree is one leaf and bounds nothing; the depth
// of the complete tree then starts from the tests and groups, and the
// least depth and size are sat-depth's and sat-size's (3 and 15).
func TestNoGreedyBound(t *testing.T) {
	needMiniZinc(t)
	d := &model.Dataset{Name: "parity3", Classes: []string{"even", "odd"}}
	for j := range 3 {
		f := model.Feature{Name: string(rune('a' + j)), Kind: model.Numeric}
		for r := range 8 {
			f.Values = append(f.Values, float64(r>>j&1))
		}
		d.Features = append(d.Features, f)
	}
	for r := range 8 {
		d.Labels = append(d.Labels, (r&1+r>>1&1+r>>2&1)%2)
	}
	for obj, ref := range map[model.Objective]string{model.MinDepth: "sat-depth", model.MinSize: "sat-size"} {
		p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
		want := solveWith(t, ref, d, p, time.Minute)
		got := solveWith(t, "cp-odt", d, p, time.Minute)
		if !got.Optimal || got.Objective != want.Objective {
			t.Errorf("%s: cp-odt %v (optimal %v), %s %v", obj, got.Objective, got.Optimal, ref, want.Objective)
		}
	}
}
