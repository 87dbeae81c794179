package sat

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// randomCNF makes a random 3-SAT formula with groups and comments.
func randomCNF(rng *rand.Rand, nv, nc int) *CNF {
	c := &CNF{Comments: []string{"random formula", "second line"}}
	c.NewGroup("A", "A[i][j]: a matrix", 2, 3)
	c.NewGroup("B", "flat", nv-6)
	for range nc {
		c.Add(random3Clause(rng, nv)...)
	}
	return c
}

// random3Clause is a clause of three distinct variables of 1..nv, each
// negated with probability 1/2.
func random3Clause(rng *rand.Rand, nv int) []Lit {
	var cl []Lit
	for len(cl) < 3 {
		l := Lit(1 + rng.IntN(nv))
		if slices.Contains(cl, l) || slices.Contains(cl, -l) {
			continue
		}
		if rng.IntN(2) == 0 {
			l = -l
		}
		cl = append(cl, l)
	}
	return cl
}

func sameCNF(t *testing.T, a, b *CNF) {
	t.Helper()
	if a.NumVars != b.NumVars || a.NumClauses() != b.NumClauses() {
		t.Fatalf("vars %d/%d clauses %d/%d", a.NumVars, b.NumVars, a.NumClauses(), b.NumClauses())
	}
	for i := range a.NumClauses() {
		if !slices.Equal(a.Clause(i), b.Clause(i)) {
			t.Fatalf("clause %d: %v vs %v", i, a.Clause(i), b.Clause(i))
		}
	}
	if len(a.Groups) != len(b.Groups) {
		t.Fatalf("groups %v vs %v", a.Groups, b.Groups)
	}
	for i := range a.Groups {
		ga, gb := a.Groups[i], b.Groups[i]
		if ga.Name != gb.Name || ga.First != gb.First || ga.Count != gb.Count || ga.Meaning != gb.Meaning || !slices.Equal(ga.Shape, gb.Shape) {
			t.Fatalf("group %d: %+v vs %+v", i, ga, gb)
		}
	}
}

func TestDIMACSRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		c := randomCNF(rng, 8+rng.IntN(20), rng.IntN(60))
		c.Add() // the empty clause survives too
		var buf bytes.Buffer
		if err := c.WriteDIMACS(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadDIMACS(&buf)
		if err != nil {
			t.Fatal(err)
		}
		sameCNF(t, c, back)
		if !slices.Equal(back.Comments, c.Comments) {
			t.Fatalf("comments %q vs %q", back.Comments, c.Comments)
		}
		if g, _ := back.Group("A"); g.Lit(1, 2) != Lit(g.First+5) {
			t.Fatal("group indexing")
		}
	}
}

func TestDIMACSErrors(t *testing.T) {
	cases := map[string]string{
		"1 2 0\n":                           "line 1: clause before the problem line",
		"p cnf 2 1\n1 3 0\n":                "line 2: literal 3 out of range",
		"p cnf 2 1\n1 x 0\n":                "line 2: \"x\" is not an integer",
		"p cnf 2 2\n1 2 0\n":                "1 clauses, 2 declared",
		"p cnf 2 1\n1 2 0\n-1 0\n":          "line 3: more clauses than the 1 declared",
		"p cnf 2 1\n1 2\n":                  "not terminated by 0",
		"p cnf 2\n":                         "line 1: problem line",
		"p cnf 2 1\np cnf 2 1\n":            "line 2: second problem line",
		"c only comments\n":                 "no problem line",
		"p cnf -1 0\n":                      "non-negative",
		"c var F 1..4 3x2 m\np cnf 4 0\n":   "line 1: variable group F: shape",
		"c var F 1..9 - m\np cnf 4 0\n":     "group F ends at variable 9",
		"p cnf 2 1\n1 99999999999999 0\n":   "not an integer literal",
		"p dnf 2 1\n1 0\n":                  "line 1: problem line",
		"c var F a..b - m\np cnf 4 0\n":     "bad range",
		"p cnf 3 1\nc mid comment\n1 -3 \n": "not terminated",
	}
	for in, want := range cases {
		_, err := ReadDIMACS(strings.NewReader(in))
		if err == nil || !errors.Is(err, ErrDIMACS) || !strings.Contains(err.Error(), want) {
			t.Errorf("input %q: error %v, want ErrDIMACS containing %q", in, err, want)
		}
	}
	// Comments anywhere, clauses across lines, several per line.
	c, err := ReadDIMACS(strings.NewReader("c hello\np cnf 3 3\n1 -2\nc between\n 3 0 -1 0\n2 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.NumClauses() != 3 || !slices.Equal(c.Clause(0), []Lit{1, -2, 3}) || !slices.Equal(c.Comments, []string{"hello", "between"}) {
		t.Fatalf("parsed %v comments %q", c.Describe(), c.Comments)
	}
}

func FuzzReadDIMACS(f *testing.F) {
	f.Add("p cnf 3 2\n1 -2 0\n3 0\n")
	f.Add("c var X 1..2 2 meaning\np cnf 2 1\n-1 2 0\n")
	f.Add("p cnf 0 1\n0\n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ReadDIMACS(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrDIMACS) && !strings.Contains(err.Error(), "reading DIMACS") {
				t.Fatalf("error does not wrap ErrDIMACS: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := c.WriteDIMACS(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadDIMACS(&buf)
		if err != nil {
			t.Fatalf("re-reading our own output: %v\n%s", err, buf.String())
		}
		sameCNF(t, c, back)
	})
}

// bruteSat decides a small formula by enumeration.
func bruteSat(c *CNF) bool {
	m := make([]bool, c.NumVars+1)
	for bits := 0; bits < 1<<c.NumVars; bits++ {
		for v := 1; v <= c.NumVars; v++ {
			m[v] = bits>>(v-1)&1 == 1
		}
		if ok, _ := c.Satisfies(m); ok {
			return true
		}
	}
	return false
}

func checkSolver(t *testing.T, s Solver, c *CNF, want bool, assumptions ...Lit) {
	t.Helper()
	st, err := s.Solve(context.Background(), assumptions...)
	if err != nil {
		t.Fatal(err)
	}
	if (st == Satisfiable) != want || st == Unknown {
		t.Fatalf("solver says %s, brute force satisfiable=%v", st, want)
	}
	if st == Satisfiable {
		m := make([]bool, c.NumVars+1)
		for v := 1; v <= c.NumVars; v++ {
			m[v] = s.Value(Lit(v))
			if s.Value(Lit(-v)) == m[v] {
				t.Fatalf("Value(%d) and Value(-%d) agree", v, v)
			}
		}
		if ok, i := c.Satisfies(m); !ok {
			t.Fatalf("model falsifies clause %d", i)
		}
		for _, a := range assumptions {
			if !s.Value(a) {
				t.Fatalf("assumption %d false in the model", a)
			}
		}
	}
}

func TestGiniAgainstBruteForce(t *testing.T) {
	againstBruteForce(t, func() Solver { return NewGini() })
}

func TestCDCLAgainstBruteForce(t *testing.T) {
	againstBruteForce(t, func() Solver { return NewCDCL() })
}

// againstBruteForce checks a solver on random small formulas: alone,
// under an assumption, then with more clauses added (incremental).
func againstBruteForce(t *testing.T, newSolver func() Solver) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 300 {
		nv := 7 + rng.IntN(6)
		c := randomCNF(rng, nv, 20+rng.IntN(40))
		s := newSolver()
		AddCNF(s, c, 0)
		checkSolver(t, s, c, bruteSat(c))
		// Incremental: assumptions, then more clauses.
		a := Lit(1 + rng.IntN(nv))
		withA := &CNF{}
		AddCNF(withA, c, 0)
		withA.Add(a)
		withA.NumVars = c.NumVars
		checkSolver(t, s, withA, bruteSat(withA), a)
		extra := randomCNF(rng, nv, 10)
		from := c.NumClauses()
		for i := range extra.NumClauses() {
			c.Add(extra.Clause(i)...)
		}
		AddCNF(s, c, from)
		checkSolver(t, s, c, bruteSat(c))
	}
}

// hardCNF is a pigeonhole formula (n+1 pigeons, n holes): unsatisfiable
// and slow to refute for resolution.
func hardCNF(n int) *CNF {
	c := &CNF{}
	p := c.NewGroup("P", "pigeon i in hole j", n+1, n)
	for i := range n + 1 {
		var cl []Lit
		for j := range n {
			cl = append(cl, p.Lit(i, j))
		}
		c.Add(cl...)
	}
	for j := range n {
		for a := range n + 1 {
			for b := a + 1; b < n+1; b++ {
				c.Add(-p.Lit(a, j), -p.Lit(b, j))
			}
		}
	}
	return c
}

func TestGiniTimeLimit(t *testing.T) { timeLimit(t, NewGini()) }

func TestCDCLTimeLimit(t *testing.T) { timeLimit(t, NewCDCL()) }

// timeLimit checks that a solver stops on a deadline and on
// cancellation (generous bounds: the machine may be loaded).
func timeLimit(t *testing.T, s Solver) {
	AddCNF(s, hardCNF(12), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	st, err := s.Solve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st != Unknown {
		t.Fatalf("pigeonhole 13/12 decided (%s) within 200ms: pick a harder formula", st)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("time limit 200ms honoured only after %v", el)
	}
	// Cancellation without a deadline.
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel2)
	start = time.Now()
	if st, _ := s.Solve(ctx2); st != Unknown {
		t.Fatalf("cancelled solve returned %s", st)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("cancellation honoured only after %v", el)
	}
}

func TestParseOutput(t *testing.T) {
	cases := []struct {
		in    string
		st    Status
		model []bool
		err   string
	}{
		{"c hi\ns SATISFIABLE\nv 1 -2\nv 3 0\n", Satisfiable, []bool{false, true, false, true}, ""},
		{"s UNSATISFIABLE\n", Unsatisfiable, nil, ""},
		{"s UNKNOWN\n", Unknown, nil, ""},
		{"SAT\n-1 2 0\n", Satisfiable, []bool{false, false, true}, ""},
		{"UNSAT\n", Unsatisfiable, nil, ""},
		{"INDET\n", Unknown, nil, ""},
		{"hello\n", Unknown, nil, "no status line"},
		{"s SATISFIABLE\n", Unknown, nil, "no model"},
		{"s SATISFIABLE\nv 1 x 0\n", Unknown, nil, "not a literal"},
		{"s MAYBE\n", Unknown, nil, "unknown status"},
		{"s SATISFIABLE\nv 1 0 2\n", Unknown, nil, "after the terminating 0"},
	}
	for _, c := range cases {
		st, m, err := ParseOutput(strings.NewReader(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || st != c.st || !slices.Equal(m, c.model) {
			t.Errorf("%q: %s %v %v, want %s %v", c.in, st, m, err, c.st, c.model)
		}
	}
}

// A command line wholly in one pair of quotes, as the sat-solver option's
// help writes it, is unquoted once; a quoted program path is kept whole.
func TestNewExternalQuoted(t *testing.T) {
	for in, want := range map[string][]string{
		`"minisat {in} {out}"`:          {"minisat", "{in}", "{out}"},
		` 'minisat -verb=0 {in} {out}'`: {"minisat", "-verb=0", "{in}", "{out}"},
		`minisat "{in}" {out}`:          {"minisat", "{in}", "{out}"},
		`"minisat" {in}`:                {"minisat", "{in}"},
		`"/bin/no such solver"`:         {"/bin/no", "such", "solver"},
	} {
		e, err := NewExternal(in)
		if err != nil || !slices.Equal(e.Command(), want) {
			t.Errorf("%s: %q %v, want %q", in, e.Command(), err, want)
		}
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "my solver")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := NewExternal(`"` + prog + `"`)
	if err != nil || !slices.Equal(e.Command(), []string{prog}) {
		t.Errorf("a program path with a space: %q %v", e.Command(), err)
	}
}

func TestSplitCommand(t *testing.T) {
	w, err := SplitCommand(`minisat -verb=0 '{in}' "my {out}" a\b`)
	if err != nil || !slices.Equal(w, []string{"minisat", "-verb=0", "{in}", "my {out}", `a\b`}) {
		t.Fatalf("%q %v", w, err)
	}
	if _, err := SplitCommand(`a "b`); err == nil {
		t.Fatal("unterminated quote accepted")
	}
	argv, out := Substitute([]string{"solver", "-x"}, "/i", "/o")
	if out || !slices.Equal(argv, []string{"solver", "-x", "/i"}) {
		t.Fatalf("%v %v", argv, out)
	}
	argv, out = Substitute([]string{"minisat", "{in}", "{out}"}, "/i", "/o")
	if !out || !slices.Equal(argv, []string{"minisat", "/i", "/o"}) {
		t.Fatalf("%v %v", argv, out)
	}
}

// TestExternalScript runs the external adapter on a shell script that
// answers in SAT-competition format (s/v lines on stdout).
func TestExternalScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "fake.sh")
	// Claims x1=true, x2=false whatever the input; checks the input exists.
	os.WriteFile(script, []byte("#!/bin/sh\ntest -s \"$1\" || exit 3\necho 'c fake'\necho 's SATISFIABLE'\necho 'v 1 -2 0'\nexit 10\n"), 0o755)
	s, err := NewSolver("external:sh " + script)
	if err != nil {
		t.Fatal(err)
	}
	s.AddClause(1, 2)
	s.AddClause(-2)
	st, err := s.Solve(context.Background())
	if err != nil || st != Satisfiable || !s.Value(1) || s.Value(2) || !s.Value(-2) {
		t.Fatalf("%s %v", st, err)
	}
	// A model that falsifies the formula is an error, not an answer.
	s.AddClause(-1)
	if _, err := s.Solve(context.Background()); err == nil || !strings.Contains(err.Error(), "falsifies") {
		t.Fatalf("wrong model accepted: %v", err)
	}
	bad, _ := NewSolver("external:sh -c 'echo nothing'")
	if _, err := bad.Solve(context.Background()); err == nil || !strings.Contains(err.Error(), "no status line") {
		t.Fatalf("missing answer: %v", err)
	}
	if _, err := NewSolver("cplex"); err == nil {
		t.Fatal("unknown solver accepted")
	}
}

// TestMinisat runs Debian's minisat through the {in} {out} form.
func TestMinisat(t *testing.T) {
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat not installed (apt-get install minisat; scripts/setup.sh does it)")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 15 {
		c := randomCNF(rng, 10, 30+rng.IntN(30))
		s, err := NewSolver("external:minisat -verb=0 {in} {out}")
		if err != nil {
			t.Fatal(err)
		}
		AddCNF(s, c, 0)
		checkSolver(t, s, c, bruteSat(c))
		a := Lit(-3)
		withA := &CNF{}
		AddCNF(withA, c, 0)
		withA.Add(a)
		withA.NumVars = c.NumVars
		checkSolver(t, s, withA, bruteSat(withA), a)
	}
	s, _ := NewSolver("external:minisat -verb=0 {in} {out}")
	AddCNF(s, hardCNF(11), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if st, err := s.Solve(ctx); err != nil || st != Unknown {
		t.Fatalf("killed minisat: %s %v", st, err)
	}
}

// FuzzParseOutput: any solver output gives an answer or an error, never
// a panic; a satisfiable answer has a model that gives every literal it
// lists its sign.
func FuzzParseOutput(f *testing.F) {
	f.Add("s SATISFIABLE\nv 1 -2 3 0\n")
	f.Add("SAT\n-1 2 0\n")
	f.Add("UNSAT\n")
	f.Add("c comment\ns UNSATISFIABLE\n")
	f.Add("s SATISFIABLE\nv 1\nv -2 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		st, m, err := ParseOutput(strings.NewReader(in))
		if err != nil {
			if st != Unknown || m != nil {
				t.Fatalf("error %v with status %s and a model", err, st)
			}
			return
		}
		if (st == Satisfiable) != (m != nil) {
			t.Fatalf("status %s, model %v", st, m != nil)
		}
	})
}

// checkAgainstGini solves c under the assumptions with gini g (holding
// c's clauses) and checks solver s (holding them too) against its answer.
func checkAgainstGini(t *testing.T, s Solver, g *Gini, c *CNF, as ...Lit) {
	t.Helper()
	want, err := g.Solve(context.Background(), as...)
	if err != nil {
		t.Fatal(err)
	}
	withA := &CNF{NumVars: c.NumVars}
	AddCNF(withA, c, 0)
	for _, a := range as {
		withA.Add(a)
	}
	checkSolver(t, s, withA, want == Satisfiable, as...)
}

// TestCDCLAgainstGini compares CDCL with gini on random 3-SAT formulas
// near the threshold, large enough for thousands of conflicts (learnt
// clause deletion and arena compaction run), alone and under assumptions
// with clauses added in between.
func TestCDCLAgainstGini(t *testing.T) {
	n := againstGini(t, NewCDCL)
	if n.reductions == 0 || n.compactions == 0 {
		t.Fatalf("CDCL deleted learnt clauses %d times and compacted %d times: make the formulas harder", n.reductions, n.compactions)
	}
}

// searchCounts are the restarts, reductions and compactions of solves.
type searchCounts struct{ restarts, reductions, compactions int }

// againstGini runs the comparison of TestCDCLAgainstGini with the
// solvers newCDCL makes and returns their counts, summed.
func againstGini(t *testing.T, newCDCL func() *CDCL) searchCounts {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 7))
	var n searchCounts
	for range 12 {
		nv := 120 + rng.IntN(60)
		c := &CNF{}
		c.NewGroup("V", "variables", nv)
		for range int(4.26 * float64(nv)) {
			c.Add(random3Clause(rng, nv)...)
		}
		s, g := newCDCL(), NewGini()
		from := 0
		for step := range 3 {
			AddCNF(s, c, from)
			from = AddCNF(g, c, from)
			var as []Lit
			if step > 0 {
				as = []Lit{Lit(1 + rng.IntN(nv)), -Lit(1 + rng.IntN(nv))}
			}
			checkAgainstGini(t, s, g, c, as...)
			c.Add(Lit(1+rng.IntN(nv)), -Lit(1+rng.IntN(nv)))
		}
		n.restarts += s.restarts
		n.reductions += s.reductions
		n.compactions += s.compactions
	}
	return n
}

// TestCDCLArenaChunks fills several full arena chunks, one clause
// longer than a chunk among them, compacts the arena by hand between
// solves, and checks every answer against gini: clause references must
// survive chunk boundaries, the long clause's own chunk and the move.
func TestCDCLArenaChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	const nv = 150
	long := chunkWords + 1000
	c := &CNF{}
	c.NewGroup("V", "variables", nv+long)
	for range int(4.26 * nv) {
		c.Add(random3Clause(rng, nv)...)
	}
	var jumbo []Lit
	for v := range long {
		jumbo = append(jumbo, Lit(nv+1+v))
	}
	c.Add(jumbo...)
	for range 3000 { // 40 literals each: about two chunks
		var cl []Lit
		for v := range 40 {
			l := Lit(nv + 1 + rng.IntN(long))
			if v < 2 || rng.IntN(2) == 0 {
				l = -l
			}
			cl = append(cl, l)
		}
		c.Add(cl...)
	}
	s, g := NewCDCL(), NewGini()
	from := 0
	for step := range 4 {
		AddCNF(s, c, from)
		from = AddCNF(g, c, from)
		as := []Lit{Lit(1 + rng.IntN(nv)), -Lit(nv + 1 + rng.IntN(long))}
		checkAgainstGini(t, s, g, c, as...)
		if step == 0 {
			big := 0
			for _, ch := range s.chunks {
				big = max(big, cap(ch))
			}
			if len(s.chunks) < 4 || big <= chunkWords {
				t.Fatalf("%d chunks, the largest %d words: the test does not fill chunks or make a long clause's own", len(s.chunks), big)
			}
		}
		s.cancelUntil(0)
		s.compact()
		c.Add(Lit(1+rng.IntN(nv)), -Lit(1+rng.IntN(nv)), Lit(nv+1+rng.IntN(long)))
	}
}

// TestSlab grows and empties many lists at random: each keeps its own
// elements (no two share an array), and arrays given back are reused,
// so the slab stays within twice the lists' room.
func TestSlab(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	var p slab[watcher]
	lists := make([][]watcher, 300)
	want := make([][]watcher, len(lists))
	for step := range 200000 {
		i := rng.IntN(len(lists))
		if rng.IntN(5) == 0 {
			lists[i], want[i] = lists[i][:0], want[i][:0]
			continue
		}
		w := watcher{int32(step), int32(i)}
		lists[i] = p.push(lists[i], w)
		want[i] = append(want[i], w)
	}
	room := 0
	for i := range lists {
		if !slices.Equal(lists[i], want[i]) {
			t.Fatalf("list %d: %v, want %v", i, lists[i], want[i])
		}
		if c := cap(lists[i]); c&(c-1) != 0 {
			t.Fatalf("list %d has capacity %d, not a power of two", i, c)
		}
		room += cap(lists[i])
	}
	// Without reuse the slab makes 32768 elements here, with it 16384.
	if p.made > 2*room {
		t.Fatalf("slab made %d elements for lists with room for %d", p.made, room)
	}
}

// TestCDCLReset solves random formulas of mixed clause lengths (binary
// clauses have their own watch lists) with one solver reset between
// formulas: every answer must match brute force, and the reset solver
// must search exactly as a new one does (same conflicts, same model).
func TestCDCLReset(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	reused := NewCDCL()
	for round := range 200 {
		nv := 6 + rng.IntN(7)
		c := &CNF{}
		c.NewGroup("V", "variables", nv)
		c.Add(Lit(nv), -Lit(nv)) // every variable known to the solvers
		for range 10 + rng.IntN(40) {
			var cl []Lit
			for range 1 + rng.IntN(4) {
				l := Lit(1 + rng.IntN(nv))
				if rng.IntN(2) == 0 {
					l = -l
				}
				cl = append(cl, l)
			}
			c.Add(cl...)
		}
		var as []Lit
		if round%2 == 1 {
			as = []Lit{Lit(1 + rng.IntN(nv))}
		}
		withA := &CNF{NumVars: c.NumVars}
		AddCNF(withA, c, 0)
		for _, a := range as {
			withA.Add(a)
		}
		want := bruteSat(withA)
		reused.Reset()
		AddCNF(reused, c, 0)
		checkSolver(t, reused, withA, want, as...)
		fresh := NewCDCL()
		AddCNF(fresh, c, 0)
		checkSolver(t, fresh, withA, want, as...)
		if fresh.Conflicts() != reused.Conflicts() {
			t.Fatalf("round %d: reset solver %d conflicts, new solver %d", round, reused.Conflicts(), fresh.Conflicts())
		}
		for v := 1; v <= nv; v++ {
			if want && fresh.Value(Lit(v)) != reused.Value(Lit(v)) {
				t.Fatalf("round %d: models differ at variable %d", round, v)
			}
		}
	}
}

// TestReserve checks the chunked growth of reserve: contents kept across
// chunk boundaries, room for n more, and no copy when there is room.
func TestReserve(t *testing.T) {
	for _, n := range []int{0, 1, copyChunk - 1, copyChunk, 3*copyChunk + 5} {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(i*7 + 1)
		}
		g := reserve(s, 10)
		if len(g) != n || cap(g) < n+10 {
			t.Fatalf("len %d: reserve gave len %d cap %d", n, len(g), cap(g))
		}
		for i := range g {
			if g[i] != int32(i*7+1) {
				t.Fatalf("len %d: element %d is %d after growth", n, i, g[i])
			}
		}
		if h := reserve(g, cap(g)-len(g)); &h[:1][0] != &g[:1][0] {
			t.Fatalf("len %d: reserve copied a slice that had room", n)
		}
	}
}

// TestCDCLKeepsModel checks solving on from the last model: clauses of
// every length and status (satisfied, unit, falsified, over new
// variables) are added one to three at a time after satisfiable solves
// under the same assumptions (now and then others), each answer checked
// by brute force. It fails unless some solves started above level 0 and
// some added clauses were implied or falsified under the kept assignment.
func TestCDCLKeepsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	kept, implied, falsified := 0, 0, 0
	for range 150 {
		nv := 8 + rng.IntN(5)
		c := &CNF{}
		c.NewGroup("V", "variables", nv)
		for range 10 + rng.IntN(15) {
			c.Add(random3Clause(rng, nv)...)
		}
		s := NewCDCL()
		s.AddClause(Lit(nv), -Lit(nv)) // a tautology: the solver knows all nv variables
		from := AddCNF(s, c, 0)
		var as []Lit
		if rng.IntN(2) == 0 {
			as = []Lit{Lit(1 + rng.IntN(nv))}
		}
		for step := range 25 {
			if step%5 == 4 { // now and then other assumptions
				as = as[:0]
				for range rng.IntN(3) {
					as = append(as, Lit(1+rng.IntN(nv))*Lit(1-2*rng.IntN(2)))
				}
			}
			withA := &CNF{NumVars: c.NumVars}
			AddCNF(withA, c, 0)
			for _, a := range as {
				withA.Add(a)
			}
			if s.decisionLevel() > 0 {
				kept++
			}
			if s.ok && s.numVars() != c.NumVars {
				t.Fatalf("solver has %d variables, formula %d", s.numVars(), c.NumVars)
			}
			checkSolver(t, s, withA, bruteSat(withA), as...)
			if !s.ok {
				break
			}
			for range 1 + rng.IntN(3) {
				// Mostly clauses the last model falsifies, so that they
				// are added under a kept assignment as units or conflicts.
				n := 1 + rng.IntN(4)
				if n == 1 && rng.IntN(3) > 0 {
					n = 2
				}
				var cl []Lit
				for len(cl) < n {
					v := Lit(1 + rng.IntN(nv))
					if c.NumVars < 14 && rng.IntN(8) == 0 {
						c.NumVars++ // a new variable, added with this clause
						v = Lit(c.NumVars)
					}
					if slices.Contains(cl, v) || slices.Contains(cl, -v) {
						continue
					}
					if s.Value(v) && rng.IntN(4) > 0 {
						v = -v
					}
					cl = append(cl, v)
				}
				level, trail := s.decisionLevel(), len(s.trail)
				c.Add(cl...)
				from = AddCNF(s, c, from)
				if level > 0 && s.decisionLevel() < level {
					falsified++
				} else if level > 0 && len(s.trail) > trail {
					implied++
				}
			}
		}
	}
	if kept == 0 || implied == 0 || falsified == 0 {
		t.Fatalf("solves from a kept model %d, clauses implied under it %d, falsified by it %d: all must occur", kept, implied, falsified)
	}
	t.Logf("solves from a kept model %d, clauses implied under it %d, falsified by it %d", kept, implied, falsified)
}

// TestCDCLConflictLimit: a limited solve stops with Unknown after its
// limit, each solve counting afresh; without the limit the same solver
// finishes the refutation.
func TestCDCLConflictLimit(t *testing.T) {
	s := NewCDCL()
	AddCNF(s, hardCNF(7), 0)
	s.SetConflictLimit(100)
	for i := range 2 {
		before := s.Conflicts()
		st, err := s.Solve(context.Background())
		if err != nil || st != Unknown || s.Conflicts()-before != 100 {
			t.Fatalf("solve %d: %s, %v after %d conflicts, want Unknown after 100", i, st, err, s.Conflicts()-before)
		}
	}
	s.SetConflictLimit(0)
	if st, err := s.Solve(context.Background()); err != nil || st != Unsatisfiable {
		t.Fatalf("without the limit: %s, %v", st, err)
	}
}

// TestParseCompleteRefusesPartialModels: an answer cut short (variables
// without a value, no closing 0) is an error naming the first missing
// variable, never a model whose missing variables read as false.
func TestParseCompleteRefusesPartialModels(t *testing.T) {
	for in, frag := range map[string]string{
		"s SATISFIABLE\nv 1 -2 0\n":    "no value to variable 3 of 3",
		"s SATISFIABLE\nv 1 -2 3\n":    "closing 0",
		"s SATISFIABLE\nv 1 3 0\n":     "no value to variable 2 of 3",
		"SAT\n1 -2\n":                  "no value to variable 3",
		"SAT\n1 -2 3\n":                "closing 0",
		"s SATISFIABLE\nv -1 2 -3 4\n": "closing 0",
	} {
		_, _, err := ParseComplete(strings.NewReader(in), 3)
		if err == nil || !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), frag) {
			t.Errorf("%q: error %v, want ErrOutput with %q", in, err, frag)
		}
	}
	for _, in := range []string{"s SATISFIABLE\nv 1 -2\nv 3 0\n", "SAT\n-1 -2 -3 0\n", "s UNSATISFIABLE\n", "UNSAT\n"} {
		if _, _, err := ParseComplete(strings.NewReader(in), 3); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}
