package contree

import (
	"context"
	"testing"
)

// newSolver is a sequential solver on in with its sorted root view, as
// Solve builds them.
func newSolver(in Input) (*solver, *view) {
	n := len(in.Labels)
	s := &solver{ctx: context.Background(), p: len(in.Columns), k: in.Classes, n: n, vals: in.Columns}
	s.side = make([]uint8, n)
	s.rowH1 = make([]uint64, n)
	s.rowH2 = make([]uint64, n)
	s.cl, s.cr = make([]int, s.k), make([]int, s.k)
	s.fql, s.fqr = make([]int, s.k), make([]int, s.k)
	return s, s.rootView(in)
}

// subsetErrors is the number of rows of the list misclassified by t.
func subsetErrors(in Input, t *Node, rows []entry) int {
	errs := 0
	for _, e := range rows {
		if r := int(e.row()); predict(in, t, r) != in.Labels[r] {
			errs++
		}
	}
	return errs
}

// d2split with a cap returns, for each side, its depth-one optimum and a
// tree making exactly that many errors on the side's rows when the optimum
// is below the cap, and otherwise the cap and no tree; on random data with
// 2 to 6 classes (the two-class and the k-class scans), every first
// feature and threshold, and caps from 0 to past the leaf's error.
func TestD2SplitCapped(t *testing.T) {
	for seed := range uint64(30) {
		k := 2 + int(seed%5)
		in := randomInput(40+int(seed)*7, 3, 3+int(seed%6), k, seed)
		s, root := newSolver(in)
		for f1 := range s.p {
			col := root.cols[f1]
			for cut := 1; cut < len(col); cut++ {
				if col[cut].rank == col[cut-1].rank {
					continue
				}
				left, right := s.splitView(root, f1, cut, 0)
				wantL, wantR := s.depthOne(left).Errors, s.depthOne(right).Errors
				for _, limit := range []int{0, 1, wantL, wantR, wantL + 1, wantR + 1, root.n + 1} {
					lbL, lbR, solL, solR := s.d2split(root, f1, cut, limit)
					for sd, c := range []struct {
						lb, want int
						sol      *Node
						rows     []entry
					}{{lbL, wantL, solL, left.cols[0]}, {lbR, wantR, solR, right.cols[0]}} {
						if c.lb != min(c.want, limit) || (c.sol != nil) != (c.want < limit) {
							t.Fatalf("seed %d f1 %d cut %d limit %d side %d: bound %d, tree %v; optimum %d", seed, f1, cut, limit, sd, c.lb, c.sol != nil, c.want)
						}
						if c.sol != nil && (c.sol.Errors != c.want || subsetErrors(in, c.sol, c.rows) != c.want) {
							t.Fatalf("seed %d f1 %d cut %d limit %d side %d: tree claims %d errors, makes %d; optimum %d", seed, f1, cut, limit, sd, c.sol.Errors, subsetErrors(in, c.sol, c.rows), c.want)
						}
					}
				}
			}
		}
	}
}
