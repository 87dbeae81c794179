package odtkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// satTestData reads a file of ../shared/data/inferdt, or skips.
func satTestData(t *testing.T, file string) *model.Dataset {
	t.Helper()
	path := filepath.Join("..", "shared", "data", "inferdt", file)
	if _, err := os.Stat(path); err != nil {
		t.Skip("inferdt data: ../shared not present")
	}
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSatBackends runs both backends through the selector (which
// verifies every model) on small reference files: mouse 4/15, lung
// cancer 3/7, monk1 5/15 (../shared/reference/inferdt.tsv).
func TestSatBackends(t *testing.T) {
	for _, c := range []struct {
		file        string
		depth, size int
	}{{"mouse.csv", 4, 15}, {"lung_cancer_examples.csv", 3, 7}, {"monk1.csv", 5, 15}} {
		d := satTestData(t, c.file)
		for _, backend := range []string{"sat-depth", "sat-size"} {
			var incs []model.Incumbent
			res, err := Solve(context.Background(), d, model.Problem{}, Settings{Backend: backend,
				OnIncumbent: func(i model.Incumbent) { incs = append(incs, i) }})
			if err != nil {
				t.Fatalf("%s %s: %v", backend, c.file, err)
			}
			want := c.depth
			if backend == "sat-size" {
				want = c.size
			}
			if !res.Optimal || res.Objective != float64(want) || res.Errors != 0 || res.Model.Depth() != c.depth {
				t.Fatalf("%s %s: objective %v optimal %v errors %d depth %d, want %d", backend, c.file, res.Objective, res.Optimal, res.Errors, res.Model.Depth(), want)
			}
			if len(incs) == 0 || incs[len(incs)-1].Objective != float64(want) {
				t.Fatalf("%s %s: incumbents %v", backend, c.file, incs)
			}
			if used, ok := res.Stats["examples_used"].(int); !ok || used <= 0 || used > d.Rows() {
				t.Fatalf("%s %s: examples_used %v", backend, c.file, res.Stats["examples_used"])
			}
		}
	}
}

func TestSatBackendOptions(t *testing.T) {
	d := satTestData(t, "lung_cancer_examples.csv")
	for _, opts := range []Options{{"amo": "pairwise", "batch": "3"}, {"amo": "sequential", "size-search": "bisect"},
		{"counter": "sequential", "clauses": "paper", "symmetry": "false"}, {"drop-conflicts": "true", "counter": "totalizer", "clauses": "order"}} {
		res, err := Solve(context.Background(), d, model.Problem{}, Settings{Backend: "sat-size", Options: opts})
		if err != nil || res.Objective != 7 {
			t.Fatalf("%v: %v %v", opts, res, err)
		}
	}
	for opts, want := range map[string]string{"sat-solver=cplex": "unknown SAT solver", "amo=some": "at-most-one", "batch=0": "at least 1",
		"counter=abacus": "leaf counter", "clauses=few": "order or paper", "symmetry=maybe": "symmetry", "size-search=guess": "descend or bisect"} {
		k, v, _ := strings.Cut(opts, "=")
		if _, err := Solve(context.Background(), d, model.Problem{}, Settings{Backend: "sat-depth", Options: Options{k: v}}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", opts, err, want)
		}
	}
}

// TestSatExternalMinisat solves through Debian's minisat binary.
func TestSatExternalMinisat(t *testing.T) {
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat not installed (apt-get install minisat; scripts/setup.sh does it)")
	}
	d := satTestData(t, "lung_cancer_examples.csv")
	res, err := Solve(context.Background(), d, model.Problem{}, Settings{Backend: "sat-size",
		Options: Options{"sat-solver": "external:minisat -verb=0 {in} {out}"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Objective != 7 || !res.Optimal {
		t.Fatalf("size %v optimal %v, want 7", res.Objective, res.Optimal)
	}
}

func TestSatConflicts(t *testing.T) {
	d := &model.Dataset{Name: "conflict", Classes: []string{"no", "yes"},
		Features: []model.Feature{{Name: "a", Values: []float64{0, 0, 1, 2}}}, Labels: []int{0, 1, 1, 0}}
	_, err := Solve(context.Background(), d, model.Problem{}, Settings{Backend: "sat-depth"})
	if err == nil || !strings.Contains(err.Error(), "identical features and different labels") {
		t.Fatalf("conflict not reported: %v", err)
	}
}

// TestSatTimeLimit: a tiny time limit returns the greedy tree or nothing,
// never a wrong claim.
func TestSatTimeLimit(t *testing.T) {
	d := satTestData(t, "monk2.csv")
	res, err := Solve(context.Background(), d, model.Problem{}, Settings{Backend: "sat-size", TimeLimit: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Optimal || (res.Status != model.StatusTimeLimit && res.Status != model.StatusNoSolution) {
		t.Fatalf("status %s optimal %v after 300ms on monk2 (size takes seconds)", res.Status, res.Optimal)
	}
	if res.Model != nil && res.LowerBound > res.Objective {
		t.Fatalf("bound %v above objective %v", res.LowerBound, res.Objective)
	}
}

func ExampleSolve_satDepth() {
	// XOR of two columns: no single test separates it; depth 2 does.
	d := &model.Dataset{Name: "xor", Classes: []string{"0", "1"},
		Features: []model.Feature{{Name: "a", Values: []float64{0, 0, 1, 1}}, {Name: "b", Values: []float64{0, 1, 0, 1}}},
		Labels:   []int{0, 1, 1, 0}}
	res, err := Solve(context.Background(), d, model.Problem{Objective: model.MinDepth}, Settings{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Backend, res.Objective, res.Optimal, res.Model.Size())
	// Output: sat-depth 2 true 7
}
