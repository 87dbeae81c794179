//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model/modeltest"
)

// numericCSV is the 10,000-row × 20-column numeric data of longProblem
// as CSV text: blossom at depth 4 searches it for minutes, milp-odt
// writes its depth-3 formulation for seconds.
func numericCSV(t *testing.T) string {
	t.Helper()
	var sb strings.Builder
	if err := modeltest.WriteCSV(&sb, modeltest.Numeric(10_000, 20, 1)); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// manyClasses is a CSV of 600 rows, one feature of 7 values and 300
// classes: more classes than contree takes, easy for dl85.
func manyClasses() string {
	var sb strings.Builder
	sb.WriteString("x,y\n")
	for i := range 600 {
		fmt.Fprintf(&sb, "%d,c%d\n", i%7, i%300)
	}
	return sb.String()
}

// xorCSV is label = a xor b over every 0/1 row of a, b, c: a perfect
// tree needs depth 2 and 3 tests.
const xorCSV = "a,b,c,y\n0,0,0,0\n0,0,1,0\n0,1,0,1\n0,1,1,1\n1,0,0,1\n1,0,1,1\n1,1,0,0\n1,1,1,0\n"

// noTemporary fails if a temporary output file is left in dir.
func noTemporary(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// absentFile fails if dir holds name.
func absentFile(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		noTemporary(t, dir)
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
}

// createdMode is the mode a program's new file gets here (0666 less the
// umask), found by creating one.
func createdMode(t *testing.T) fs.FileMode {
	t.Helper()
	p := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// wroteFile checks that name was written whole with the usual mode of a
// new file, that its content has each fragment, and that no temporary
// file is left.
func wroteFile(name string, fragments ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		noTemporary(t, dir)
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range fragments {
			if !strings.Contains(string(b), f) {
				t.Errorf("%s lacks %q:\n%.2000s", name, f, b)
			}
		}
		if strings.HasSuffix(name, ".json") && !json.Valid(b) {
			t.Errorf("%s is not whole JSON:\n%.2000s", name, b)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := createdMode(t); st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v (0666 less the umask)", name, st.Mode().Perm(), want)
		}
	}
}

// TestAwkwardCLI: reading, output files, exit codes and messages of the
// command line.
func TestAwkwardCLI(t *testing.T) {
	big := numericCSV(t)
	term := syscall.SIGTERM
	runAwkward(t, []awkwardCase{
		// Reading honours the time limit and signals, also while waiting
		// for a named pipe's writer.
		{name: "fifo without writer, time limit", args: []string{"solve", "--time-limit", "2s", "$D/pipe.csv"}, fifos: []string{"pipe.csv"},
			code: 0, stdout: []string{"status:      time-limit", "none found"}, stderr: []string{"time limit 2s reached", "no model"}, limit: 2},
		{name: "fifo without writer, SIGTERM", args: []string{"solve", "$D/pipe.csv"}, fifos: []string{"pipe.csv"},
			signal: term, signalAt: []time.Duration{time.Second},
			code: 0, stdout: []string{"status:      cancelled"}, stderr: []string{"interrupted", "no model"}, limit: 1},
		{name: "fifo without writer, export SIGTERM", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "2", "$D/pipe.csv", "-o", "$D/out.cnf"},
			fifos: []string{"pipe.csv"}, signal: term, signalAt: []time.Duration{time.Second},
			code: 130, stderr: []string{"interrupted", "no file written"}, limit: 1, after: absentFile("out.cnf")},

		// Outputs are checked before the work, written whole, with the
		// usual mode; - is stdout.
		{name: "out dir missing, before reading", args: []string{"solve", "-o", "$D/nodir/out.json", "$D/pipe.csv"}, fifos: []string{"pipe.csv"},
			code: 2, stderr: []string{"nodir", "does not exist"}, limit: 1},
		{name: "out dir missing, check", args: []string{"solve", "--check", "-o", "/nonexistent/dir/out.json", "$T/iris.csv"},
			code: 2, stderr: []string{"/nonexistent/dir does not exist"}},
		{name: "out is a directory", args: []string{"solve", "-o", "$D/", "$T/iris.csv"},
			code: 2, stderr: []string{"is a directory"}},
		{name: "check leaves no file", args: []string{"solve", "--check", "-o", "$D/out.json", "$T/iris.csv"},
			code: 0, after: absentFile("out.json")},
		{name: "solve out file mode", args: []string{"solve", "-q", "--depth", "2", "--format", "json", "-o", "$D/out.json", "$T/iris.csv"},
			code: 0, after: wroteFile("out.json", `"status": "optimal"`)},
		{name: "solve out dash", args: []string{"solve", "-q", "--depth", "1", "-o", "-", "$T/iris.csv"},
			code: 0, stdout: []string{"status:      optimal"}, after: absentFile("-")},
		{name: "solve SIGTERM writes whole file", args: []string{"solve", "-q", "--backend", "blossom", "--depth", "4", "--memory-limit", "1000",
			"--format", "json", "-o", "$D/out.json", "$D/big.csv"}, files: map[string]string{"big.csv": big},
			signal: term, signalAt: []time.Duration{1500 * time.Millisecond},
			code: 0, stderr: []string{"interrupted"}, limit: 3, after: wroteFile("out.json", `"status": "cancelled"`)},
		{name: "export out file mode", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "2", "$D/x.csv", "-o", "$D/x.cnf"},
			files: map[string]string{"x.csv": xorCSV}, code: 0, after: wroteFile("x.cnf", "p cnf")},
		{name: "export out dash", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "2", "$D/x.csv", "-o", "-"},
			files: map[string]string{"x.csv": xorCSV}, code: 0, stdout: []string{"p cnf", "decode a model with"}},
		// (The limit of 3 s is the stop's latency: building milp-odt's
		// formulation looks at the context between phases.)
		{name: "export SIGTERM leaves nothing", args: []string{"export", "--to", "mps", "--backend", "milp-odt", "--depth", "3", "$D/big.csv", "-o", "$D/big.mps"},
			files: map[string]string{"big.csv": big}, signal: term, signalAt: []time.Duration{time.Second},
			code: 130, stderr: []string{"no file written"}, limit: 3, after: absentFile("big.mps")},
		{name: "export SIGTERM keeps the old file", args: []string{"export", "--to", "mps", "--backend", "milp-odt", "--depth", "3", "$D/big.csv", "-o", "$D/old.mps"},
			files: map[string]string{"big.csv": big, "old.mps": "old content\n"}, signal: term, signalAt: []time.Duration{time.Second},
			code: 130, limit: 3, after: func(t *testing.T, dir string) {
				noTemporary(t, dir)
				if b, err := os.ReadFile(filepath.Join(dir, "old.mps")); err != nil || string(b) != "old content\n" {
					t.Errorf("old.mps changed: %q, %v", b, err)
				}
			}},

		{name: "bench out dash", args: []string{"bench", "--backends", "cart", "-o", "-", "$T/iris.csv"},
			code: 2, stderr: []string{"folder", "does not apply"}, after: absentFile("-")},
		{name: "backends out dash", args: []string{"backends", "-o", "-"},
			code: 0, stdout: []string{"dl85"}, after: absentFile("-")},
		{name: "backends out file mode", args: []string{"backends", "-o", "$D/b.txt"},
			code: 0, after: wroteFile("b.txt", "dl85")},

		// Exit codes: bad input is 2, whatever stage finds it.
		{name: "tune folds beyond rows", args: []string{"solve", "-q", "--depth", "1,2", "--tune-folds", "1000", "$T/iris.csv"},
			code: 2, stderr: []string{"1000 folds for 150 rows"}},
		{name: "tuning grid on two rows", args: []string{"solve", "-q", "--depth", "1,2", "$D/two.csv"},
			files: map[string]string{"two.csv": "a,b,y\n1,2,0\n2,3,1\n"}, code: 2, stderr: []string{"folds for 2 rows"}},
		{name: "auto picks a backend that takes 300 classes", args: []string{"solve", "-q", "--depth", "2", "$D/c.csv"},
			files: map[string]string{"c.csv": manyClasses()}, code: 0, stdout: []string{"status:      optimal"}, absent: []string{"backend:     contree"}},
		{name: "contree refuses 300 classes up front", args: []string{"solve", "--check", "--backend", "contree", "$D/c.csv"},
			files: map[string]string{"c.csv": manyClasses()}, code: 2, stderr: []string{"at most 256 classes", "300"}},
		{name: "help exit-codes", args: []string{"help", "exit-codes"},
			code: 0, stdout: []string{"0    success", "1    runtime failure", "2    bad usage", "130  interrupted"}},
		{name: "help unknown topic", args: []string{"help", "nope"}, code: 2, stderr: []string{"exit-codes"}},
		{name: "bench with a failed run is 0", args: []string{"bench", "--backends", "cart,contree", "--depth", "2", "-o", "$D/b", "$D/x.csv", "$D/c.csv"},
			files: map[string]string{"x.csv": xorCSV, "c.csv": manyClasses()},
			code:  0, stdout: []string{"failed runs", "at most 256 classes"}, limit: 60},
		{name: "bench interrupted is 0", args: []string{"bench", "--backends", "blossom", "--depth", "4", "--repeat", "3",
			"--time-limit", "60s", "-o", "$D/b", "$D/big.csv"}, files: map[string]string{"big.csv": big},
			signal: term, signalAt: []time.Duration{2 * time.Second},
			code: 0, stdout: []string{"cancelled"}, stderr: []string{"odt bench: wrote runs.jsonl"}, limit: 4,
			after: func(t *testing.T, dir string) {
				b, err := os.ReadFile(filepath.Join(dir, "b", "runs.jsonl"))
				if err != nil || strings.Count(string(b), "\n") != 1 {
					t.Errorf("runs.jsonl: want the one run stopped, no further run: %v\n%s", err, b)
				}
			}},
		{name: "bench with a run over its memory is 0", args: []string{"bench", "--backends", "blossom", "--depth", "4", "--memory-limit", "30",
			"--time-limit", "5s", "-o", "$D/b", "$D/big.csv"}, files: map[string]string{"big.csv": big},
			code: 0, stdout: []string{"memory-limit"}, limit: 10},

		// Messages.
		{name: "bench prefix once", args: []string{"bench", "--backends", "nope", "-o", "$D/b", "$T/iris.csv"},
			code: 2, stderr: []string{`odt bench: backend "nope"`}, absent: []string{"odt bench: odt bench:", "odt solve:"}},
		{name: "backend prefix once", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "0", "$T/iris.csv", "-o", "-"},
			code: 2, stderr: []string{"sat-depth: export and decode need"}, absent: []string{"sat-depth: sat-depth:"}},
		{name: "duration without unit", args: []string{"solve", "--time-limit", "5", "$T/iris.csv"},
			code: 2, stderr: []string{"a duration needs a unit", "5s"}, absent: []string{"parse error"}},
		{name: "bench duration without unit", args: []string{"bench", "--backends", "cart", "--time-limit", "30", "$T/iris.csv"},
			code: 2, stderr: []string{"a duration needs a unit"}},
		{name: "leaf cost out of range", args: []string{"solve", "--leaf-cost", "1e308", "$T/iris.csv"},
			code: 2, stderr: []string{"out of range", "from 0 to 1e+300"}},
		{name: "gzip data", args: []string{"solve", "$D/d.csv"}, files: map[string]string{"d.csv": "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03abc"},
			code: 2, stderr: []string{"d.csv", "compressed (gzip)", "gunzip"}},
		{name: "bzip2 data", args: []string{"solve", "$D/d.txt"}, files: map[string]string{"d.txt": "BZh91AY&SYxyz"},
			code: 2, stderr: []string{"compressed (bzip2)"}},
		{name: "xz data", args: []string{"solve", "$D/d.csv"}, files: map[string]string{"d.csv": "\xfd7zXZ\x00\x00\x04"},
			code: 2, stderr: []string{"compressed (xz)"}},
		{name: "zstd data", args: []string{"solve", "$D/d.csv"}, files: map[string]string{"d.csv": "\x28\xb5\x2f\xfd\x04\x00"},
			code: 2, stderr: []string{"compressed (zstd)"}},
		{name: "zip data solve", args: []string{"solve", "$D/d.csv"}, files: map[string]string{"d.csv": "PK\x03\x04\x14\x00"},
			code: 2, stderr: []string{"compressed (zip)"}},
		{name: "highs solution cut short", args: []string{"decode", "--backend", "milp-odt", "--depth", "1", "$D/x.csv", "$D/x.sol"},
			files: map[string]string{"x.csv": xorCSV, "x.sol": "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective 1\n# Columns 84\nd_0 1\n"},
			code:  2, stderr: []string{"x.sol", "highs file truncated (it ends after line 8)"}, absent: []string{"line 0"}},
	})
}

// TestAwkwardCLIReadSignal: eval and predict reading a named pipe nobody
// writes to stop at the first SIGTERM with exit code 130.
func TestAwkwardCLIReadSignal(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(data, []byte(xorCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	res, stderr, code := odt(t, "solve", "-q", "--depth", "2", "--format", "json", data)
	if code != 0 {
		t.Fatalf("solve: exit %d: %s", code, stderr)
	}
	var cases []awkwardCase
	for _, cmd := range []string{"eval", "predict"} {
		cases = append(cases, awkwardCase{name: cmd + " fifo SIGTERM", args: []string{cmd, "--model", "$D/m.json", "$D/pipe.csv"},
			files: map[string]string{"m.json": res}, fifos: []string{"pipe.csv"}, signal: syscall.SIGTERM, signalAt: []time.Duration{time.Second},
			code: 130, stderr: []string{"interrupted", "pipe.csv"}, limit: 1})
	}
	runAwkward(t, cases)
}

// TestAwkwardCLIExternal: the external SAT solver option as the help
// writes it, quotes included.
func TestAwkwardCLIExternal(t *testing.T) {
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat is not installed")
	}
	runAwkward(t, []awkwardCase{
		{name: "quoted external command", args: []string{"solve", "-q", "--backend", "sat-depth", "--opt", `sat-solver=external:"minisat {in} {out}"`, "$D/x.csv"},
			files: map[string]string{"x.csv": xorCSV}, code: 0, stdout: []string{"status:      feasible", "claimed:     bound 2 by external SAT solver", "depth 2"}},
		{name: "single-quoted external command", args: []string{"solve", "-q", "--backend", "sat-depth", "--opt", `sat-solver=external:'minisat {in} {out}'`, "--opt", "trust-solver=true", "$D/x.csv"},
			files: map[string]string{"x.csv": xorCSV}, code: 0, stdout: []string{"status:      optimal", "taken as proven"}},
	})
}

// The decode command an exported DIMACS header prints is the one that
// reads the solver's answer: run as printed (DATA and SOLVER_OUTPUT
// filled in) on minisat's answer, it decodes a model within the export's
// node limit.
func TestExportHeaderDecodeCommand(t *testing.T) {
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat is not installed")
	}
	dir := t.TempDir()
	data, cnf, sol := filepath.Join(dir, "x.csv"), filepath.Join(dir, "x.cnf"), filepath.Join(dir, "x.sol")
	if err := os.WriteFile(data, []byte(xorCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		backend string
		flags   []string
	}{
		{"sat-depth", []string{"--depth", "3", "--max-nodes", "6"}},
		{"sat-size", []string{"--depth", "3", "--max-nodes", "3"}},
		{"sat-depth", []string{"--depth", "2"}},
	} {
		args := append([]string{"export", "--to", "dimacs", "--backend", c.backend, "-o", cnf, data}, c.flags...)
		if _, stderr, code := odt(t, args...); code != 0 {
			t.Fatalf("odt %v: exit %d: %s", args, code, stderr)
		}
		exec.Command("minisat", cnf, sol).Run() // exits 10 for SAT
		header, err := os.ReadFile(cnf)
		if err != nil {
			t.Fatal(err)
		}
		var line string
		for _, l := range strings.Split(string(header), "\n") {
			if _, after, ok := strings.Cut(l, "decode a model with: "); ok {
				line = after
			}
		}
		words := strings.Fields(line)
		if len(words) < 3 || words[0] != "odt" {
			t.Fatalf("%s: no decode command in the header:\n%.1500s", c.backend, header)
		}
		for i, w := range words {
			words[i] = strings.NewReplacer("DATA", data, "SOLVER_OUTPUT", sol).Replace(w)
		}
		stdout, stderr, code := odt(t, append(words[1:], "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s %v: the header's command %q fails: exit %d: %s", c.backend, c.flags, line, code, stderr)
		}
		var res struct {
			Problem struct {
				MaxNodes int `json:"max_nodes"`
			} `json:"problem"`
			Status string          `json:"status"`
			Model  json.RawMessage `json:"model"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		want := 0
		for i, f := range c.flags {
			if f == "--max-nodes" {
				fmt.Sscan(c.flags[i+1], &want)
			}
		}
		if res.Problem.MaxNodes != want || res.Status != "feasible" || string(res.Model) == "null" {
			t.Fatalf("%s %v: decoded with max nodes %d, status %s, model %s; want max nodes %d, feasible and a model",
				c.backend, c.flags, res.Problem.MaxNodes, res.Status, res.Model, want)
		}
	}
}

// Two SIGTERMs in quick succession during a solve written to -o FILE:
// either the process quits at once (exit 130, no file, no temporary
// file) or the first stop was quicker and the file is whole; never a
// part of a file.
func TestSolveOutputTwoSignals(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(data, []byte(numericCSV(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	cmd, _, sc := startSolve(t, "--backend", "blossom", "--depth", "4", "--memory-limit", "1000", "-o", out, data)
	go func() {
		for sc.Scan() {
		}
	}()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Process.Signal(syscall.SIGTERM)
	code := exitCodeOf(t, cmd)
	noTemporary(t, dir)
	b, err := os.ReadFile(out)
	switch {
	case code == 130 && err == nil:
		t.Fatalf("exit 130 but %s was written: %.300s", out, b)
	case code == 130:
	case code == 0 && err == nil && json.Valid(b):
		t.Logf("the first stop finished before the second signal: a whole file")
	default:
		t.Fatalf("exit %d, file %v: %.300s", code, err, b)
	}
}
