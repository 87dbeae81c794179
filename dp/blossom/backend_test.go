package blossom_test

import (
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/dp/blossom"
	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
)

// The backend finds the brute-force optimum on small seeded data, with
// and without whole weights, with each part of the search switched off in
// turn (runs in a fresh clone: no ../shared).
func TestBackendBruteForce(t *testing.T) {
	opts := []map[string]string{nil, {"order": "error"}, {"order": "index"}}
	for _, sw := range []string{"lower-bound", "depth2", "merge-rows", "drop-redundant", "drop-uninformative", "cart-seed"} {
		opts = append(opts, map[string]string{sw: "false"})
	}
	dptest.Exact(t, blossom.Backend{}, 20, []dptest.Weights{dptest.NoWeights, dptest.WholeWeights}, false, opts)
}

// Bounds reported while searching and the gap options, against brute
// force, searched by one worker and by three (whose root tests are handed
// out at depth 3 and more).
func TestBackendGap(t *testing.T) {
	ws := []dptest.Weights{dptest.NoWeights, dptest.WholeWeights}
	opts := []map[string]string{nil, {"gap": "0.1"}, {"abs-gap": "2"}, {"gap": "0.02", "abs-gap": "1.5"}, {"gap": "0.5"}, {"gap": "1"}}
	for _, threads := range []int{1, 3} {
		dptest.GappedThreads(t, blossom.Backend{}, 23, ws, opts, threads)
	}
}

// Bad options and problem fields Blossom does not honour (a minimum leaf
// support, a node limit, fractional weights) are refused with
// backend.ErrInvalid before any work.
func TestBackendRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := dptest.Random(rng, 20, 3, 2, false, dptest.NoWeights)
	p := model.Problem{MaxDepth: 2}
	for _, c := range []struct {
		d   *model.Dataset
		p   model.Problem
		raw map[string]string
	}{
		{d, p, map[string]string{"order": "zzz"}},
		{d, p, map[string]string{"order": "gain"}},
		{d, p, map[string]string{"merge-rows": "maybe"}},
		{d, p, map[string]string{"cache-mb": "1"}},
		{d, p, map[string]string{"gap": "1.5"}},
		{d, p, map[string]string{"abs-gap": "-1"}},
		{d, model.Problem{MaxDepth: 2, MaxNodes: 3}, map[string]string{"gap": "0.1"}},
		{d, model.Problem{MaxDepth: 2, LeafCost: 0.5}, map[string]string{"abs-gap": "1"}},
		{d, model.Problem{MaxDepth: 2, MinSupport: 2}, nil},
		{dptest.Random(rng, 20, 3, 2, false, dptest.AnyWeights), p, nil},
	} {
		if why := dptest.Refused(blossom.Backend{}, c.d, c.p, c.raw); why != "" {
			t.Errorf("%v %+v weights %v: %s", c.raw, c.p, c.d.Weights != nil, why)
		}
	}
}
