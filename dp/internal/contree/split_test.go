package contree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// newSolver is a sequential solver on in with its sorted root view, as
// Solve builds them.
func newSolver(in Input) (*solver, *view) {
	n := len(in.Labels)
	s := &solver{ctx: context.Background(), p: len(in.Columns), k: in.Classes, n: n, vals: in.Columns}
	s.side = make([]uint8, n)
	s.hashRows()
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

// eachCut calls fn at every threshold of first feature f1 of root with
// the cut's two sides and their depth-one optima (by depthOne).
func eachCut(s *solver, root *view, f1 int, fn func(cut int, left, right *view, wantL, wantR int)) {
	col := root.cols[f1]
	for cut := 1; cut < len(col); cut++ {
		if col[cut].rank == col[cut-1].rank {
			continue
		}
		left, right := s.splitView(root, f1, cut, 0)
		fn(cut, left, right, s.depthOne(left).Errors, s.depthOne(right).Errors)
	}
}

// d2split with caps returns, for each side, its depth-one optimum and a
// tree making exactly that many errors on the side's rows when the optimum
// is below the side's cap, and otherwise the cap and no tree; on random
// data with 2 to 6 classes (the two-class and the k-class scans), every
// first feature and threshold, and each side's cap from 0 to past the
// leaf's error, the two caps equal or not; with keep, the same bounds and
// trees only below it.
func TestD2SplitCapped(t *testing.T) {
	for seed := range uint64(30) {
		k := 2 + int(seed%5)
		in := randomInput(40+int(seed)*7, 3, 3+int(seed%6), k, seed)
		s, root := newSolver(in)
		for f1 := range s.p {
			eachCut(s, root, f1, func(cut int, left, right *view, wantL, wantR int) {
				caps := []int{0, 1, wantL, wantR, wantL + 1, wantR + 1, root.n + 1}
				for q, limL := range caps {
					for _, limR := range []int{limL, caps[(q*3+1)%len(caps)]} {
						lim := [2]int{limL, limR}
						lbL, lbR, solL, solR := s.d2split(root, f1, cut, lim, math.MaxInt)
						for sd, c := range []struct {
							lb, want int
							sol      *Node
							rows     []entry
						}{{lbL, wantL, solL, left.cols[0]}, {lbR, wantR, solR, right.cols[0]}} {
							if c.lb != min(c.want, lim[sd]) || (c.sol != nil) != (c.want < lim[sd]) {
								t.Fatalf("seed %d f1 %d cut %d caps %v side %d: bound %d, tree %v; optimum %d", seed, f1, cut, lim, sd, c.lb, c.sol != nil, c.want)
							}
							if c.sol != nil && (c.sol.Errors != c.want || subsetErrors(in, c.sol, c.rows) != c.want) {
								t.Fatalf("seed %d f1 %d cut %d caps %v side %d: tree claims %d errors, makes %d; optimum %d", seed, f1, cut, lim, sd, c.sol.Errors, subsetErrors(in, c.sol, c.rows), c.want)
							}
						}
						// With keep, the same bounds, and trees only when the
						// two bounds sum below it.
						for _, keep := range []int{lbL + lbR, lbL + lbR + 1} {
							kL, kR, kSolL, kSolR := s.d2split(root, f1, cut, lim, keep)
							build := lbL+lbR < keep
							if kL != lbL || kR != lbR || (kSolL != nil) != (build && solL != nil) || (kSolR != nil) != (build && solR != nil) {
								t.Fatalf("seed %d f1 %d cut %d caps %v keep %d: bounds %d/%d trees %v/%v, without keep %d/%d trees %v/%v", seed, f1, cut, lim, keep, kL, kR, kSolL != nil, kSolR != nil, lbL, lbR, solL != nil, solR != nil)
							}
						}
					}
				}
			})
		}
	}
}

// sameAsRows fails unless alt, a depth-two call at f1's cut with the
// given caps, returns what d2split returns there: bounds, trees to the
// threshold, and the next call's hint (both start from hint).
func sameAsRows(t *testing.T, name string, s *solver, root *view, f1, cut int, limit [2]int, hint [2]int, alt func() (int, int, *Node, *Node)) {
	t.Helper()
	s.d2hint = hint
	lbL, lbR, solL, solR := s.d2split(root, f1, cut, limit, math.MaxInt)
	rowHint := s.d2hint
	s.d2hint = hint
	aL, aR, asL, asR := alt()
	if lbL != aL || lbR != aR || s.d2hint != rowHint {
		t.Fatalf("%s f1 %d cut %d caps %v: rows %d/%d hint %v, other %d/%d hint %v", name, f1, cut, limit, lbL, lbR, rowHint, aL, aR, s.d2hint)
	}
	for sd, p := range [][2]*Node{{solL, asL}, {solR, asR}} {
		if (p[0] == nil) != (p[1] == nil) || p[0] != nil && (treeString(p[0]) != treeString(p[1]) || p[0].Errors != p[1].Errors) {
			t.Fatalf("%s f1 %d cut %d caps %v side %d: rows %v, other %v", name, f1, cut, limit, sd, p[0], p[1])
		}
	}
}

// d2splitTab returns what d2split returns at every threshold of every
// first feature and several caps, on random data with 2 to 5 classes and
// few values.
func TestD2SplitTableMatchesRows(t *testing.T) {
	for seed := range uint64(20) {
		k := 2 + int(seed%4)
		in := randomInput(60+int(seed)*9, 3, 2+int(seed%7), k, seed+100)
		s, root := newSolver(in)
		var tb d2tab
		for f1 := range s.p {
			cum, m := thresholds(root.cols[f1], nil)
			if !s.buildTab(root, &tb, f1) {
				t.Fatal("buildTab refused without a budget")
			}
			if tb.r1 != m+1 {
				t.Fatalf("seed %d f1 %d: %d values in the table, %d thresholds", seed, f1, tb.r1, m)
			}
			for w := range m {
				for _, limit := range [][2]int{{0, 0}, {1, 1}, {3, 3}, {root.n + 1, root.n + 1}, {1, 3}, {root.n + 1, 2}} {
					sameAsRows(t, fmt.Sprintf("table seed %d", seed), s, root, f1, int(cum[w]), limit, [2]int{int(seed) % 3, -1}, func() (int, int, *Node, *Node) {
						return s.d2splitTab(root, &tb, w, limit, math.MaxInt)
					})
				}
			}
		}
	}
}

// d2splitBits returns what d2split returns at the thresholds of every
// first feature visited out of order (the left marks move both ways),
// with several caps, on random data with 2 to 5 classes of 1 to 300 rows
// (one and several 64-row words).
func TestD2SplitBitsMatchesRows(t *testing.T) {
	for seed := range uint64(48) {
		rows := 1 + int(seed*seed)%300
		in := randomInput(rows, 3, 2+int(seed%9)*5, 2+int(seed/3)%4, seed+300)
		s, root := newSolver(in)
		var bt d2bits
		for f1 := range s.p {
			cum, m := thresholds(root.cols[f1], nil)
			if !s.buildBits(root, &bt, f1) {
				t.Fatal("buildBits refused without a budget")
			}
			for j := range 2 * m {
				cut := int(cum[(j*7919)%m])
				for _, limit := range [][2]int{{0, 0}, {2, 2}, {root.n + 1, root.n + 1}, {2, root.n + 1}, {root.n + 1, 3}} {
					sameAsRows(t, fmt.Sprintf("bits seed %d", seed), s, root, f1, cut, limit, [2]int{-1, int(seed) % 3}, func() (int, int, *Node, *Node) {
						return s.d2splitBits(root, &bt, f1, cut, limit, math.MaxInt)
					})
				}
			}
		}
	}
}

// The search with a depth-two shortcut (used: its calls) returns the tree
// of the row scans (off switches it off) on in, at depths 2 and 3, and
// does use it.
func sameSolve(t *testing.T, name string, in Input, off func(*Config), used func(Stats) int64) {
	t.Helper()
	for _, d := range []int{2, 3} {
		cfg := productionConfig(d, 1)
		with := Solve(context.Background(), in, cfg, nil)
		off(&cfg)
		rows := Solve(context.Background(), in, cfg, nil)
		checkResult(t, in, with)
		if used(with.Stats) == 0 || used(rows.Stats) != 0 {
			t.Fatalf("%s depth %d: %d calls by the shortcut, %d with it off", name, d, used(with.Stats), used(rows.Stats))
		}
		if treeString(with.Tree) != treeString(rows.Tree) || with.Errors != rows.Errors || !with.Optimal {
			t.Fatalf("%s depth %d: with the shortcut %s (%d), by rows %s (%d)", name, d, treeString(with.Tree), with.Errors, treeString(rows.Tree), rows.Errors)
		}
	}
}

// On data with few values against its rows the search goes by value
// tables; on data with many values, by bit sets (two and three classes).
func TestSolveShortcuts(t *testing.T) {
	for seed := range uint64(4) {
		sameSolve(t, fmt.Sprintf("tables seed %d", seed), randomInput(3000, 3, 6, 2+int(seed%2), seed+200),
			func(c *Config) { c.NoTable = true }, func(s Stats) int64 { return s.D2ByTable })
		sameSolve(t, fmt.Sprintf("bits seed %d", seed), randomInput(600, 4, 150, 2+int(seed%2), seed+400),
			func(c *Config) { c.NoBits = true }, func(s Stats) int64 { return s.D2ByBits })
	}
}

// Floors at or below the sides' depth-one optima change nothing: every
// depth-two call (by rows with two and more classes, by tables, by bit
// sets) returns the bounds, trees and hint it returns without them, on
// random data at every threshold of every first feature, with several
// caps and floors from 0 to the optimum.
func TestD2FloorsKeepResults(t *testing.T) {
	for seed := range uint64(24) {
		k := 2 + int(seed%3)
		if seed%2 == 0 {
			k = 2
		}
		in := randomInput(30+int(seed*seed)%250, 3, 2+int(seed%7)*4, k, seed+700)
		s, root := newSolver(in)
		var tb d2tab
		var bt d2bits
		for f1 := range s.p {
			cum, m := thresholds(root.cols[f1], nil)
			if !s.buildTab(root, &tb, f1) {
				t.Fatal("buildTab refused without a budget")
			}
			if !s.buildBits(root, &bt, f1) {
				t.Fatal("buildBits refused without a budget")
			}
			for w := range m {
				cut := int(cum[w])
				left, right := s.splitView(root, f1, cut, 0)
				optL, optR := s.depthOne(left).Errors, s.depthOne(right).Errors
				calls := map[string]func(limit [2]int) (int, int, *Node, *Node){
					"rows":  func(limit [2]int) (int, int, *Node, *Node) { return s.d2split(root, f1, cut, limit, math.MaxInt) },
					"table": func(limit [2]int) (int, int, *Node, *Node) { return s.d2splitTab(root, &tb, w, limit, math.MaxInt) },
					"bits": func(limit [2]int) (int, int, *Node, *Node) {
						return s.d2splitBits(root, &bt, f1, cut, limit, math.MaxInt)
					},
				}
				for name, call := range calls {
					for _, limit := range [][2]int{{1, 1}, {optL + optR, optL + optR}, {root.n + 1, root.n + 1}, {optL + 1, optR}} {
						for _, dl := range []int{0, 1, optL} {
							for _, dr := range []int{0, 2, optR} {
								hint := [2]int{int(seed) % 3, -1}
								s.d2floor, s.d2hint = [2]int{}, hint
								lbL, lbR, solL, solR := call(limit)
								wantHint := s.d2hint
								fl := [2]int{max(0, optL-dl), max(0, optR-dr)}
								s.d2floor, s.d2hint = fl, hint
								aL, aR, asL, asR := call(limit)
								gotHint := s.d2hint
								s.d2floor = [2]int{}
								if aL != lbL || aR != lbR || gotHint != wantHint {
									t.Fatalf("%s seed %d f1 %d cut %d caps %v floors %v (optima %d/%d): %d/%d hint %v, without floors %d/%d hint %v",
										name, seed, f1, cut, limit, fl, optL, optR, aL, aR, gotHint, lbL, lbR, wantHint)
								}
								for sd, p := range [][2]*Node{{solL, asL}, {solR, asR}} {
									if (p[0] == nil) != (p[1] == nil) || p[0] != nil && treeString(p[0]) != treeString(p[1]) {
										t.Fatalf("%s seed %d f1 %d cut %d caps %v floors %v side %d: %v, without floors %v", name, seed, f1, cut, limit, fl, sd, p[1], p[0])
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// A floor at or below the optimum changes neither the tree nor the bound
// of a search (a search keeps its first tree of the least errors); a
// floor at the optimum settles a subproblem whose first tree is optimal.
// On random data with 2 and 3 classes, depths 2 and 3, caps above the
// optimum and floors from 0 to it.
func TestSolveFloorKeepsTree(t *testing.T) {
	for seed := range uint64(16) {
		in := randomInput(40+int(seed)*11, 3, 3+int(seed%5)*3, 2+int(seed%2), seed+900)
		for _, d := range []int{2, 3} {
			s, root := newSolver(in)
			lb0, t0 := s.solve(root, d, root.n+1, 0, 0, 1, false)
			if t0 == nil || lb0 != t0.Errors {
				t.Fatalf("seed %d depth %d: no optimum without a floor (bound %d, tree %v)", seed, d, lb0, t0)
			}
			opt := t0.Errors
			for _, fl := range []int{0, opt / 2, max(0, opt-1), opt} {
				for _, ub := range []int{opt + 1, root.n + 1} {
					s, root := newSolver(in)
					lb, tr := s.solve(root, d, ub, fl, 0, 1, false)
					if tr == nil {
						t.Fatalf("seed %d depth %d floor %d cap %d: bound %d and no tree; without the floor %d %s", seed, d, fl, ub, lb, lb0, treeString(t0))
					}
					if lb != opt || treeString(tr) != treeString(t0) {
						t.Fatalf("seed %d depth %d floor %d cap %d: bound %d tree %s; without the floor %d %s", seed, d, fl, ub, lb, treeString(tr), lb0, treeString(t0))
					}
				}
			}
			// A floor at or above a cap at or below the optimum answers
			// the floor and no tree.
			s, root = newSolver(in)
			if lb, tr := s.solve(root, d, opt, opt, 0, 1, false); opt > 0 && (tr != nil || lb != opt) {
				t.Fatalf("seed %d depth %d: floor and cap %d: bound %d tree %v", seed, d, opt, lb, tr)
			}
		}
	}
}

// skewedInput is random data whose rows are mostly of class 0 and whose
// labels follow feature 0 in places, so that the depth-one optima of a
// split's sides lie far from the start of a scan, behind long stretches
// where no threshold beats a leaf.
func skewedInput(rows, cols, k int, seed uint64) Input {
	in := randomInput(rows, cols, rows, k, seed)
	rng := rand.New(rand.NewPCG(seed, 61))
	for r := range in.Labels {
		switch x := in.Columns[0][r] / float64(rows); {
		case x > 0.7 && x < 0.8:
			in.Labels[r] = k - 1
		case rng.IntN(5) > 0:
			in.Labels[r] = 0
		}
	}
	return in
}

// The depth-two scans skip the rows where no threshold can beat a side's
// best and still find every side's depth-one optimum: rows and bit sets
// (two to seven classes) against depthOne, at every threshold of every
// first feature, on skewed data with a distinct value per row.
func TestD2SplitSkewedOptima(t *testing.T) {
	for seed := range uint64(18) {
		k := 2 + int(seed%6)
		in := skewedInput(150+int(seed)*37, 3, k, seed+500)
		s, root := newSolver(in)
		var bt d2bits
		for f1 := range s.p {
			if !s.buildBits(root, &bt, f1) {
				t.Fatal("buildBits refused without a budget")
			}
			eachCut(s, root, f1, func(cut int, left, right *view, wantL, wantR int) {
				lbL, lbR, solL, solR := s.d2split(root, f1, cut, [2]int{root.n + 1, root.n + 1}, math.MaxInt)
				if lbL != wantL || lbR != wantR || subsetErrors(in, solL, left.cols[0]) != wantL || subsetErrors(in, solR, right.cols[0]) != wantR {
					t.Fatalf("seed %d f1 %d cut %d: rows %d/%d, optima %d/%d", seed, f1, cut, lbL, lbR, wantL, wantR)
				}
				bL, bR, bSolL, bSolR := s.d2splitBits(root, &bt, f1, cut, [2]int{root.n + 1, root.n + 1}, math.MaxInt)
				if bL != wantL || bR != wantR || subsetErrors(in, bSolL, left.cols[0]) != wantL || subsetErrors(in, bSolR, right.cols[0]) != wantR {
					t.Fatalf("seed %d f1 %d cut %d: bit sets %d/%d, optima %d/%d", seed, f1, cut, bL, bR, wantL, wantR)
				}
			})
		}
	}
}

// nthBit finds the k-th set bit of words with bits everywhere.
func TestNthBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 2000 {
		x := rng.Uint64()
		switch i % 4 {
		case 1:
			x &= rng.Uint64() // sparse
		case 2:
			x = 1 << (i % 64)
		case 3:
			x = ^uint64(0)
		}
		k := 0
		for p := range 64 {
			if x>>p&1 == 0 {
				continue
			}
			if got := nthBit(x, k); got != p {
				t.Fatalf("nthBit(%#x, %d) = %d, want %d", x, k, got, p)
			}
			k++
		}
	}
}

// After any sequence of thresholds, by any of moveTo's routes (flipping
// the rows between thresholds, starting again from no row or from every
// row left, or from a saved checkpoint), the bit sets mark exactly f1's
// first cut rows left in every feature's order, and the left class
// counts are theirs; the bit sets of a new first feature start with no
// row left (and no checkpoint of the last).
func TestMoveToMarks(t *testing.T) {
	for seed := range uint64(8) {
		in := randomInput(70+int(seed)*37+int(seed/6)*2000, 3, 40, 2+int(seed%3), seed+900)
		s, root := newSolver(in)
		var bt d2bits
		rng := rand.New(rand.NewPCG(seed, 11))
		for f1 := range s.p {
			if !s.buildBits(root, &bt, f1) {
				t.Fatal("buildBits refused without a budget")
			}
			for range 60 {
				cut := rng.IntN(root.n + 1)
				s.moveTo(root, &bt, f1, cut)
				left := map[int32]bool{}
				cl := make([]int, s.k)
				for _, e := range root.cols[f1][:cut] {
					left[e.row()] = true
					cl[e.label()]++
				}
				for y := range s.k {
					if bt.cl[y] != cl[y] {
						t.Fatalf("seed %d f1 %d cut %d: class %d has %d rows left, want %d", seed, f1, cut, y, bt.cl[y], cl[y])
					}
				}
				for f := range s.p {
					for w := range bt.nw {
						var want uint64
						for b := range 64 {
							if i := w*64 + b; i < root.n && left[root.cols[f][i].row()] {
								want |= 1 << b
							}
						}
						if got := bt.sb[f*bt.nw+w]; got != want {
							t.Fatalf("seed %d f1 %d cut %d: feature %d word %d is %x, want %x", seed, f1, cut, f, w, got, want)
						}
					}
				}
			}
		}
	}
}

// Over the relevant classes of a side (d2scan.relevant) a split's error
// is its error wherever that is below the side's best, with the same
// largest classes, and at least best elsewhere; on random class counts
// with 3 to 9 classes, bests from 0 to the leaf's error, and every split
// of the counts.
func TestRelevantClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for it := range 3000 {
		k := 3 + it%7
		f := make([]int, k)
		n := 0
		for y := range f {
			if rng.IntN(4) > 0 {
				f[y] = rng.IntN(1 + rng.IntN(30))
			}
			n += f[y]
		}
		_, m := argmax(f)
		best := rng.IntN(n - m + 1)
		sc := d2scan{k: k, fq: [2][]int{f, f}, n: [2]int{n, n}, b: [2]*best1{{err: best}, {err: best}}, due: make([]int, 2*k)}
		at := sc.relevant(0, make([]int, 0, k), 1)
		rel := sc.rel[0]
		for _, y := range rel {
			if f[y] == 0 {
				t.Fatalf("counts %v best %d: empty class %d relevant", f, best, y)
			}
		}
		if (len(rel) == 0) != (at > n) {
			t.Fatalf("counts %v best %d: relevant %v, at %d", f, best, rel, at)
		}
		all := make([]int, k)
		for y := range all {
			all[y] = y
		}
		for range 20 {
			c := make([]int, k)
			for y := range c {
				c[y] = rng.IntN(f[y] + 1)
			}
			lo, lc, hi, hc := lowHighIn(c, f, all)
			err := n - lc - hc
			if len(rel) == 0 {
				if err < best {
					t.Fatalf("counts %v low %v best %d: no relevant class, error %d", f, c, best, err)
				}
				continue
			}
			rlo, rlc, rhi, rhc := lowHighIn(c, f, rel)
			rerr := n - rlc - rhc
			if err < best && (rerr != err || rlo != lo || rhi != hi) || err >= best && rerr < best {
				t.Fatalf("counts %v low %v best %d relevant %v: error %d (%d, %d), over the relevant %d (%d, %d)", f, c, best, rel, err, lo, hi, rerr, rlo, rhi)
			}
		}
	}
}
