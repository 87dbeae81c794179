package lrat_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// refutation is an Unsatisfiable answer: its assumptions and the log ID
// of the clause refuting them.
type refutation struct {
	assumptions []sat.Lit
	id          int64
}

// solveRandom runs odtkit's CDCL with a proof on a random formula of
// vars variables and about clauses clauses, incrementally: clauses come
// in three parts with solves under random assumptions between them, and
// each refuted call's negated assumptions are added back as a lemma. It
// returns the proof's files and the refutations.
func solveRandom(t *testing.T, seed uint64, vars, clauses int) (*sat.ProofFiles, []refutation) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	s := sat.NewCDCL()
	if err := s.StartProof(filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	lit := func() sat.Lit {
		l := sat.Lit(rng.IntN(vars) + 1)
		if rng.IntN(2) == 0 {
			return -l
		}
		return l
	}
	var refs []refutation
	for range 3 {
		for range clauses / 3 {
			c := make([]sat.Lit, 1+rng.IntN(4))
			for i := range c {
				c[i] = lit()
			}
			s.AddClause(c...)
		}
		for range 4 {
			as := make([]sat.Lit, rng.IntN(4))
			for i := range as {
				as[i] = lit()
			}
			st, err := s.Solve(context.Background(), as...)
			if err != nil {
				t.Fatal(err)
			}
			if st != sat.Unsatisfiable {
				continue
			}
			id, clause, ok := s.Refutation()
			if !ok {
				t.Fatalf("seed %d: Unsatisfiable without a refutation", seed)
			}
			for _, l := range clause {
				if !slices.Contains(as, -l) {
					t.Fatalf("seed %d: refutation %v has %d, which negates no assumption of %v", seed, clause, l, as)
				}
			}
			refs = append(refs, refutation{as, id})
			if len(as) > 0 && rng.IntN(2) == 0 {
				neg := make([]sat.Lit, len(as))
				for i, a := range as {
					neg[i] = -a
				}
				s.AddLemma(neg...)
			}
		}
	}
	files, err := s.EndProof(filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.lrat"))
	if err != nil {
		t.Fatal(err)
	}
	return files, refs
}

// checkRandom checks the proof of solveRandom and that its corruptions
// are refused.
func checkRandom(t *testing.T, seed uint64, vars, clauses int) {
	files, refs := solveRandom(t, seed, vars, clauses)
	c, err := lrat.CheckFiles(context.Background(), files.Formula, files.Proof)
	if err != nil {
		t.Fatalf("seed %d: the solver's proof is refused: %v", seed, err)
	}
	for _, r := range refs {
		if r.id == 0 {
			// Contradictory assumptions: no clause refutes them.
			if !slices.ContainsFunc(r.assumptions, func(a sat.Lit) bool { return slices.Contains(r.assumptions, -a) }) {
				t.Fatalf("seed %d: a refutation without a clause of consistent assumptions %v", seed, r.assumptions)
			}
			continue
		}
		cl, ok := c.Clause(files.ID(r.id))
		if !ok {
			t.Fatalf("seed %d: refutation %d not in the checked proof", seed, r.id)
		}
		for _, l := range cl {
			if !slices.Contains(r.assumptions, -sat.Lit(l)) {
				t.Fatalf("seed %d: checked refutation %v has %d, which negates no assumption of %v", seed, cl, l, r.assumptions)
			}
		}
	}
	lines := readLines(t, files.Proof)
	var steps []int // the lines a corruption is tried on: additions with two hints or more
	for i, ln := range lines {
		if st, err := lrat.ParseStep(ln); err == nil && !st.Delete && len(st.Lits) > 0 && len(st.Hints) >= 2 {
			steps = append(steps, i)
		}
	}
	for k := 0; k < len(steps); k += max(1, len(steps)/4) {
		i := steps[k]
		st, _ := lrat.ParseStep(lines[i])
		// Drop the step's last hint (its conflict), then one in the
		// middle, then negate its first literal: each must be refused at
		// that line.
		mid := len(st.Hints) / 2
		for _, v := range []lrat.Step{
			{ID: st.ID, Lits: st.Lits, Hints: st.Hints[:len(st.Hints)-1]},
			{ID: st.ID, Lits: st.Lits, Hints: slices.Delete(slices.Clone(st.Hints), mid, mid+1)},
			{ID: st.ID, Lits: append([]int{-st.Lits[0]}, st.Lits[1:]...), Hints: st.Hints},
		} {
			bad := slices.Clone(lines)
			bad[i] = v.String()
			path := files.Proof + ".bad"
			if err := os.WriteFile(path, []byte(strings.Join(bad, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := lrat.CheckFiles(context.Background(), files.Formula, path)
			var se *lrat.StepError
			if !errors.As(err, &se) || se.Line != i+1 {
				t.Fatalf("seed %d: line %d changed to %q: want a refusal of line %d, got %v", seed, i+1, bad[i], i+1, err)
			}
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestSolverProofs checks odtkit's CDCL's proofs on random incremental
// formulas with assumptions, and that corrupted copies are refused.
func TestSolverProofs(t *testing.T) {
	unsat := 0
	for seed := range uint64(150) {
		vars := 4 + int(seed%12)
		checkRandom(t, seed, vars, 3*vars+int(seed%20))
		if _, refs := solveRandom(t, seed, vars, 3*vars+int(seed%20)); len(refs) > 0 {
			unsat++
		}
	}
	if unsat < 50 {
		t.Fatalf("only %d of 150 formulas had a refutation: the test checks too little", unsat)
	}
}

// FuzzSolverProofs is TestSolverProofs on the fuzzer's formulas.
func FuzzSolverProofs(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(5+seed), uint8(20+4*seed))
	}
	f.Fuzz(func(t *testing.T, seed uint64, vars, clauses uint8) {
		checkRandom(t, seed, 3+int(vars%20), 3+int(clauses%90))
	})
}
