package dl85_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
)

// Both backends find the brute-force optimum on small seeded data, with
// and without weights and a minimum support, under each option that
// changes the search (runs in a fresh clone: no ../shared).
func TestBackendsBruteForce(t *testing.T) {
	ws := []dptest.Weights{dptest.NoWeights, dptest.WholeWeights, dptest.AnyWeights}
	dptest.Exact(t, dl85.Backend{}, 13, ws, true, []map[string]string{
		nil, {"order": "index", "depth2": "false"}, {"cache-mb": "0.001"}})
	var opts []map[string]string
	for _, rule := range []string{"purity", "gain", "discrepancy", "topk", "topk*"} {
		for _, relax := range []string{"monotonic", "exponential", "luby"} {
			opts = append(opts, map[string]string{"rule": rule, "relax": relax})
		}
	}
	dptest.Exact(t, dl85.AnytimeBackend{}, 85, ws, true, opts)
}

// Bounds reported while searching and the gap options, against brute
// force, for both backends, searched by one worker and by three.
func TestBackendsGap(t *testing.T) {
	ws := []dptest.Weights{dptest.NoWeights, dptest.AnyWeights}
	opts := []map[string]string{nil, {"gap": "0.1"}, {"abs-gap": "2"}, {"gap": "0.02", "abs-gap": "1.5"},
		{"gap": "0.5"}, {"gap": "0.3", "gap-branches": "exact"}, {"gap": "0.5", "abs-gap": "1", "gap-branches": "exact"}}
	for _, threads := range []int{1, 3} {
		dptest.GappedThreads(t, dl85.Backend{}, 21, ws, opts, threads)
		dptest.GappedThreads(t, dl85.AnytimeBackend{}, 22, ws, opts, threads)
	}
}

// Bad options and problem fields the backends do not honour are refused
// with backend.ErrInvalid before any work.
func TestBackendsRefuse(t *testing.T) {
	d := dptest.Random(rand.New(rand.NewPCG(1, 2)), 20, 3, 2, false, dptest.NoWeights)
	p := model.Problem{MaxDepth: 2}
	cases := []struct {
		b   backend.Backend
		p   model.Problem
		raw map[string]string
	}{
		{dl85.Backend{}, p, map[string]string{"order": "zzz"}},
		{dl85.Backend{}, p, map[string]string{"cache-mb": "-5"}},
		{dl85.Backend{}, p, map[string]string{"depth2": "maybe"}},
		{dl85.Backend{}, p, map[string]string{"rule": "gain"}},
		{dl85.Backend{}, p, map[string]string{"gap": "-0.5"}},
		{dl85.Backend{}, p, map[string]string{"gap": "2"}},
		{dl85.Backend{}, p, map[string]string{"abs-gap": "-1"}},
		{dl85.Backend{}, p, map[string]string{"gap-branches": "some"}},
		{dl85.Backend{}, p, map[string]string{"bound-gap": "1.5"}},
		{dl85.Backend{}, p, map[string]string{"bound-gap": "0.5", "gap": "0.1"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"bound-gap": "0.5", "abs-gap": "1"}},
		{dl85.Backend{}, model.Problem{MaxDepth: 2, LeafCost: 0.01}, map[string]string{"bound-gap": "0.5"}},
		{dl85.Backend{}, model.Problem{MaxDepth: 2, LeafCost: 0.01}, map[string]string{"gap": "0.1"}},
		{dl85.AnytimeBackend{}, model.Problem{MaxDepth: 2, MaxNodes: 2}, map[string]string{"abs-gap": "1"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"rule": "bogus"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"relax": "bogus"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"step": "-1"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"step": "0"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"start": "-1"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"rule": "purity", "start": "1.5"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"max-restarts": "-1"}},
		{dl85.AnytimeBackend{}, p, map[string]string{"order": "zzz"}},
	}
	for _, c := range cases {
		if why := dptest.Refused(c.b, d, c.p, c.raw); why != "" {
			t.Errorf("%s %v %+v: %s", c.b.Info().Name, c.raw, c.p, why)
		}
	}
}

// More rows per leaf than the data holds: infeasible, not an error.
func TestBackendInfeasible(t *testing.T) {
	d := dptest.Random(rand.New(rand.NewPCG(1, 2)), 20, 3, 2, false, dptest.NoWeights)
	for _, b := range []backend.Backend{dl85.Backend{}, dl85.AnytimeBackend{}} {
		job, err := backend.NewJob(b.Info(), d, model.Problem{MaxDepth: 2, MinSupport: 1000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Solve(context.Background(), job)
		if err != nil || res.Status != model.StatusInfeasible || res.Model != nil {
			t.Fatalf("%s: %v, %+v; want infeasible without a model", b.Info().Name, err, res)
		}
	}
}

// A small cache evicts and the answer stays exact; a memory budget too
// small for the search ends it with status memory-limit and a valid tree.
func TestBackendCacheFromBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	d := dptest.Random(rng, 60, 6, 3, true, dptest.NoWeights)
	p := model.Problem{MaxDepth: 3}
	want := dptest.Optimum(d, p)
	job, err := backend.NewJob(dl85.Backend{}.Info(), d, p, map[string]string{"cache-mb": "0.002"})
	if err != nil {
		t.Fatal(err)
	}
	job.Budget = backend.NewBudget(64 << 20)
	res, err := dl85.Backend{}.Solve(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	dptest.Check(t, d, job.Problem, res, nil)
	if !res.Optimal || res.Objective != want {
		t.Fatalf("objective %v optimal %v, brute force %v", res.Objective, res.Optimal, want)
	}
	if ev, _ := res.Stats["cache_evictions"].(int); ev == 0 {
		t.Fatalf("no cache evictions under a 2 KB cache: stats %v", res.Stats)
	}
	job, _ = backend.NewJob(dl85.Backend{}.Info(), d, p, nil)
	job.Budget = backend.NewBudget(8 << 10)
	res, err = dl85.Backend{}.Solve(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	dptest.Check(t, d, job.Problem, res, nil)
	if res.Status != model.StatusMemory || res.Optimal || res.Objective < want || res.LowerBound > want {
		t.Fatalf("under an 8 KiB budget: status %s optimal %v objective %v bound %v (optimum %v)", res.Status, res.Optimal, res.Objective, res.LowerBound, want)
	}
}
