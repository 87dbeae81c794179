package flowoct_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/model"
)

// solverPrograms are the MILP solver programs the round trips use: the
// command reading an exported file (FILE, SOL) and the milp-solver
// command line.
var solverPrograms = []struct {
	name, file, external string
	run                  func(file, sol string) []string
}{
	{"highs", "lp", `highs --solution_file {out} {in.lp}`, func(f, s string) []string { return []string{"highs", "--solution_file", s, f} }},
	{"highs", "mps", `highs --solution_file {out} {in}`, func(f, s string) []string { return []string{"highs", "--solution_file", s, f} }},
	{"cbc", "lp", `cbc {in.lp} solve solution {out}`, func(f, s string) []string { return []string{"cbc", f, "solve", "solution", s} }},
	{"cbc", "mps", `cbc {in} solve solution {out}`, func(f, s string) []string { return []string{"cbc", f, "solve", "solution", s} }},
	{"glpsol", "lp", `glpsol --lp {in.lp} -w {out}`, func(f, s string) []string { return []string{"glpsol", "--lp", f, "-w", s} }},
	{"glpsol", "mps", `glpsol --freemps {in} -w {out}`, func(f, s string) []string { return []string{"glpsol", "--freemps", f, "-w", s} }},
}

func program(t *testing.T, name string) bool {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Logf("skipping %s: the program is not installed (scripts/setup.sh installs coinor-cbc and glpk-utils; scripts/install-highs.sh the highs program)", name)
		return false
	}
	return true
}

// dl85Optimum is the reference optimum (no MILP solver needed).
func dl85Optimum(t *testing.T, d *model.Dataset, p model.Problem) float64 {
	t.Helper()
	res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "dl85"})
	if err != nil || !res.Optimal {
		t.Fatalf("dl85: %v %v", res, err)
	}
	return res.Objective
}

// TestExportSolveDecodeRoundTrip: the LP and MPS exports of
// milp-flowoct (error objective, with a min support, and min-size at
// one depth) and of
// milp-odt, solved by the highs, cbc and glpsol programs, decode to
// models of the optimal objective.
func TestExportSolveDecodeRoundTrip(t *testing.T) {
	d := randomData(91, 14, 3, 2, false, false)
	pErr := model.Problem{MaxDepth: 2}
	want := dl85Optimum(t, d, pErr)
	pSup := model.Problem{MaxDepth: 2, MinSupport: 3}
	cd := consistentData(92, 10, 4, 2)
	sz, err := odtkit.Solve(context.Background(), cd, model.Problem{Objective: model.MinSize, MaxDepth: model.NoDepthLimit}, odtkit.Settings{Backend: "sat-size"})
	if err != nil || !sz.Optimal {
		t.Fatalf("sat-size: %v %v", sz, err)
	}
	depth := sz.Model.Depth()
	cases := []struct {
		backend string
		data    *model.Dataset
		p       model.Problem
		want    float64
	}{
		{"milp-flowoct", d, pErr, want},
		{"milp-odt", d, pErr, want},
		{"milp-flowoct", cd, model.Problem{Objective: model.MinSize, MaxDepth: depth}, sz.Objective},
		{"milp-flowoct", d, pSup, dl85Optimum(t, d, pSup)},
	}
	dir := t.TempDir()
	for _, c := range cases {
		for _, sp := range solverPrograms {
			if !program(t, sp.name) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s/%s/%s", c.backend, c.p.Objective, sp.name, sp.file), func(t *testing.T) {
				s := odtkit.Settings{Backend: c.backend}
				var buf bytes.Buffer
				if _, err := odtkit.DefaultRegistry().ExportAs(context.Background(), &buf, c.data, c.p, s, sp.file); err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(dir, "model."+sp.file)
				sol := filepath.Join(dir, "model.sol")
				os.Remove(sol)
				if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				argv := sp.run(file, sol)
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %v\n%s", argv, err, out)
				}
				f, err := os.Open(sol)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				res, err := odtkit.DefaultRegistry().Decode(context.Background(), f, c.data, c.p, s)
				if err != nil {
					t.Fatal(err)
				}
				if res.Model == nil || math.Abs(res.Objective-c.want) > 1e-9 {
					t.Fatalf("decoded objective %v (%s), optimum %v", res.Objective, res.Status, c.want)
				}
			})
		}
	}
}

// TestExternalSolversAgree: milp-solver=external:... with each program
// (reading MPS or LP) finds and claims the same optimum as dl85, for
// milp-flowoct and milp-odt, and for milp-flowoct's min-depth: a claim
// the result records apart (feasible), optimal only when the solver is
// trusted.
func TestExternalSolversAgree(t *testing.T) {
	d := randomData(93, 16, 3, 2, false, false)
	p := model.Problem{MaxDepth: 2}
	want := dl85Optimum(t, d, p)
	cd := consistentData(94, 10, 4, 2)
	dep, err := odtkit.Solve(context.Background(), cd, model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}, odtkit.Settings{Backend: "sat-depth"})
	if err != nil || !dep.Optimal {
		t.Fatalf("sat-depth: %v %v", dep, err)
	}
	for _, sp := range solverPrograms {
		if !program(t, sp.name) {
			continue
		}
		for _, c := range []struct {
			backend string
			data    *model.Dataset
			p       model.Problem
			want    float64
		}{
			{"milp-flowoct", d, p, want},
			{"milp-odt", d, p, want},
			{"milp-flowoct", cd, model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}, dep.Objective},
		} {
			for _, trust := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/%s/trust=%v", c.backend, c.p.Objective, sp.external, trust)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				res, err := odtkit.Solve(ctx, c.data, c.p, odtkit.Settings{Backend: c.backend, Options: map[string]string{"milp-solver": "external:" + sp.external, "trust-solver": fmt.Sprint(trust)}})
				cancel()
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if res.Optimal != trust || res.TrustedSolver != trust || math.Abs(res.Objective-c.want) > 1e-9 || res.ClaimedBound == nil || *res.ClaimedBound != c.want {
					t.Errorf("%s: objective %v (%s, optimal %v, claimed bound %v), optimum %v", name, res.Objective, res.Status, res.Optimal, res.ClaimedBound, c.want)
				}
				if c.backend != "milp-odt" {
					break // trusted: milp-odt's run only, once per program
				}
			}
		}
	}
}

// writeHiGHSSolution writes x as HiGHS's raw solution file claiming
// optimality.
func writeHiGHSSolution(t *testing.T, path string, e *flowoct.Encoding, x []float64) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective %v\n# Columns %d\n", e.Model.Objective(x), len(x))
	for j, c := range e.Model.Columns {
		fmt.Fprintf(&b, "%s %v\n", c.Name, x[j])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExternalWrongOptimumIsAnError: a solver program that claims
// optimality for a point that breaks the MILP, or for a point that is a
// worse tree than one the backend knows, is reported as an error, never
// as an optimum; and its temporary files are gone afterwards.
func TestExternalWrongOptimumIsAnError(t *testing.T) {
	if !program(t, "sh") {
		t.Skip("no sh")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	d := randomData(95, 16, 3, 2, false, false)
	p := model.Problem{MaxDepth: 2}
	// The MILP a solve states by default (its tight form).
	e, err := flowoct.Encode(context.Background(), model.Binarize(d), flowoct.Options{Depth: 2, Tight: true})
	if err != nil {
		t.Fatal(err)
	}
	// A feasible point of a poor tree: every leaf predicts class 0.
	tr := e.Greedy()
	for n := range tr.Class {
		if tr.Class[n] >= 0 {
			tr.Class[n] = 0
		}
	}
	poor, ok := e.Point(tr)
	if !ok || e.Model.CheckPoint(poor, 1e-9) != nil {
		t.Fatal("the poor tree is not a point of the MILP")
	}
	broken := make([]float64, len(poor)) // all zero: no node tests anything
	for _, c := range []struct {
		name string
		x    []float64
		msg  string
	}{
		{"broken", broken, "not a solution of the model"},
		{"poor", poor, "the solver's answer is wrong"},
	} {
		sol := filepath.Join(dir, c.name+".sol")
		writeHiGHSSolution(t, sol, e, c.x)
		spec := fmt.Sprintf(`external:sh -c 'cp %s "$0"' {out}`, sol)
		res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "milp-flowoct", Options: map[string]string{"milp-solver": spec}})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s solution claimed optimal: %v, %v; want an error saying %q", c.name, res, err, c.msg)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestExternalTimeLimitKillsTheSolver: a solver program that never
// answers is stopped at the time limit (the backend returns its warm
// start, not proven) and leaves no temporary file behind.
func TestExternalTimeLimitKillsTheSolver(t *testing.T) {
	if !program(t, "sleep") {
		t.Skip("no sleep")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	d := randomData(96, 16, 3, 2, false, false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	res, err := odtkit.Solve(ctx, d, model.Problem{MaxDepth: 2}, odtkit.Settings{Backend: "milp-flowoct",
		Options: map[string]string{"milp-solver": `external:sh -c 'sleep 30' {out}`, "lp-bound": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the solve took %v with a 1 s limit", took)
	}
	if res.Optimal || res.Status != model.StatusTimeLimit || res.Model == nil {
		t.Errorf("status %s, optimal %v, model %v: want the warm start at the time limit", res.Status, res.Optimal, res.Model != nil)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
