package contree

import (
	"context"
	"fmt"
	"testing"
)

// The cells of the bound-phase tests: depth 4 and 5, where the phase runs.
var bpCells = []bfCell{{60, 4, 5, 3, 4}, {300, 4, 12, 2, 4}, {150, 3, 20, 3, 4}, {80, 4, 6, 3, 5}}

// With the bound phase the search proves the optimum the depth-first
// search proves, whatever its number of probes and however little work each
// probe's sides get (so that most side bounds come from searches cut
// short); every bound reported is at most the optimum and above the one
// before.
func TestBoundPhaseAgrees(t *testing.T) {
	var probed, cut int64
	for ci, c := range bpCells {
		for seed := range uint64(3) {
			in := randomInput(c.rows, c.cols, c.levels, c.k, seed+uint64(30*ci))
			dfCfg := productionConfig(c.depth, 1)
			dfCfg.DepthFirstRoot = true
			df := Solve(context.Background(), in, dfCfg, nil)
			checkResult(t, in, df)
			if !df.Optimal {
				t.Fatal("depth-first search not optimal")
			}
			for _, probes := range []int{1, 4} {
				for _, work := range []int64{1, 20, 1000} {
					name := fmt.Sprintf("%dx%d/k%d/d%d/seed%d/probes%d/work%d", c.rows, c.cols, c.k, c.depth, seed, probes, work)
					var bounds []int
					cfg := productionConfig(c.depth, 1)
					cfg.BoundProbes, cfg.BoundWork = probes, work
					cfg.OnBound = func(lb int) { bounds = append(bounds, lb) }
					r := Solve(context.Background(), in, cfg, nil)
					checkResult(t, in, r)
					probed += r.Stats.BoundProbes
					cut += r.Stats.BoundCut
					if !r.Optimal || r.Errors != df.Errors {
						t.Fatalf("%s: %d errors (bound %d, optimal %v); depth-first %d", name, r.Errors, r.LowerBound, r.Optimal, df.Errors)
					}
					for i, b := range bounds {
						if b > df.Errors || (i > 0 && b <= bounds[i-1]) {
							t.Fatalf("%s: bounds reported %v (optimum %d): not rising or above it", name, bounds, df.Errors)
						}
					}
				}
			}
		}
	}
	// Both kinds of side bounds were taken: searches cut short and
	// searches ended.
	if cut == 0 || cut == 2*probed {
		t.Errorf("%d probes, %d sides cut short", probed, cut)
	}
}

// A search stopped in or after the bound phase reports a bound never
// above the optimum; some stopped runs have a positive bound below
// their tree.
func TestBoundPhaseStoppedBound(t *testing.T) {
	stoppedBounds(t, bpCells, 11, 50000, func(depth int) Config {
		cfg := productionConfig(depth, 1)
		cfg.BoundProbes, cfg.BoundWork = 2, 10
		return cfg
	})
}
