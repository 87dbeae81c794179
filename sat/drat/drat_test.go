package drat_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/internal/memcap"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/drat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// formula is a CNF in DIMACS text.
func dimacs(vars int, clauses [][]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "p cnf %d %d\n", vars, len(clauses))
	for _, c := range clauses {
		for _, l := range c {
			fmt.Fprintf(&b, "%d ", l)
		}
		b.WriteString("0\n")
	}
	return b.String()
}

// random3SAT is a random 3-CNF of vars variables and ratio·vars clauses.
func random3SAT(rng *rand.Rand, vars int, ratio float64) [][]int {
	var cs [][]int
	for range int(ratio * float64(vars)) {
		c := make([]int, 3)
		for i := range c {
			c[i] = rng.IntN(vars) + 1
			if rng.IntN(2) == 0 {
				c[i] = -c[i]
			}
		}
		cs = append(cs, c)
	}
	return cs
}

// pigeons is the pigeonhole formula of n+1 pigeons in n holes.
func pigeons(n int) (int, [][]int) {
	v := func(p, h int) int { return p*n + h + 1 }
	var cs [][]int
	for p := 0; p <= n; p++ {
		c := make([]int, n)
		for h := range n {
			c[h] = v(p, h)
		}
		cs = append(cs, c)
	}
	for h := range n {
		for p := 0; p <= n; p++ {
			for q := p + 1; q <= n; q++ {
				cs = append(cs, []int{-v(p, h), -v(q, h)})
			}
		}
	}
	return (n + 1) * n, cs
}

// cdclDRAT refutes the formula with odtkit's CDCL and turns its LRAT
// proof into DRAT (text): the lemmas without their hints, the deletions
// by literals. ok is false when the formula is satisfiable.
func cdclDRAT(t testing.TB, vars int, cs [][]int) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	s := sat.NewCDCL()
	if err := s.StartProof(filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		ls := make([]sat.Lit, len(c))
		for i, l := range c {
			ls[i] = sat.Lit(l)
		}
		s.AddClause(ls...)
	}
	st, err := s.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st != sat.Unsatisfiable {
		s.EndProof(filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.lrat"))
		return "", false
	}
	files, err := s.EndProof(filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.lrat"))
	if err != nil {
		t.Fatal(err)
	}
	// The proof's formula is the clauses as the CDCL logged them: read
	// it back so that the IDs match.
	f, err := lrat.ReadFormula(files.Formula)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64][]int{}
	for id := int64(1); id <= f.Inputs(); id++ {
		byID[id], _ = f.Clause(id)
	}
	proof, err := os.ReadFile(files.Proof)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for line := range strings.Lines(string(proof)) {
		w := strings.Fields(line)
		if len(w) == 0 || w[0] == "c" {
			continue
		}
		if w[1] == "d" {
			for _, x := range w[2 : len(w)-1] {
				id, _ := strconv.ParseInt(x, 10, 64)
				out.WriteString("d ")
				for _, l := range byID[id] {
					fmt.Fprintf(&out, "%d ", l)
				}
				out.WriteString("0\n")
			}
			continue
		}
		id, _ := strconv.ParseInt(w[0], 10, 64)
		var lits []int
		for _, x := range w[1:] {
			l, _ := strconv.Atoi(x)
			if l == 0 {
				break
			}
			lits = append(lits, l)
		}
		byID[id] = lits
		for _, l := range lits {
			fmt.Fprintf(&out, "%d ", l)
		}
		out.WriteString("0\n")
	}
	// The formula file must be what Elaborate and the check read.
	cnf, err := os.ReadFile(files.Formula)
	if err != nil {
		t.Fatal(err)
	}
	return string(cnf) + "\x00" + out.String(), true
}

// toBinary writes a text DRAT proof in the binary format.
func toBinary(text string) []byte {
	var b []byte
	for line := range strings.Lines(text) {
		w := strings.Fields(line)
		if len(w) == 0 {
			continue
		}
		if w[0] == "d" {
			b = append(b, 'd')
			w = w[1:]
		} else {
			b = append(b, 'a')
		}
		for _, x := range w {
			l, _ := strconv.Atoi(x)
			u := uint64(2 * l)
			if l < 0 {
				u = uint64(-2*l) + 1
			}
			for u >= 0x80 {
				b = append(b, byte(u)|0x80)
				u >>= 7
			}
			b = append(b, byte(u))
		}
	}
	return b
}

// elaborate runs Elaborate on a formula and proof and checks the LRAT
// proof it writes with package lrat.
func elaborate(t testing.TB, cnf string, proof []byte) (drat.Stats, error) {
	t.Helper()
	return elaborateWith(t, cnf, proof, drat.Options{TempDir: t.TempDir()})
}

// elaborateWith is elaborate with options.
func elaborateWith(t testing.TB, cnf string, proof []byte, opt drat.Options) (drat.Stats, error) {
	t.Helper()
	f, err := lrat.ReadDIMACS(strings.NewReader(cnf), "f.cnf")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	st, err := drat.Elaborate(context.Background(), f, bytes.NewReader(proof), "f.drat", &out, opt)
	if err != nil {
		return st, err
	}
	if err := f.Check(context.Background(), &out, "f.lrat"); err != nil {
		t.Fatalf("the elaborated LRAT proof does not check: %v", err)
	}
	if !f.Refuted() {
		t.Fatal("the elaborated LRAT proof derives no empty clause")
	}
	return st, nil
}

// TestElaborateCDCLProofs elaborates the proofs of odtkit's CDCL on
// random unsatisfiable 3-CNFs and pigeonhole formulas, in text and in
// binary, and checks the LRAT proofs with package lrat.
func TestElaborateCDCLProofs(t *testing.T) {
	type inst struct {
		name string
		vars int
		cs   [][]int
	}
	var insts []inst
	for n := 3; n <= 6; n++ {
		v, cs := pigeons(n)
		insts = append(insts, inst{fmt.Sprintf("php%d", n), v, cs})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		v := 20 + rng.IntN(50)
		insts = append(insts, inst{fmt.Sprintf("random%d", i), v, random3SAT(rng, v, 5.5)})
	}
	refuted := 0
	for _, in := range insts {
		both, ok := cdclDRAT(t, in.vars, in.cs)
		if !ok {
			continue
		}
		refuted++
		cnf, text, _ := strings.Cut(both, "\x00")
		for _, form := range []struct {
			name  string
			proof []byte
			opt   drat.Options
		}{
			{"text", []byte(text), drat.Options{}},
			{"binary", toBinary(text), drat.Options{}},
			{"text, compacting", []byte(text), drat.WithCompaction(drat.Options{})},
		} {
			form.opt.TempDir = t.TempDir()
			st, err := elaborateWith(t, cnf, form.proof, form.opt)
			if err != nil {
				t.Fatalf("%s (%s): %v", in.name, form.name, err)
			}
			if st.Binary != strings.HasPrefix(form.name, "binary") {
				t.Errorf("%s (%s): read as binary = %v", in.name, form.name, st.Binary)
			}
			if (st.Compactions > 0) != (strings.HasSuffix(form.name, "compacting") && st.Deleted > 0) {
				t.Errorf("%s (%s): %d compactions with %d deletions", in.name, form.name, st.Compactions, st.Deleted)
			}
			if st.Kept < 1 || st.Kept > st.Added+1 {
				t.Errorf("%s (%s): %d lemmas kept of %d", in.name, form.name, st.Kept, st.Added)
			}
		}
	}
	if refuted < 20 {
		t.Fatalf("only %d of %d formulas refuted: the test checks too little", refuted, len(insts))
	}
}

// TestElaborateRefusals checks that a wrong or incomplete proof is
// refused, naming the step, and which deletions are ignored.
func TestElaborateRefusals(t *testing.T) {
	// (1 ∨ 2), (1 ∨ ¬2), (¬1 ∨ 3), (¬1 ∨ ¬3): lemma 1, then the empty
	// clause by propagation.
	small := dimacs(3, [][]int{{1, 2}, {1, -2}, {-1, 3}, {-1, -3}})
	// Units 1 and 2 at the top level; lemma 3, then the empty clause.
	units := dimacs(4, [][]int{{1}, {-1, 2}, {-2, 3, 4}, {-2, 3, -4}, {-2, -3, 4}, {-2, -3, -4}, {4, 1}})
	v, cs := pigeons(3)
	php := dimacs(v, cs)
	for _, tc := range []struct {
		name, cnf, proof string
		want             string // error text ("" none)
		ignored          int64
	}{
		{"good", small, "1 0\n", "", 0},
		{"good with the empty clause", small, "1 0\n0\n", "", 0},
		{"comments and blank lines", small, "c learnt\n\n1 0\nc end\n", "", 0},
		{"deleting a missing clause", small, "d 2 3 0\n1 0\n", "", 1},
		{"a deleted reason is kept", units, "d -1 2 0\n3 0\n", "", 1},
		{"a deletion carried out", units, "d 1 4 0\n3 0\n", "", 0},
		{"not implied", php, "c one\n1 0\n", "f.drat: line 2: lemma 1 [1] does not follow", 0},
		{"no refutation", php, "", "does not derive the empty clause", 0},
		{"garbage", small, "1 x 0\n", "line 1: unexpected character 'x'", 0},
		{"cut short", small, "1", "the last step has no terminating 0", 0},
		{"lone minus", small, "- 0\n", "a lone '-'", 0},
	} {
		st, err := elaborate(t, tc.cnf, []byte(tc.proof))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		case tc.want != "" && !errors.Is(err, lrat.ErrRefused) && !errors.Is(err, drat.ErrNoRefutation):
			t.Errorf("%s: %v is neither a refusal nor ErrNoRefutation", tc.name, err)
		case tc.want == "" && st.Ignored != tc.ignored:
			t.Errorf("%s: %d deletions ignored, want %d", tc.name, st.Ignored, tc.ignored)
		}
	}
	// Binary: an unknown step byte and a step cut short name the byte.
	for _, tc := range []struct {
		proof []byte
		want  string
	}{
		{[]byte{'d', 2, 0, 'x', 2, 0}, "byte 3: a binary step starts with 'a' or 'd'"},
		{[]byte{'a', 2}, "byte 0: the step is cut short"},
	} {
		if _, err := elaborate(t, php, tc.proof); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("binary %v: got %v, want %q", tc.proof, err, tc.want)
		}
	}
}

// TestElaborateTopLevel checks the proofs that rest on the top level
// alone: a formula refuted by unit propagation with an empty proof, a
// formula holding the empty clause, and a lemma whose literal the top
// level makes true (its hints are the derivation of that literal).
func TestElaborateTopLevel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cnf   string
		proof string
	}{
		{"units", dimacs(2, [][]int{{1}, {-1, 2}, {-2}}), ""},
		{"empty clause", "p cnf 1 2\n1 0\n0\n", ""},
		{"true at the top", dimacs(4, [][]int{{1}, {-1, 2}, {3, 4}, {3, -4}, {-3, -2}}), "2 3 0\n3 0\n"},
	} {
		if _, err := elaborate(t, tc.cnf, []byte(tc.proof)); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// php6 is the pigeonhole formula of 7 pigeons and its DRAT proof (text)
// from odtkit's CDCL.
func php6(t *testing.T) (cnf, proof string) {
	t.Helper()
	v, cs := pigeons(6)
	both, ok := cdclDRAT(t, v, cs)
	if !ok {
		t.Fatal("php6 satisfiable")
	}
	cnf, proof, _ = strings.Cut(both, "\x00")
	return cnf, proof
}

// TestElaborateContext checks that a cancelled context stops the
// elaboration with its cause.
func TestElaborateContext(t *testing.T) {
	cnf, text := php6(t)
	f, _ := lrat.ReadDIMACS(strings.NewReader(cnf), "f.cnf")
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped by the test")
	cancel(stop)
	_, err := drat.Elaborate(ctx, f, strings.NewReader(text), "f.drat", &bytes.Buffer{}, drat.Options{TempDir: t.TempDir()})
	if !errors.Is(err, stop) {
		t.Fatalf("got %v, want the context's cause", err)
	}
}

// TestElaborateMemoryCap: past its memory cap elaboration stops with an
// error wrapping the cap's; under it the same proof is elaborated.
func TestElaborateMemoryCap(t *testing.T) {
	cnf, text := php6(t)
	for _, c := range []struct {
		max  int64
		fail bool
	}{{16 << 10, true}, {64 << 20, false}} {
		f, _ := lrat.ReadDIMACS(strings.NewReader(cnf), "f.cnf")
		_, err := drat.Elaborate(context.Background(), f, strings.NewReader(text), "f.drat", &bytes.Buffer{}, drat.Options{TempDir: t.TempDir(), MaxBytes: c.max})
		if got := errors.Is(err, memcap.ErrLimit); got != c.fail || (!c.fail && err != nil) {
			t.Errorf("cap %d bytes: %v", c.max, err)
		}
	}
}

// FuzzElaborate feeds arbitrary proofs of the pigeonhole formula of 4
// pigeons: Elaborate must never panic, and whenever it accepts a proof
// the LRAT proof it writes must check (elaborateWith fails the test
// otherwise).
func FuzzElaborate(f *testing.F) {
	v, cs := pigeons(3)
	cnf := dimacs(v, cs)
	both, ok := cdclDRAT(f, v, cs)
	if !ok {
		f.Fatal("php3 satisfiable")
	}
	_, text, _ := strings.Cut(both, "\x00")
	f.Add([]byte(text))
	f.Add(toBinary(text))
	f.Add([]byte("1 0\n"))
	f.Add([]byte("-1 -4 0\nd 1 2 3 0\n0\n"))
	f.Fuzz(func(t *testing.T, proof []byte) {
		opt := drat.Options{TempDir: t.TempDir()}
		if len(proof)%2 == 1 {
			opt = drat.WithCompaction(opt) // half the inputs compact at every deletion
		}
		elaborateWith(t, cnf, proof, opt)
	})
}
