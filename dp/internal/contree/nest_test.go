package contree

import (
	"context"
	"fmt"
	"testing"
)

// A side's floors come only from the recorded sides it contains (low
// sides at ranks up to its own, high sides at ranks from its own on),
// and for each part only from the bounds of the parts it contains.
func TestNestFloorsNested(t *testing.T) {
	s, _ := newSolver(randomInput(10, 2, 4, 2, 1))
	s.nestRun = true
	ns := s.nestReset(0)
	rec := func(f int, r int32, high bool, g int, gr int32, lbL, lbR int) {
		s.nestBegin(ns, f, r, high)
		s.nestRecord(ns, g, gr, lbL, lbR)
		ns.cur = nil
	}
	rec(0, 5, false, 1, 3, 7, 2) // low side of feature 0 at rank 5
	rec(0, 9, false, 1, 6, 4, 9) // at rank 9: contains rank 5's
	rec(0, 5, true, 1, 3, 8, 8)  // a high side: not a source of low sides
	rec(1, 5, false, 1, 3, 50, 50)
	cases := []struct {
		r      int32 // the low side's rank
		g      int
		gr     int32
		fl, fr int
	}{
		{4, 1, 3, 0, 0}, // contains neither
		{5, 1, 3, 7, 2}, // the same rows as rank 5's side
		{5, 1, 2, 0, 2}, // g-low part at 2 does not contain the one at 3
		{5, 1, 4, 7, 0}, // g-high part above 4 does not contain the one above 3
		{9, 1, 6, 7, 9}, // both sides: max over the parts it contains
		{9, 1, 3, 7, 9},
		{9, 0, 3, 0, 0}, // another feature g
	}
	for _, c := range cases {
		s.nestBegin(ns, 0, c.r, false)
		fl, fr := nestFloors(ns, c.g, c.gr)
		ns.cur = nil
		if fl != c.fl || fr != c.fr {
			t.Errorf("low side at %d, g%d at %d: floors %d, %d; want %d, %d", c.r, c.g, c.gr, fl, fr, c.fl, c.fr)
		}
	}
	s.nestBegin(ns, 0, 4, true) // the high side above 4 contains the one above 5
	if fl, fr := nestFloors(ns, 1, 3); fl != 8 || fr != 8 {
		t.Errorf("high side above 4: floors %d, %d; want 8, 8", fl, fr)
	}
	ns = s.nestReset(0)
	s.nestBegin(ns, 0, 9, false)
	if fl, fr := nestFloors(ns, 1, 6); fl != 0 || fr != 0 {
		t.Errorf("after a reset: floors %d, %d; want 0, 0", fl, fr)
	}
}

// The search with nested sides' bounds proves the optimum of the search
// without them, at depths 3 and 4, sequential best-first and depth-first
// roots, and on some data settles thresholds by them.
func TestNestAgrees(t *testing.T) {
	cut := false
	for ci, c := range bfCells {
		for seed := range uint64(4) {
			in := randomInput(c.rows, c.cols, c.levels, c.k, seed+uint64(100*ci)+7)
			for _, dfRoot := range []bool{false, true} {
				name := fmt.Sprintf("%dx%d/k%d/d%d/seed%d/df%v", c.rows, c.cols, c.k, c.depth, seed, dfRoot)
				cfg := productionConfig(c.depth, 1)
				cfg.DepthFirstRoot = dfRoot
				with := Solve(context.Background(), in, cfg, nil)
				checkResult(t, in, with)
				cfg.NoNest = true
				without := Solve(context.Background(), in, cfg, nil)
				checkResult(t, in, without)
				if !with.Optimal || !without.Optimal || with.Errors != without.Errors {
					t.Fatalf("%s: %d errors (optimal %v) with nested bounds, %d (optimal %v) without",
						name, with.Errors, with.Optimal, without.Errors, without.Optimal)
				}
				if without.Stats.NestCut != 0 {
					t.Fatalf("%s: NoNest cut %d thresholds", name, without.Stats.NestCut)
				}
				cut = cut || with.Stats.NestCut > 0
			}
		}
	}
	if !cut {
		t.Error("no threshold was settled by nested bounds")
	}
}
