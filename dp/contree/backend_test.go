package contree_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/contree"
	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
)

// The backend finds the brute-force optimum (over every midpoint
// threshold, the binary view's tests) on small seeded data, with and
// without whole weights, under each option; with max-gap it stays within
// the gap (runs in a fresh clone: no ../shared).
func TestBackendBruteForce(t *testing.T) {
	ws := []dptest.Weights{dptest.NoWeights, dptest.WholeWeights}
	dptest.Exact(t, contree.Backend{}, 25, ws, false, []map[string]string{nil, {"eta": "min"}, {"cache": "false"}, {"root": "depth-first"}})
	rng := rand.New(rand.NewPCG(25, 2))
	for i := range 12 {
		d := dptest.Random(rng, 12+rng.IntN(30), 1+rng.IntN(4), 2+rng.IntN(2), i%2 == 0, ws[i%2])
		for depth := range 4 {
			p := model.Problem{Objective: model.MinError, MaxDepth: depth}
			want := dptest.Optimum(d, p)
			res, _ := dptest.Solve(t, context.Background(), contree.Backend{}, d, p, map[string]string{"max-gap": "2"})
			if res.Optimal || res.Status != model.StatusFeasible || res.Objective > want+2 || res.LowerBound > want {
				t.Fatalf("data %d depth %d max-gap 2: objective %v bound %v optimal %v status %s, brute force %v",
					i, depth, res.Objective, res.LowerBound, res.Optimal, res.Status, want)
			}
		}
	}
}

// Bounds reported while searching, the gap options and the bound phase
// (at depth 4, with sides cut short), against brute force.
func TestBackendGap(t *testing.T) {
	dptest.Gapped(t, contree.Backend{}, 3, []dptest.Weights{dptest.NoWeights, dptest.WholeWeights},
		[]map[string]string{nil, {"gap": "0.1"}, {"abs-gap": "2"}, {"gap": "0.02", "abs-gap": "1"},
			{"bound-probes": "2", "bound-work": "3"}, {"bound-probes": "1", "gap": "0.1"}})
}

// Bad options, problem fields ConTree does not honour (a minimum leaf
// support, a node limit, fractional weights) and data beyond its limits
// are refused with backend.ErrInvalid, the latter also matching
// contree.ErrInput, with the backend's name in the message once at most.
func TestBackendRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := dptest.Random(rng, 20, 3, 2, false, dptest.NoWeights)
	p := model.Problem{MaxDepth: 2}
	many := dptest.Random(rng, 20, 3, 2, false, dptest.WholeWeights)
	many.Weights[0] = 1 << 40 // more rows, counted with weights, than ConTree takes
	for _, c := range []struct {
		d   *model.Dataset
		p   model.Problem
		raw map[string]string
	}{
		{d, p, map[string]string{"max-gap": "-1"}},
		{d, p, map[string]string{"eta": "sum"}},
		{d, p, map[string]string{"cache": "maybe"}},
		{d, p, map[string]string{"gap": "-0.1"}},
		{d, p, map[string]string{"gap": "1.5"}},
		{d, p, map[string]string{"abs-gap": "-1"}},
		{d, p, map[string]string{"gap": "0.1", "max-gap": "2"}},
		{d, p, map[string]string{"abs-gap": "1", "root": "depth-first"}},
		{d, model.Problem{MaxDepth: 2, LeafCost: 0.01}, map[string]string{"gap": "0.1"}},
		{d, p, map[string]string{"order": "gini"}},
		{d, p, map[string]string{"bound-probes": "-1"}},
		{d, p, map[string]string{"bound-probes": "1001"}},
		{d, p, map[string]string{"bound-work": "0"}},
		{d, p, map[string]string{"bound-probes": "2", "max-gap": "1"}},
		{d, p, map[string]string{"bound-probes": "2", "root": "depth-first"}},
		{d, model.Problem{MaxDepth: 2, LeafCost: 0.01}, map[string]string{"bound-probes": "1"}},
		{d, model.Problem{MaxDepth: 2, MinSupport: 5}, nil},
		{dptest.Random(rng, 20, 3, 2, false, dptest.AnyWeights), p, nil},
		{many, p, nil},
	} {
		if why := dptest.Refused(contree.Backend{}, c.d, c.p, c.raw); why != "" {
			t.Errorf("%v %+v: %s", c.raw, c.p, why)
		}
	}
}

// Data beyond ConTree's limits is refused as invalid by the contract's
// check and by the backend, which leaves its name to the registry (no
// "contree: contree:"); the library function matches contree.ErrInput
// and names itself once.
func TestBackendInputError(t *testing.T) {
	d := dptest.Random(rand.New(rand.NewPCG(3, 4)), 20, 3, 2, false, dptest.WholeWeights)
	d.Weights[0] = 1 << 40
	info := contree.Backend{}.Info()
	// The contract's check refuses it first (Caps.MaxRepeatedRows), so
	// that auto passes contree by ...
	if _, err := backend.NewJob(info, d, model.Problem{MaxDepth: 2}, nil); !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "repeats each row") {
		t.Fatalf("NewJob: %v", err)
	}
	// ... and the backend itself, given a job made without that cap.
	info.Caps.MaxRepeatedRows = 0
	job, err := backend.NewJob(info, d, model.Problem{MaxDepth: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = contree.Backend{}.Solve(context.Background(), job)
	if !errors.Is(err, backend.ErrInvalid) || strings.Contains(err.Error(), "contree:") {
		t.Fatalf("backend: %v", err)
	}
	_, err = contree.Solve(context.Background(), d, contree.Config{MaxDepth: 2}, nil)
	if !errors.Is(err, contree.ErrInput) || strings.Count(err.Error(), "contree:") != 1 {
		t.Fatalf("library: %v", err)
	}
}
