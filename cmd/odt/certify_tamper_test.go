package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odtkit/odtkit/internal/shared"
)

// certified solves with --certify into a new directory and returns it.
func certified(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cert")
	_, errOut, code := odt(t, append([]string{"solve", "-q", "--certify", dir}, args...)...)
	if code != 0 {
		t.Fatalf("solve --certify: exit %d: %s", code, errOut)
	}
	return dir
}

// copyDir copies a certificate directory into a new one.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// editIndex rewrites dir's index.json through edit (on its generic
// JSON form).
func editIndex(t *testing.T, dir string, edit func(x map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, "index.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var x map[string]any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	edit(x)
	if b, err = json.Marshal(x); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func proofOf(x map[string]any, i int) map[string]any {
	return x["proofs"].([]any)[i].(map[string]any)
}

func refutationOf(x map[string]any) map[string]any {
	return proofOf(x, 0)["refutations"].([]any)[0].(map[string]any)
}

// appendFile adds text to the end of a file of dir.
func appendFile(t *testing.T, dir, name, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// lastID is the ID of the last step of a proof file.
func lastID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	id, err := strconv.Atoi(strings.Fields(lines[len(lines)-1])[0])
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// cnfHeader returns the variables and clauses of a DIMACS file and its
// text with the header replaced by vars and clauses+extra.
func cnfHeader(t *testing.T, path string, extra int) (int, int, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, ln := range lines {
		if f := strings.Fields(ln); len(f) == 4 && f[0] == "p" {
			v, _ := strconv.Atoi(f[2])
			m, _ := strconv.Atoi(f[3])
			lines[i] = fmt.Sprintf("p cnf %d %d", v, m+extra)
			return v, m, strings.Join(lines, "\n")
		}
	}
	t.Fatalf("%s: no header", path)
	return 0, 0, ""
}

// TestCertifyTampered: a genuine certificate of vote at depth 2 (17
// errors) and of monk1's least depth (5), changed as a sceptic would, is
// refused by odt certify with exit 1 and a message naming what does not
// match.
func TestCertifyTampered(t *testing.T) {
	vote, monk := "../../testdata/vote.txt", "../../testdata/monk1.csv"
	good := certified(t, "--backend", "sat-odt", "--depth", "2", vote)
	goodDepth := certified(t, "--backend", "sat-depth", monk)
	if out, errOut, code := odt(t, "certify", good, vote); code != 0 || !strings.Contains(out, "fewer than 17 errors") {
		t.Fatalf("genuine certificate: exit %d: %s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		name   string
		base   string
		data   string
		tamper func(t *testing.T, dir string)
		want   string
	}{
		{"bound raised", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				x["claim"].(map[string]any)["bound"] = 18
				x["statement"] = "no tree of depth at most 2 makes fewer than 18 errors (weighted)"
			})
		}, `the index claims "no tree of depth at most 2 makes fewer than 18 errors (weighted)", the data and the proofs prove "no tree of depth at most 2 makes fewer than 17 errors`},
		{"depth bound raised", goodDepth, monk, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) { x["claim"].(map[string]any)["bound"] = 6 })
		}, `the data and the proofs prove "no tree of depth below 5`},
		{"refutation bound raised", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				refutationOf(x)["bound"] = 18
				x["claim"].(map[string]any)["bound"] = 18
			})
		}, "refutation of bound 18: assumptions [-"},
		{"formula replaced", good, vote, func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "formula.cnf"), []byte("p cnf 1 1\n1 0\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "formula.lrat"), []byte("2 1 0 1 0\n"), 0o644)
			editIndex(t, dir, func(x map[string]any) {
				r := refutationOf(x)
				r["assumptions"], r["clause"], r["bound"] = []int{-1}, 2, 30
				x["claim"].(map[string]any)["bound"] = 30
			})
		}, "formula.cnf: clause 1 (1 0) is not a clause the encoder makes for the recorded problem"},
		{"unit clause added", good, vote, func(t *testing.T, dir string) {
			path := filepath.Join(dir, "formula.cnf")
			_, m, text := cnfHeader(t, path, 1)
			var as int
			editIndex(t, dir, func(x map[string]any) {
				r := refutationOf(x)
				as = int(r["assumptions"].([]any)[0].(float64))
				id := lastID(t, filepath.Join(dir, "formula.lrat")) + 2
				r["clause"], r["bound"] = id, 19
				x["claim"].(map[string]any)["bound"] = 19
			})
			os.WriteFile(path, []byte(text+fmt.Sprintf("%d 0\n", -as)), 0o644)
			// The proof's IDs start after the formula's: one more input
			// clause takes the first derived one's; the appended step is
			// past them all.
			appendFile(t, dir, "formula.lrat", fmt.Sprintf("%d %d 0 %d 0\n", lastID(t, filepath.Join(dir, "formula.lrat"))+2, -as, m+1))
		}, "is not a clause the encoder makes"},
		{"no proofs", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				x["proofs"] = []any{}
				x["claim"].(map[string]any)["bound"] = 100
			})
		}, `the data and the proofs prove "no tree of depth at most 2 makes fewer than 0 errors`},
		{"no refutations", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				proofOf(x, 0)["refutations"] = []any{}
				x["claim"].(map[string]any)["bound"] = 100
			})
		}, `proof "formula" refutes nothing`},
		{"tautology with contradictory assumptions", good, vote, func(t *testing.T, dir string) {
			var as int
			editIndex(t, dir, func(x map[string]any) {
				r := refutationOf(x)
				as = int(r["assumptions"].([]any)[0].(float64))
				id := lastID(t, filepath.Join(dir, "formula.lrat")) + 1
				r["assumptions"], r["clause"], r["bound"] = []int{as, -as}, id, 50
				x["claim"].(map[string]any)["bound"] = 50
			})
			appendFile(t, dir, "formula.lrat", fmt.Sprintf("%d %d %d 0 0\n", lastID(t, filepath.Join(dir, "formula.lrat"))+1, -as, as))
		}, "(a tautology is no lemma)"},
		{"data hash changed", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				x["data"].(map[string]any)["sha256"] = strings.Repeat("0", 64)
			})
		}, "the certificate's data ../../testdata/vote.txt has 42630 bytes with SHA-256 000000"},
		{"backend changed", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) { x["problem"].(map[string]any)["backend"] = "bogus" })
		}, `the index names backend "bogus"`},
		{"depth changed", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				x["problem"].(map[string]any)["problem"].(map[string]any)["max_depth"] = 3
			})
		}, `proof "formula": counter cap 19 is outside 1..14 (the incumbent's error)`},
		{"per-root changed", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				x["problem"].(map[string]any)["options"].(map[string]any)["per-root"] = "false"
			})
		}, "is not a clause the encoder makes"},
		{"option changed", good, vote, func(t *testing.T, dir string) {
			editIndex(t, dir, func(x map[string]any) {
				x["problem"].(map[string]any)["options"].(map[string]any)["counter"] = "rows"
			})
		}, "is not a clause the encoder makes"},
		{"other data", good, "", func(t *testing.T, dir string) {}, "the certificate's data ../../testdata/vote.txt has 42630 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if data == "" {
				data = filepath.Join(shared.Dir(t, "data/cp4im/hepatitis.txt"), "data/cp4im/hepatitis.txt")
			}
			dir := copyDir(t, tc.base)
			tc.tamper(t, dir)
			out, errOut, code := odt(t, "certify", dir, data)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, %s%s; want exit 1 saying %q", code, out, errOut, tc.want)
			}
		})
	}
}

// TestCertifyHostileFiles: files that are not regular, ID gaps and huge
// lines are refused at once.
func TestCertifyHostileFiles(t *testing.T) {
	vote := "../../testdata/vote.txt"
	good := certified(t, "--backend", "sat-odt", "--depth", "2", vote)
	t.Run("pipe", func(t *testing.T) {
		dir := copyDir(t, good)
		os.Remove(filepath.Join(dir, "formula.lrat"))
		if err := syscall.Mkfifo(filepath.Join(dir, "formula.lrat"), 0o644); err != nil {
			t.Skipf("no named pipes: %v", err)
		}
		start := time.Now()
		_, errOut, code := odt(t, "certify", dir, vote)
		if code != 1 || !strings.Contains(errOut, "not a regular file") || time.Since(start) > 30*time.Second {
			t.Fatalf("exit %d after %v: %s", code, time.Since(start), errOut)
		}
	})
	t.Run("device", func(t *testing.T) {
		dir := copyDir(t, good)
		os.Remove(filepath.Join(dir, "formula.cnf"))
		if err := os.Symlink("/dev/zero", filepath.Join(dir, "formula.cnf")); err != nil {
			t.Skip(err)
		}
		_, errOut, code := odt(t, "certify", dir, vote)
		if code != 1 || !strings.Contains(errOut, "not a regular file") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("id gaps", func(t *testing.T) {
		// Four tautologies whose IDs jump by 2^24: 72 bytes.
		dir := copyDir(t, good)
		var b strings.Builder
		for i := 1; i <= 4; i++ {
			fmt.Fprintf(&b, "%d 1 -1 0 0\n", i<<24)
		}
		os.WriteFile(filepath.Join(dir, "formula.lrat"), []byte(b.String()), 0o644)
		start := time.Now()
		_, errOut, code := odt(t, "certify", dir, vote)
		if code != 1 || !strings.Contains(errOut, "tautology") || time.Since(start) > 30*time.Second {
			t.Fatalf("exit %d after %v: %s", code, time.Since(start), errOut)
		}
	})
	t.Run("time limit", func(t *testing.T) {
		_, errOut, code := odt(t, "certify", "--time-limit", "1ns", good, vote)
		if code != 1 || !strings.Contains(errOut, "not certified: the check was stopped by the time limit (1ns)") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("long line", func(t *testing.T) {
		dir := copyDir(t, good)
		f, err := os.Create(filepath.Join(dir, "formula.lrat"))
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Repeat("1 ", 1<<20)
		for range 20 {
			f.WriteString(line)
		}
		f.Close()
		_, errOut, code := odt(t, "certify", dir, vote)
		if code != 1 || !strings.Contains(errOut, "a line longer than") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}

// TestCertifyInterrupted: SIGINT while a certified solve of hepatitis at
// depth 3 writes or checks its proof (a window of about a second from
// the moment its formula file appears) prints the tree found, status
// cancelled, not optimal and not certified, exits 0 soon after the
// signal, and leaves no certificate directory, partial or not.
func TestCertifyInterrupted(t *testing.T) {
	data := filepath.Join(shared.Dir(t, "data/cp4im/hepatitis.txt"), "data/cp4im/hepatitis.txt")
	root := t.TempDir()
	dir := filepath.Join(root, "cert")
	cmd := exec.Command(odtBin, "solve", "-q", "--format", "json", "--backend", "sat-odt", "--depth", "3", "--certify", dir, data)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(5 * time.Minute)
	var sent time.Time
poll:
	for {
		select {
		case err := <-done:
			t.Fatalf("the solve ended (%v) before its proof was written: %s", err, errb.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("no proof file after 5 minutes")
		case <-time.After(5 * time.Millisecond):
			if m, _ := filepath.Glob(filepath.Join(root, ".cert.part-*", "formula.cnf")); len(m) > 0 {
				cmd.Process.Signal(syscall.SIGINT)
				sent = time.Now()
				break poll
			}
		}
	}
	err := <-done
	took := time.Since(sent)
	if err != nil {
		t.Fatalf("exit %v: %s", err, errb.String())
	}
	t.Logf("stopped %v after the signal", took)
	if took > 5*time.Second {
		t.Errorf("the solve took %v to stop after the signal", took)
	}
	var res struct {
		Status    string          `json:"status"`
		Optimal   bool            `json:"optimal"`
		Certified bool            `json:"certified"`
		Model     json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if res.Status != "cancelled" || res.Optimal || res.Certified || len(res.Model) == 0 {
		t.Fatalf("status %s, optimal %v, certified %v, model %s", res.Status, res.Optimal, res.Certified, res.Model)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}
