package blossom

import (
	"context"
	"math/rand/v2"
	"testing"
)

// randomData draws n rows of m binary features with C classes and
// weights in 1..maxW; the label depends on a few features plus noise, so
// that trees have something to find.
func randomData(t *testing.T, rng *rand.Rand, n, m, C int, maxW int64) *Data {
	t.Helper()
	w := (n + 63) / 64
	cols := make([][]uint64, m)
	for f := range cols {
		cols[f] = make([]uint64, w)
	}
	labels := make([]int, n)
	weights := make([]int64, n)
	for r := range n {
		key := 0
		for f := range m {
			if rng.IntN(2) == 1 {
				cols[f][r>>6] |= 1 << uint(r&63)
				if f < 3 {
					key += 1 << f
				}
			}
		}
		labels[r] = key % C
		if rng.IntN(4) == 0 {
			labels[r] = rng.IntN(C)
		}
		weights[r] = 1 + rng.Int64N(maxW)
	}
	d, err := NewData(n, C, cols, labels, weights)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// allRows lists the row slots of d.
func allRows(d *Data) []int {
	rows := make([]int, d.N)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

func has(col []uint64, r int) bool { return col[r>>6]>>uint(r&63)&1 != 0 }

// bruteForce is the plain recursion over all tests: the least weighted
// error of a tree of depth at most depth on rows.
func bruteForce(d *Data, rows []int, depth int) int64 {
	cnt := make([]int64, d.C)
	for _, r := range rows {
		cnt[d.Label[r]] += d.Weight[r]
	}
	best, _ := errOf(cnt)
	if depth == 0 || best == 0 {
		return best
	}
	for _, col := range d.Cols {
		var lo, hi []int
		for _, r := range rows {
			if has(col, r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if len(lo) == 0 || len(hi) == 0 {
			continue
		}
		if e := bruteForce(d, lo, depth-1) + bruteForce(d, hi, depth-1); e < best {
			best = e
		}
	}
	return best
}

// treeError evaluates t on d, independently of the search.
func treeError(d *Data, t *Tree) int64 {
	var e int64
	for r := range d.N {
		x := t
		for x.Feature >= 0 {
			if has(d.Cols[x.Feature], r) {
				x = x.High
			} else {
				x = x.Low
			}
		}
		if x.Class != d.Label[r] {
			e += d.Weight[r]
		}
	}
	return e
}

func allOptions(depth int) []Options {
	var out []Options
	for _, ord := range []Order{OrderGini, OrderError, OrderIndex} {
		for mask := range 8 {
			out = append(out, Options{MaxDepth: depth, Order: ord,
				NoLowerBound: mask&1 != 0, NoDepth2: mask&2 != 0, NoDropUninformative: mask&4 != 0})
		}
	}
	return out
}

func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var shared int64
	defer func() {
		if shared == 0 && !t.Failed() {
			t.Error("no pair of siblings was solved from its parent's counts: that path is untested")
		}
	}()
	for trial := range 40 {
		n := 5 + rng.IntN(150)
		m := 1 + rng.IntN(6)
		C := 2 + rng.IntN(3)
		maxW := int64(1)
		if trial%2 == 1 {
			maxW = 5
		}
		d := randomData(t, rng, n, m, C, maxW)
		rows := allRows(d)
		for depth := 0; depth <= 4; depth++ {
			want := bruteForce(d, rows, depth)
			for _, o := range allOptions(depth) {
				var last int64 = -1
				res := Solve(context.Background(), d, o, func(e int64, tr *Tree) {
					if last >= 0 && e >= last {
						t.Errorf("trial %d depth %d %+v: incumbent %d does not improve %d", trial, depth, o, e, last)
					}
					last = e
					if got := treeError(d, tr); got != e {
						t.Errorf("trial %d depth %d %+v: incumbent claims %d, makes %d", trial, depth, o, e, got)
					}
				})
				shared += res.Stats.ParentCounts
				if !res.Optimal || res.Error != want {
					t.Fatalf("trial %d (n=%d m=%d C=%d) depth %d %+v: got %d optimal=%v, brute force %d",
						trial, n, m, C, depth, o, res.Error, res.Optimal, want)
				}
				if got := treeError(d, res.Tree); got != res.Error {
					t.Fatalf("trial %d depth %d %+v: tree makes %d errors, claims %d", trial, depth, o, got, res.Error)
				}
				if res.Tree.Depth() > depth {
					t.Fatalf("tree depth %d > %d", res.Tree.Depth(), depth)
				}
			}
		}
	}
}

func TestCancelledReturnsTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := randomData(t, rng, 300, 30, 2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Solve(ctx, d, Options{MaxDepth: 6, CheckEvery: 1}, nil)
	if res.Optimal {
		t.Fatal("a cancelled search claims optimality")
	}
	if got := treeError(d, res.Tree); got != res.Error {
		t.Fatalf("tree makes %d errors, claims %d", got, res.Error)
	}
}
