//go:build unix

package cpodt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// xor is x0 XOR x1 with the row 00 twice: every tree of depth 1 makes 2
// errors (the greedy tree too), none of depth 2. Its tests are x0 > 0.5
// (1) and x1 > 0.5 (2); class 1 is "0", class 2 is "1".
func xor() *model.Dataset {
	return &model.Dataset{Name: "xor", Classes: []string{"0", "1"},
		Features: []model.Feature{
			{Name: "x0", Kind: model.Numeric, Values: []float64{0, 0, 0, 1, 1}},
			{Name: "x1", Kind: model.Numeric, Values: []float64{0, 0, 1, 0, 1}},
		},
		Labels: []int{0, 0, 1, 1, 0}}
}

// replay solves xor at depth 1 with the fake solver printing answer
// (hang: then waiting until the time limit).
func replay(t *testing.T, answer string, hang bool, opts map[string]string) (*model.Result, error) {
	return replayAs(t, answer, map[bool]string{true: "hang"}[hang], 0, opts)
}

// replayAs is replay with the fake solver's mode word (hang, oom or
// none) and a memory cap in MiB (0: none).
func replayAs(t *testing.T, answer, mode string, capMB int, opts map[string]string) (*model.Result, error) {
	hang := mode == "hang"
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "testdata", "fake-solvers", "cp-replay.sh"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "answer.txt")
	if err := os.WriteFile(file, []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	words := "sh " + script + " " + file
	if mode != "" {
		words += " " + mode
	}
	o := map[string]string{"cp-solver": `external:"` + words + ` {model} {data}"`}
	for k, v := range opts {
		o[k] = v
	}
	s := odtkit.Settings{Backend: "cp-odt", Options: o, MemoryLimitMB: capMB}
	if hang {
		s.TimeLimit = time.Second
	}
	return odtkit.Solve(context.Background(), xor(), model.Problem{MaxDepth: 1}, s)
}

const (
	// Test 2 then test 1, both with 2 errors: the second is no better.
	honest = "node_test = [2];\nleaf_class = [1, 2];\nobjective = 2;\n----------\n"
	// The objective line says 1; the tree makes 2 errors.
	lying = "node_test = [1];\nleaf_class = [1, 2];\nobjective = 1;\n----------\n"
	// A tree of 3 errors (both leaves predict "1").
	worse = "node_test = [1];\nleaf_class = [2, 2];\nobjective = 3;\n----------\n"
	// The start of a solution, the solver stopped inside it.
	cut = "node_test = [1];\nleaf_cl"
)

// TestExternalClaims: MiniZinc's search complete is a claim, taken as
// proof only with trust-solver; a lying objective line, a claim after an
// incomplete solution, an optimum claimed worse than a known tree and
// an unsatisfiable claim against a known tree are refused; an answer
// cut inside a solution, or a solver stopped by the time limit, keeps
// the last complete solution with no claim.
func TestExternalClaims(t *testing.T) {
	res, err := replay(t, honest+"==========\n", false, nil)
	if err != nil || res.Objective != 2 || res.Optimal || res.ClaimedBound == nil || *res.ClaimedBound != 2 || res.Status != model.StatusFeasible {
		t.Fatalf("a complete search, untrusted: %+v, %v", res, err)
	}
	res, err = replay(t, honest+"==========\n", false, map[string]string{"trust-solver": "true"})
	if err != nil || !res.Optimal || res.Status != model.StatusOptimal || res.LowerBound != 2 || !res.TrustedSolver {
		t.Fatalf("a complete search, trusted: %+v, %v", res, err)
	}
	// The same answer in JSON output mode.
	js := "{\n  \"node_test\" : [2],\n  \"leaf_class\" : [1, 2],\n  \"objective\" : 2\n}\n----------\n==========\n"
	res, err = replay(t, js, false, nil)
	if err != nil || res.ClaimedBound == nil || *res.ClaimedBound != 2 {
		t.Fatalf("a JSON answer: %+v, %v", res, err)
	}
	for name, answer := range map[string]string{
		"a lying objective line":             lying + "==========\n",
		"a claim after an incomplete one":    honest + cut + "\n==========\n",
		"an optimum worse than a known tree": worse + "==========\n",
		"unsatisfiable against a known tree": "=====UNSATISFIABLE=====\n",
		"garbage":                            "hello\n----------\n",
	} {
		res, err := replay(t, answer, false, map[string]string{"trust-solver": "true"})
		if !errors.Is(err, backend.ErrAnswer) {
			t.Errorf("%s: %+v, %v; want an error wrapping ErrAnswer", name, res, err)
		}
	}
	res, err = replay(t, honest+cut, false, map[string]string{"trust-solver": "true"})
	if err != nil || res.Objective != 2 || res.Optimal || res.ClaimedBound != nil || res.Stats["truncated"] == nil {
		t.Fatalf("an answer cut inside a solution: %+v, %v", res, err)
	}
	start := time.Now()
	res, err = replay(t, honest, true, map[string]string{"trust-solver": "true"})
	if err != nil || res.Objective != 2 || res.Optimal || res.ClaimedBound != nil || res.Status != model.StatusTimeLimit {
		t.Fatalf("a solver stopped by the time limit: %+v, %v", res, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the stopped solver returned after %v", took)
	}
}

// TestDecodeAnswers: odt decode reads MiniZinc's dzn and JSON output
// for the exported model, with the same claims as a solve.
func TestDecodeAnswers(t *testing.T) {
	d, p := xor(), model.Problem{MaxDepth: 1}
	for _, tc := range []struct {
		name, answer string
		trust        bool
		claim, opt   bool
		bad          bool
	}{
		{"dzn, complete", honest + "==========\n", false, true, false, false},
		{"dzn, complete, trusted", honest + "==========\n", true, true, true, false},
		{"json, stopped", "{\"node_test\":[1],\"leaf_class\":[1,2],\"objective\":2}\n----------\n", false, false, false, false},
		{"lying", lying, false, false, false, true},
		{"array1d and _objective", "node_test = array1d(1..1, [1]);\nleaf_class = [1, 2];\n_objective = 2;\n----------\n==========\n", false, true, false, false},
		{"two objectives that differ", "node_test = [1];\nleaf_class = [1, 2];\nobjective = 2;\n_objective = 3;\n----------\n", false, false, false, true},
		{"wrong length", "node_test = [1, 2, 1];\nleaf_class = [1, 2];\n----------\n", false, false, false, true},
		// Text that cannot begin a solution is no MiniZinc answer, not a
		// solution cut short (which would read as "no model").
		{"a SAT solver's answer", "s SATISFIABLE\nv 1 -2 0\n", false, false, false, true},
		{"binary bytes", "\x00\x01\x02", false, false, false, true},
		{"prose", "garbage\n", false, false, false, true},
		{"prose after a solution", honest + "done\n", false, false, false, true},
		{"cut inside the separator", honest + "---", false, false, false, false},
	} {
		opts := map[string]string{}
		if tc.trust {
			opts["trust-solver"] = "true"
		}
		res, err := odtkit.Decode(context.Background(), strings.NewReader(tc.answer), d, p, odtkit.Settings{Backend: "cp-odt", Options: opts})
		if tc.bad {
			if !errors.Is(err, backend.ErrAnswer) {
				t.Errorf("%s: %+v, %v; want an error wrapping ErrAnswer", tc.name, res, err)
			}
			continue
		}
		if err != nil || res.Objective != 2 || (res.ClaimedBound != nil) != tc.claim || res.Optimal != tc.opt {
			t.Errorf("%s: %+v, %v", tc.name, res, err)
		}
	}
	// A solver stopped inside its first solution's first name has no
	// model to give, and said nothing wrong.
	if res, err := odtkit.Decode(context.Background(), strings.NewReader("node_te"), d, p, odtkit.Settings{Backend: "cp-odt"}); err != nil || res.Model != nil || res.Status != model.StatusNoSolution {
		t.Errorf("cut inside the first name: %+v, %v", res, err)
	}
}

// TestMemoryCap: a solver that fails for memory under a memory cap stops
// the solve with status memory-limit and the best tree so far; without
// a cap the same failure is an error.
func TestMemoryCap(t *testing.T) {
	res, err := replayAs(t, honest+"=====ERROR=====\n", "oom", 2048, nil)
	if err != nil || res.Status != model.StatusMemory || res.Model == nil || res.Objective != 2 {
		t.Fatalf("under a cap: %+v, %v", res, err)
	}
	if res, err := replayAs(t, honest+"=====ERROR=====\n", "oom", 0, nil); err == nil || errors.Is(err, model.ErrMemoryLimit) {
		t.Fatalf("without a cap: %+v, %v; want an error that is not the cap's", res, err)
	}
}

// TestThreads: --threads N reaches the minizinc command line as -p N;
// without it no -p is given (the solver's default). The minizinc run is
// a script on PATH that records its arguments and prints an answer.
func TestThreads(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	script := "#!/bin/sh\necho \"$@\" > '" + args + "'\nprintf '" + strings.ReplaceAll(honest, "\n", `\n`) + "==========\\n'\n"
	if err := os.WriteFile(filepath.Join(dir, "minizinc"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, threads := range []int{0, 1, 3} {
		s := odtkit.Settings{Backend: "cp-odt", Threads: threads}
		res, err := odtkit.Solve(context.Background(), xor(), model.Problem{MaxDepth: 1}, s)
		if err != nil || res.Objective != 2 {
			t.Fatalf("threads %d: %+v, %v", threads, res, err)
		}
		b, err := os.ReadFile(args)
		if err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(string(b))
		i := slices.Index(words, "-p")
		switch {
		case threads == 0 && i >= 0:
			t.Errorf("no --threads: the command line %q has -p", b)
		case threads > 0 && (i < 0 || i+1 >= len(words) || words[i+1] != strconv.Itoa(threads)):
			t.Errorf("--threads %d: the command line %q lacks -p %d", threads, b, threads)
		}
		if !slices.Contains(words, "gecode") {
			t.Errorf("the command line %q does not name the solver", b)
		}
	}
}

// TestDepthSequence: min-depth asks the solver for a tree of depth
// exactly k (K = k, lower = k) from k = 1 up; when it refutes every depth
// below the greedy tree's (xor: depth 1 refuted, the greedy tree of
// depth 2), that tree is optimal on the solver's word: a claimed bound,
// a proof when trusted. The minizinc run is a script on PATH that says
// UNSATISFIABLE to the model of depth 1 and records the data it got.
func TestDepthSequence(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	script := "#!/bin/sh\nfor a; do d=$a; done\ngrep -h '^K = \\|^lower = ' \"$d\" | tr '\\n' ' ' >> '" + seen + "'\necho >> '" + seen + "'\n" +
		"if grep -q '^K = 1;' \"$d\"; then echo '=====UNSATISFIABLE====='; fi\n"
	if err := os.WriteFile(filepath.Join(dir, "minizinc"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	p := model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}
	for _, trust := range []bool{false, true} {
		os.Remove(seen)
		s := odtkit.Settings{Backend: "cp-odt", Options: map[string]string{"trust-solver": strconv.FormatBool(trust)}}
		res, err := odtkit.Solve(context.Background(), xor(), p, s)
		if err != nil || res.Model == nil || res.Objective != 2 || res.ClaimedBound == nil || *res.ClaimedBound != 2 || res.Optimal != trust {
			t.Fatalf("trust %v: %+v, %v; want depth 2, claimed bound 2, optimal only when trusted", trust, res, err)
		}
		b, err := os.ReadFile(seen)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(b)); got != "K = 1; lower = 1;" {
			t.Errorf("trust %v: the solver was run on %q, want one run of depth 1 (K = 1; lower = 1;)", trust, got)
		}
	}
}
