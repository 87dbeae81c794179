package dl85

import (
	"context"
	"math"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// TestDive stops the search at its second tree, the first after the
// root's leaf, which is the dive's when the dive beats the leaf, and
// checks that tree against its definition, computed
// here independently of the engine: above the last two levels every
// split is a test of highest information gain on the rows that reach it
// (or a leaf where the split does not help), and every branch of the
// last two levels (or a pure branch) is an optimal tree of its depth,
// by brute force. Full searches with and without the dive return the
// same optimal tree.
func TestDive(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 12; seed++ {
		v := model.Binarize(modeltest.Binary(60+int(seed)*7, 6, seed))
		d := viewData(t, v)
		for _, depth := range []int{3, 4} {
			for _, workers := range []int{1, 2} {
				ctx, cancel := context.WithCancel(context.Background())
				var first *Tree
				calls := 0
				cfg := Config{MaxDepth: depth, Depth2: true, Workers: workers, OnIncumbent: func(tr *Tree, _ float64) {
					if calls++; calls == 2 {
						first = tr
						cancel()
					}
				}}
				r, err := Solve(ctx, d, cfg, NoRule{})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, v, r, depth)
				if first == nil || first.Depth() < 2 {
					continue // the dive did not beat the leaf
				}
				checked++
				checkDive(t, v, first, allRows(v), depth)

				on := solveFull(t, d, Config{MaxDepth: depth, Depth2: true, Workers: workers})
				off := solveFull(t, d, Config{MaxDepth: depth, Depth2: true, Workers: workers, NoDive: true})
				if on.Err != off.Err || !sameTree(on.Tree, off.Tree) {
					t.Fatalf("seed %d depth %d, %d workers: optimum %v with the dive, %v without, or not the same tree", seed, depth, workers, on.Err, off.Err)
				}
				if treeErrors(v, first) < on.Err {
					t.Fatalf("seed %d depth %d: the dive's tree (%v) beats the optimum %v", seed, depth, treeErrors(v, first), on.Err)
				}
			}
		}
	}
	if checked < 24 {
		t.Fatalf("only %d of 48 searches showed a dive's tree", checked)
	}
}

func solveFull(t *testing.T, d *Data, cfg Config) Result {
	t.Helper()
	r, err := Solve(context.Background(), d, cfg, NoRule{})
	if err != nil || !r.Optimal {
		t.Fatalf("full search: %v, optimal %v", err, r.Optimal)
	}
	return r
}

// checkDive checks tr, the dive's tree of remaining depth rd for rows.
func checkDive(t *testing.T, v *model.BinaryView, tr *Tree, rows []int, rd int) {
	t.Helper()
	cnt := classCounts(v, rows)
	if rd <= 2 || minority(cnt) == 0 {
		if got, want := errorsOn(v, tr, rows), bruteErr(v, rows, rd); got != want {
			t.Fatalf("a branch of depth %d on %d rows makes %v errors, its optimum is %v", rd, len(rows), got, want)
		}
		return
	}
	if tr.Test < 0 {
		return // a leaf where the greedy split did not pay
	}
	best := math.Inf(-1)
	for f := range v.Tests {
		if g, ok := gainOf(v, rows, f); ok {
			best = max(best, g)
		}
	}
	if g, ok := gainOf(v, rows, tr.Test); !ok || g < best-1e-9 {
		t.Fatalf("split on test %d (gain %v) where the best gain is %v", tr.Test, g, best)
	}
	lo, hi := splitRows(v, rows, tr.Test)
	checkDive(t, v, tr.Lo, lo, rd-1)
	checkDive(t, v, tr.Hi, hi, rd-1)
}

func classCounts(v *model.BinaryView, rows []int) []float64 {
	cnt := make([]float64, len(v.Class))
	for _, r := range rows {
		cnt[v.Data.Labels[r]]++
	}
	return cnt
}

func minority(cnt []float64) float64 {
	tot, m := 0.0, 0.0
	for _, x := range cnt {
		tot += x
		m = max(m, x)
	}
	return tot - m
}

func splitRows(v *model.BinaryView, rows []int, f int) (lo, hi []int) {
	for _, r := range rows {
		if v.Value(f, r) {
			hi = append(hi, r)
		} else {
			lo = append(lo, r)
		}
	}
	return lo, hi
}

func entropyOf(cnt []float64) float64 {
	tot := 0.0
	for _, x := range cnt {
		tot += x
	}
	h := 0.0
	for _, x := range cnt {
		if x > 0 {
			p := x / tot
			h -= p * math.Log2(p)
		}
	}
	return h
}

// gainOf is the information gain of test f on rows; ok is false when f
// leaves one side empty.
func gainOf(v *model.BinaryView, rows []int, f int) (float64, bool) {
	lo, hi := splitRows(v, rows, f)
	if len(lo) == 0 || len(hi) == 0 {
		return 0, false
	}
	n := float64(len(rows))
	return entropyOf(classCounts(v, rows)) - float64(len(lo))/n*entropyOf(classCounts(v, lo)) - float64(len(hi))/n*entropyOf(classCounts(v, hi)), true
}

// errorsOn is the weighted error of tr on rows.
func errorsOn(v *model.BinaryView, tr *Tree, rows []int) float64 {
	e := 0.0
	for _, r := range rows {
		n := tr
		for n.Test >= 0 {
			if v.Value(n.Test, r) {
				n = n.Hi
			} else {
				n = n.Lo
			}
		}
		if n.Class != v.Data.Labels[r] {
			e += v.Data.Weight(r)
		}
	}
	return e
}

// allRows lists the view's rows.
func allRows(v *model.BinaryView) []int {
	rows := make([]int, v.N)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// bruteErr is the least error of a tree of depth at most rd on rows,
// by trying every test at every node.
func bruteErr(v *model.BinaryView, rows []int, rd int) float64 {
	best := minority(classCounts(v, rows))
	if rd == 0 || best == 0 {
		return best
	}
	for f := range v.Tests {
		lo, hi := splitRows(v, rows, f)
		if len(lo) == 0 || len(hi) == 0 {
			continue
		}
		best = min(best, bruteErr(v, lo, rd-1)+bruteErr(v, hi, rd-1))
	}
	return best
}

// TestDiveSameTree: on small random data, where ties between optimal
// trees are common (a single split is often as good as any deeper
// tree), the search returns the same tree with the dive as without it,
// and so does the parallel search.
func TestDiveSameTree(t *testing.T) {
	for _, rows := range []int{8, 12, 20, 30} {
		for _, cols := range []int{2, 3, 4} {
			for seed := uint64(1); seed <= 40; seed++ {
				v := model.Binarize(modeltest.Binary(rows, cols, seed))
				d := viewData(t, v)
				for _, depth := range []int{3, 4} {
					off := solveFull(t, d, Config{MaxDepth: depth, Depth2: true, NoDive: true})
					for _, workers := range []int{1, 2} {
						on := solveFull(t, d, Config{MaxDepth: depth, Depth2: true, Workers: workers})
						if on.Err != off.Err || !sameTree(on.Tree, off.Tree) {
							t.Fatalf("%d rows, %d columns, seed %d, depth %d, %d workers: error %v with the dive, %v without, or another tree",
								rows, cols, seed, depth, workers, on.Err, off.Err)
						}
					}
				}
			}
		}
	}
}

// TestDiveAtFloor: where the dive's tree makes only the irreducible
// errors (rows equal on every test with different classes), it is
// optimal and no search follows: the search's node count is that of
// the dive's depth-2 branches alone, and the tree is the one the search
// without the dive proves optimal.
func TestDiveAtFloor(t *testing.T) {
	hit := 0
	for seed := uint64(1); seed <= 30; seed++ {
		v := model.Binarize(modeltest.Binary(40, 3, seed))
		d := viewData(t, v)
		const depth = 6
		for _, workers := range []int{1, 2} {
			on := solveFull(t, d, Config{MaxDepth: depth, Depth2: true, Workers: workers})
			off := solveFull(t, d, Config{MaxDepth: depth, Depth2: true, Workers: workers, NoDive: true})
			checkResult(t, v, on, depth)
			if on.Err != off.Err || !sameTree(on.Tree, off.Tree) {
				t.Fatalf("seed %d, %d workers: error %v with the dive, %v without, or another tree", seed, workers, on.Err, off.Err)
			}
			if on.Nodes <= 1<<(depth-2) {
				hit++
			}
		}
	}
	if hit < 20 {
		t.Fatalf("%d of 60 runs settled by the dive alone", hit)
	}
	t.Logf("%d of 60 runs settled by the dive alone", hit)
}
