package cart_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
)

// The greedy tree is verified on the data, never better than the
// brute-force optimum, reported as the one incumbent, and holds the
// minimum support (runs in a fresh clone: no ../shared).
func TestBackendBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 4))
	for i := range 24 {
		d := dptest.Random(rng, 12+rng.IntN(30), 1+rng.IntN(4), 2+rng.IntN(2), i%2 == 0, dptest.Weights(i%3))
		for depth := range 4 {
			p := model.Problem{Objective: model.MinError, MaxDepth: depth, MinSupport: 1 + i%3}
			want := dptest.Optimum(d, p)
			for _, raw := range []map[string]string{nil, {"min-leaf": "4"}} {
				res, incs := dptest.Solve(t, context.Background(), cart.Backend{}, d, p, raw)
				if res.Optimal || res.Status != model.StatusFeasible || res.Objective < want-1e-9 || len(incs) != 1 {
					t.Fatalf("data %d depth %d %v: objective %v optimal %v status %s incumbents %v; optimum %v",
						i, depth, raw, res.Objective, res.Optimal, res.Status, incs, want)
				}
			}
		}
	}
}

// Bad options and a node limit are refused with backend.ErrInvalid before
// any work.
func TestBackendRefuses(t *testing.T) {
	d := dptest.Random(rand.New(rand.NewPCG(1, 2)), 20, 3, 2, false, dptest.NoWeights)
	p := model.Problem{MaxDepth: 2}
	for _, c := range []struct {
		p   model.Problem
		raw map[string]string
	}{
		{p, map[string]string{"min-leaf": "-2"}},
		{p, map[string]string{"min-leaf": "0"}},
		{p, map[string]string{"min-leaf": "x"}},
		{p, map[string]string{"depth2": "true"}},
	} {
		if why := dptest.Refused(cart.Backend{}, d, c.p, c.raw); why != "" {
			t.Errorf("%v %+v: %s", c.raw, c.p, why)
		}
	}
}
