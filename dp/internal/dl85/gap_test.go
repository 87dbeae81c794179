package dl85

import (
	"context"
	"fmt"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// TestRelaxedGap checks gapped searches against brute force: with
// branches that stop within the relative gap (the default) and with the
// gap at the root only, with and without the depth-2 step, on one and
// three workers, the tree's error is at least the optimum, the bound at
// most the optimum, and the two within the gap. Branches settled within
// the gap occur, and only when the branches may stop within it.
func TestRelaxedGap(t *testing.T) {
	relaxed := map[bool]int64{}
	gaps := 0
	for seed := uint64(1); seed <= 10; seed++ {
		v := model.Binarize(modeltest.Binary(120+int(seed)*23, 9, seed))
		d := viewData(t, v)
		for _, depth := range []int{3, 4, 5} {
			want := bruteErr(v, allRows(v), depth)
			for _, g := range []float64{0.1, 0.3, 0.5, 1} {
				for _, rootOnly := range []bool{false, true} {
					for _, depth2 := range []bool{true, false} {
						for _, workers := range []int{1, 3} {
							name := fmt.Sprintf("seed %d depth %d gap %v root only %v depth2 %v workers %d", seed, depth, g, rootOnly, depth2, workers)
							cfg := Config{MaxDepth: depth, Depth2: depth2, Workers: workers, RelGap: g, RootGapOnly: rootOnly}
							if seed%3 == 0 {
								cfg.AbsGap = 1.5 // at the root only
							}
							r, err := Solve(context.Background(), d, cfg, NoRule{})
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							checkResult(t, v, r, depth)
							allow := max(cfg.AbsGap, g*r.Err)
							if r.LB > want || r.Err < want || r.Err-r.LB > allow+1e-9 {
								t.Fatalf("%s: error %v bound %v (gap %v), brute force %v", name, r.Err, r.LB, allow, want)
							}
							if r.Optimal == r.Gap {
								t.Fatalf("%s: optimal %v gap %v", name, r.Optimal, r.Gap)
							}
							if r.Gap {
								gaps++
							}
							relaxed[rootOnly] += r.GapSettled
						}
					}
				}
			}
		}
	}
	if relaxed[false] == 0 || relaxed[true] != 0 || gaps == 0 {
		t.Fatalf("branches settled within the gap: %d, with the gap at the root only %d; %d searches stopped within the gap", relaxed[false], relaxed[true], gaps)
	}
}

// TestBoundPhase checks the bound phase (Config.BoundGap) against brute
// force: the search still proves the optimum, every bound reported is at
// most the optimum and rises, the phase's bound is reported before the
// end, and a search stopped at its first bound above the irreducible
// error returns a bound at most the optimum and no gap status.
func TestBoundPhase(t *testing.T) {
	early := 0
	for seed := uint64(1); seed <= 8; seed++ {
		v := model.Binarize(modeltest.Binary(120+int(seed)*23, 9, seed))
		d := viewData(t, v)
		for _, depth := range []int{3, 4, 5} {
			want := bruteErr(v, allRows(v), depth)
			for _, g := range []float64{0.05, 0.2, 0.5, 1} {
				for _, workers := range []int{1, 3} {
					name := fmt.Sprintf("seed %d depth %d bound gap %v workers %d", seed, depth, g, workers)
					var bounds []float64
					cfg := Config{MaxDepth: depth, Depth2: true, Workers: workers, BoundGap: g,
						OnBound: func(lb float64) { bounds = append(bounds, lb) }}
					r, err := Solve(context.Background(), d, cfg, NoRule{})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					checkResult(t, v, r, depth)
					if !r.Optimal || r.Gap || r.Err != want {
						t.Fatalf("%s: error %v optimal %v gap %v, brute force %v", name, r.Err, r.Optimal, r.Gap, want)
					}
					for k, lb := range bounds {
						if lb > want || (k > 0 && lb <= bounds[k-1]) {
							t.Fatalf("%s: bounds %v, brute force %v", name, bounds, want)
						}
					}
					if len(bounds) > 2 && bounds[len(bounds)-2] > bounds[0] {
						early++
					}

					ctx, cancel := context.WithCancel(context.Background())
					irr := -1.0
					cfg.OnBound = func(lb float64) {
						if irr < 0 {
							irr = lb
						} else if lb > irr {
							cancel()
						}
					}
					r, err = Solve(ctx, d, cfg, NoRule{})
					cancel()
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					checkResult(t, v, r, depth)
					if r.LB > want || r.Err < want || r.Gap || (r.Optimal && r.Err != want) {
						t.Fatalf("%s, stopped: error %v bound %v optimal %v gap %v, brute force %v", name, r.Err, r.LB, r.Optimal, r.Gap, want)
					}
				}
			}
		}
	}
	if early == 0 {
		t.Fatal("no bound phase reported a bound before the end")
	}
}
