package sat

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestSumCounterBounds fixes the inputs of random sum counters (weights
// of mixed sizes, some sharing a factor) and checks, for every bound,
// that assuming "not at least k" is satisfiable exactly when the
// weighted sum of the true inputs is below k.
func TestSumCounterBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for it := range 60 {
		n := 1 + rng.IntN(7)
		c := &CNF{}
		in := make([]Lit, n)
		w := make([]int, n)
		for i := range in {
			in[i] = c.NewVar()
			w[i] = 1 + rng.IntN(5)
			if it%2 == 0 {
				w[i] *= 3 // sums of multiples of 3, with an odd one now and then
				if rng.IntN(4) == 0 {
					w[i] = 1 + rng.IntN(7)
				}
			}
		}
		limit := 1 + rng.IntN(30)
		sc, err := NewSumCounter(context.Background(), c, in, w, limit, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkBounds(t, rng, c, in, w, limit, sc.AtLeast)
	}
}

// TestSumCounterSize: inputs whose weights are multiples of 100 give a
// counter with one output per reachable sum, where the unary totalizer
// has one per unit; a clause budget below the counter's size is
// ErrTooLarge.
func TestSumCounterSize(t *testing.T) {
	c := &CNF{}
	var in []Lit
	var w []int
	for i := range 40 {
		in = append(in, c.NewVar())
		w = append(w, 100*(1+i%3))
	}
	sc, err := NewSumCounter(context.Background(), c, in, w, 3000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Outputs() != 30 {
		t.Errorf("%d outputs, want the 30 multiples of 100 up to 3000", sc.Outputs())
	}
	u := &CNF{NumVars: c.NumVars}
	if _, err := NewTotalizer(context.Background(), u, in, w, 3000); err != nil {
		t.Fatal(err)
	}
	if c.NumClauses()*20 > u.NumClauses() {
		t.Errorf("sum counter %d clauses, unary totalizer %d", c.NumClauses(), u.NumClauses())
	}
	if _, err := NewSumCounter(context.Background(), &CNF{NumVars: c.NumVars}, in, w, 3000, 1000); !errors.Is(err, ErrTooLarge) {
		t.Errorf("budget of 1000 clauses: %v", err)
	}
}
