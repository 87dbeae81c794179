package odtkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// The first scale case: the seeded 10,000-row × 20-column numeric data
// at depth 2 under a 300 MB cap and a 2 s limit. Every error backend
// returns a verified model (Solve verifies it) with a stop status or
// optimal, its accounted peak within the cap, and returns within the
// limit plus a generous 5 s (the goal is 1 s; the machine may be loaded).
// Before the scale work dl85, cadl85 and blossom died with "out of
// memory" here (pair counts over ~200k tests).
func TestScale10kEveryErrorBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds per backend")
	}
	d := modeltest.Numeric(10_000, 20, 1)
	const limit = 2 * time.Second
	for _, b := range []string{"cart", "dl85", "cadl85", "blossom", "contree"} {
		start := time.Now()
		res, err := odtkit.Solve(context.Background(), d, model.Problem{MaxDepth: 2},
			odtkit.Settings{Backend: b, TimeLimit: limit, MemoryLimitMB: 300})
		took := time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", b, err)
			continue
		}
		switch res.Status {
		case model.StatusOptimal, model.StatusFeasible, model.StatusTimeLimit, model.StatusMemory:
		default:
			t.Errorf("%s: status %s", b, res.Status)
		}
		if res.Model == nil || res.Errors != res.Model.Errors(d) {
			t.Errorf("%s: model %v, errors %d", b, res.Model != nil, res.Errors)
		}
		if peak, ok := res.Stats["budget_peak_mb"].(float64); ok && peak > 300 {
			t.Errorf("%s: accounted peak %.1f MB over the 300 MB cap", b, peak)
		}
		if took > limit+5*time.Second {
			t.Errorf("%s: returned after %v with a %v limit", b, took, limit)
		}
		t.Logf("%s: %s, %d errors, %.2f s", b, res.Status, res.Errors, took.Seconds())
	}
}
