package sat

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestTotalizerBounds fixes the inputs of random weighted totalizers
// and checks, for every bound, that assuming "not at least k" is
// satisfiable exactly when the weighted sum of the true inputs is below
// k (the counter's outputs are forced, never free to lie low), with
// inputs given at once or in two parts (Add).
func TestTotalizerBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 40 {
		n := 1 + rng.IntN(7)
		c := &CNF{}
		in := make([]Lit, n)
		w := make([]int, n)
		for i := range in {
			in[i] = c.NewVar()
			w[i] = 1 + rng.IntN(4)
		}
		limit := 1 + rng.IntN(12)
		// Half the inputs at first, the rest added later.
		h := rng.IntN(n + 1)
		tot, err := NewTotalizer(context.Background(), c, in[:h], w[:h], limit)
		if err != nil {
			t.Fatal(err)
		}
		if err := tot.Add(context.Background(), c, in[h:], w[h:]); err != nil {
			t.Fatal(err)
		}
		checkBounds(t, rng, c, in, w, limit, tot.AtLeast)
	}
}

// checkBounds fixes the counter's inputs at random four times and
// checks, for every bound k, that assuming "not at least k" is
// satisfiable exactly when the weighted sum of the true inputs is below k.
func checkBounds(t *testing.T, rng *rand.Rand, c *CNF, in []Lit, w []int, limit int, atLeast func(int) Lit) {
	t.Helper()
	for range 4 {
		s := NewCDCL()
		AddCNF(s, c, 0)
		sum := 0
		for i, l := range in {
			if rng.IntN(2) == 0 {
				s.AddClause(l)
				sum += w[i]
			} else {
				s.AddClause(l.Not())
			}
		}
		for k := 1; k <= limit; k++ {
			var as []Lit
			if o := atLeast(k); o != 0 {
				as = append(as, o.Not())
			}
			st, err := s.Solve(context.Background(), as...)
			if err != nil {
				t.Fatal(err)
			}
			if want := sum < k; (st == Satisfiable) != want {
				t.Fatalf("weights %v sum %d cap %d: at most %d is %v", w, sum, limit, k-1, st)
			}
		}
	}
}

// TestSum checks the merged counter against the count of true inputs
// on every assignment of six weighted inputs split in two counters.
func TestSum(t *testing.T) {
	c := &CNF{}
	in := make([]Lit, 6)
	for i := range in {
		in[i] = c.NewVar()
	}
	w := []int{1, 2, 1, 3, 1, 2}
	const limit = 7
	a, err := NewTotalizer(context.Background(), c, in[:3], w[:3], limit)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewTotalizer(context.Background(), c, in[3:], w[3:], limit)
	if err != nil {
		t.Fatal(err)
	}
	s := Sum(c, a, b)
	for mask := range 1 << len(in) {
		sum := 0
		for i := range in {
			if mask>>i&1 == 1 {
				sum += w[i]
			}
		}
		for k := 1; k <= limit; k++ {
			// Inputs fixed and output k assumed false: satisfiable
			// exactly when the sum is below k.
			sol := NewCDCL()
			AddCNF(sol, c, 0)
			var as []Lit
			for i, l := range in {
				if mask>>i&1 == 1 {
					as = append(as, l)
				} else {
					as = append(as, l.Not())
				}
			}
			if o := s.AtLeast(k); o != 0 {
				as = append(as, o.Not())
			}
			st, err := sol.Solve(context.Background(), as...)
			if err != nil {
				t.Fatal(err)
			}
			if want := sum < k; (st == Satisfiable) != want {
				t.Fatalf("inputs %06b (sum %d), at most %d: %v", mask, sum, k-1, st)
			}
		}
	}
}

// TestCounterSizes checks the estimates against the clauses the
// counters add.
func TestCounterSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 50 {
		n, limit := rng.IntN(40), 1+rng.IntN(20)
		w := make([]int, n)
		in := make([]Lit, n)
		c := &CNF{}
		for i := range w {
			w[i] = 1 + rng.IntN(5)
			in[i] = c.NewVar()
		}
		v0, c0, l0 := c.NumVars, c.NumClauses(), c.NumLits()
		tot, err := NewTotalizer(context.Background(), c, in, w, limit)
		if err != nil {
			t.Fatal(err)
		}
		outs, s := TotalizerSize(w, limit)
		if got := (CounterSize{int64(c.NumVars - v0), int64(c.NumClauses() - c0), int64(c.NumLits() - l0)}); got != s || outs != len(tot.out) {
			t.Fatalf("%d inputs, limit %d: built %+v with %d outputs, estimated %+v with %d", n, limit, got, len(tot.out), s, outs)
		}
		v0, c0, l0 = c.NumVars, c.NumClauses(), c.NumLits()
		sum := Sum(c, tot, tot)
		outs, s = SumSize(len(tot.out), len(tot.out), limit)
		if got := (CounterSize{int64(c.NumVars - v0), int64(c.NumClauses() - c0), int64(c.NumLits() - l0)}); got != s || outs != len(sum.out) {
			t.Fatalf("sum of %d outputs, limit %d: built %+v, estimated %+v", len(tot.out), limit, got, s)
		}
	}
}
