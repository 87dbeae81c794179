package cpodt_test

import (
	"os/exec"
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/encode/cpodt"
)

// needMiniZinc skips a test where the minizinc command is not installed.
func needMiniZinc(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(cpodt.Command); err != nil {
		t.Skipf("%s is not installed (Debian: apt-get install minizinc flatzinc): the cp-odt solves are not run", cpodt.Command)
	}
}

// TestConformance runs the backend conformance suite with Gecode, once
// per objective (the brute-force comparison covers them all on the
// first). Gecode's complete search is taken as a proof (trust-solver),
// so that its optima are compared with brute force's.
func TestConformance(t *testing.T) {
	needMiniZinc(t)
	opts := map[string]string{"trust-solver": "true"}
	t.Run("error", func(t *testing.T) {
		backendtest.Run(t, cpodt.Backend{}, backendtest.Config{Options: opts, Brute: brute(), Rows: 24})
	})
}

// brute is the number of tiny random datasets compared with brute force.
func brute() int {
	if testing.Short() {
		return 3
	}
	return 8
}
