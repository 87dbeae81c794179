// Package shared gives tests and benchmarks the shared benchmark
// folder, ../shared beside the repository root: where it is, whether the
// long suites run, and its reference tables read as rows of named columns.
//
// A fresh clone has no ../shared; a test that needs it is skipped with a
// plain message saying so.
package shared

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Dir returns the path of the shared folder, or skips tb when the folder
// (or the file or folder need inside it, when need is not empty) is
// absent. The folder is $ODTKIT_SHARED when set (a work tree kept
// elsewhere than beside the folder), else the one beside the module
// root, which is the nearest parent of the working directory that holds
// go.mod.
func Dir(tb testing.TB, need string) string {
	tb.Helper()
	if env := os.Getenv("ODTKIT_SHARED"); env != "" {
		if _, err := os.Stat(filepath.Join(env, need)); err != nil {
			tb.Skipf("$ODTKIT_SHARED has no %s", need)
		}
		return env
	}
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Skip("../shared not present: no go.mod above the working directory")
		}
		dir = up
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, need)); err != nil {
		tb.Skipf("../shared not present (looked for %s)", filepath.Join(shared, need))
	}
	return shared
}

// CakeLPRPath is the cake_lpr binary inside the shared folder.
const CakeLPRPath = "tools/cake_lpr/cake_lpr"

// CakeLPR returns the path of cake_lpr, the formally verified LRAT
// checker in the shared folder, or skips tb when it is absent.
func CakeLPR(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(Dir(tb, CakeLPRPath), CakeLPRPath)
}

// RunCakeLPR runs cake_lpr (checker, from CakeLPR) on a formula and a
// proof and returns what it printed; it fails tb when no answer comes
// within two minutes.
func RunCakeLPR(tb testing.TB, checker, cnf, proof string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, _ := exec.CommandContext(ctx, checker, cnf, proof).CombinedOutput()
	if ctx.Err() != nil {
		tb.Fatalf("cake_lpr %s: no answer in 2 minutes", filepath.Base(cnf))
	}
	return string(out)
}

// Long reports whether the long suites run: ODTKIT_LONG=1 and not -short.
func Long() bool { return os.Getenv("ODTKIT_LONG") == "1" && !testing.Short() }

// Row is one line of a reference table, by column name.
type Row map[string]string

// Int is the column's whole number; ok is false when it is not one (such
// as "-" or ">300").
func (r Row) Int(col string) (n int, ok bool) {
	n, err := strconv.Atoi(r[col])
	return n, err == nil
}

// Float is the column's number; ok is false when it is not one.
func (r Row) Float(col string) (x float64, ok bool) {
	x, err := strconv.ParseFloat(r[col], 64)
	return x, err == nil
}

// Table reads the tab-separated table at rel inside the shared folder
// (skipping tb when it is absent): lines starting with '#' and blank lines
// are comments, the first other line names the columns. Trailing columns
// may be left off a line (they read as ""); a line with more fields than
// the header fails tb.
func Table(tb testing.TB, rel string) []Row {
	tb.Helper()
	path := filepath.Join(Dir(tb, rel), rel)
	rows, err := readTable(path)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

func readTable(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var header []string
	var rows []Row
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if header == nil {
			header = fields
			continue
		}
		if len(fields) > len(header) {
			return nil, fmt.Errorf("%s:%d: %d fields, the header has %d", path, line, len(fields), len(header))
		}
		r := make(Row, len(header))
		for i, f := range fields {
			r[header[i]] = f
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	return rows, nil
}

// RunPeer runs a reference solver's binary with args in dir (empty: the
// working directory), kills it after timeout, and returns its standard
// output and CPU seconds (the child's user + system time). Errors name
// the peer and say whether it was killed.
func RunPeer(timeout time.Duration, dir, bin string, args ...string) ([]byte, float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	name := filepath.Base(bin)
	if ctx.Err() != nil {
		return nil, 0, fmt.Errorf("%s %s: killed, not finished within %v", name, strings.Join(args, " "), timeout)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	ps := cmd.ProcessState
	return out, (ps.UserTime() + ps.SystemTime()).Seconds(), nil
}

// PeerTimeout is the limit for one run of a reference solver: the Go
// duration in ODTKIT_PEER_TIMEOUT, or def; a malformed value fails tb.
func PeerTimeout(tb testing.TB, def time.Duration) time.Duration {
	tb.Helper()
	s := os.Getenv("ODTKIT_PEER_TIMEOUT")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		tb.Fatalf("ODTKIT_PEER_TIMEOUT=%q: %v", s, err)
	}
	return d
}
