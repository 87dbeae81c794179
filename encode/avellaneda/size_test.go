package avellaneda

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// TestFormulaSizeMatchesTheFormula: the estimate, made without building,
// is of the size of the formula Encode builds: variables within a tenth,
// clauses and literals at least those built and at most a quarter more
// (a threshold chain's clauses are counted as if no example were at its
// ends), over depths up to 6, class counts (the class counters above
// four) and node limits. Literals grow with the depth of each node's
// path: an estimate that took the mean path as half the depth fell short
// by a third at depth 9 and admitted formulas the cap then stopped.
func TestFormulaSizeMatchesTheFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ n, nf, nc, k, nodes int }{
		{40, 4, 2, 2, 0}, {60, 5, 3, 3, 0}, {80, 4, 6, 3, 0}, {50, 4, 3, 3, 9}, {120, 6, 12, 4, 0},
		{100, 3, 2, 6, 0}, {100, 3, 7, 6, 0}, {60, 2, 3, 5, 20},
	} {
		d := randomData(rng, c.n, c.nf, c.nc)
		p, err := Prepare(d, true)
		if err != nil {
			t.Fatal(err)
		}
		s := Estimate(p, c.k, len(p.Reps), c.nodes, Options{})
		e, err := Encode(context.Background(), p, "sat-depth", c.k, c.nodes, Options{})
		if err != nil {
			t.Fatal(err)
		}
		vars, clauses, lits := int64(e.CNF.NumVars), int64(e.CNF.NumClauses()), int64(e.CNF.NumLits())
		if float64(s.Variables) < 0.9*float64(vars) || float64(s.Variables) > 1.1*float64(vars) {
			t.Errorf("%+v: estimated %d variables, built %d", c, s.Variables, vars)
		}
		if s.Constraints < clauses || s.Constraints > clauses*5/4 {
			t.Errorf("%+v: estimated %d clauses, built %d", c, s.Constraints, clauses)
		}
		if s.NonZeros < lits || s.NonZeros > lits*5/4 {
			t.Errorf("%+v: estimated %d literals, built %d", c, s.NonZeros, lits)
		}
	}
}

// TestFormulaUnderLimits: building stops with the context, and with an
// error wrapping model.ErrMemoryLimit when the budget runs out; what it
// accounted is released.
func TestFormulaUnderLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	d := randomData(rng, 200, 6, 10)
	p, err := Prepare(d, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := encode(ctx, nil, p, "sat-depth", 5, 0, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	b := backend.NewBudget(1 << 20)
	if _, err := encode(context.Background(), b, p, "sat-depth", 5, 0, Options{}); !errors.Is(err, model.ErrMemoryLimit) {
		t.Fatalf("1 MiB: %v, want the memory limit", err)
	}
	if b.Used() != 0 {
		t.Fatalf("budget used %d after the refusal", b.Used())
	}
	b = backend.NewBudget(1 << 30)
	e, err := encode(context.Background(), b, p, "sat-depth", 5, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Used() == 0 {
		t.Fatal("the formula accounted nothing")
	}
	e.Release()
	if b.Used() != 0 {
		t.Fatalf("%d bytes still accounted after Release", b.Used())
	}
}
