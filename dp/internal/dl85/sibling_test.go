package dl85

import (
	"context"
	"fmt"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// TestLinkedDepth2 checks the depth-2 step that takes a child's pair
// counts from its parent's and its sibling's: on generated data of 40 to
// 700 rows (one to eleven words per test, so every counting loop runs),
// depths 3 and 4, minimum supports 1 and 4, one and three workers, the
// search returns the same error and bound as with every step counting its
// own pairs, and on one worker the same tree; with a support of 1 the
// error is brute force's. Linked steps of both kinds occur.
func TestLinkedDepth2(t *testing.T) {
	linked := int64(0)
	for seed := uint64(1); seed <= 8; seed++ {
		rows := 40 + int(seed*seed)*10
		v := model.Binarize(modeltest.Binary(rows, 7+int(seed%4), seed))
		d := viewData(t, v)
		for _, depth := range []int{3, 4} {
			want := -1.0
			if rows <= 300 {
				want = bruteErr(v, allRows(v), depth)
			}
			for _, minsup := range []int{1, 4} {
				for _, workers := range []int{1, 3} {
					name := fmt.Sprintf("seed %d rows %d depth %d minsup %d workers %d", seed, rows, depth, minsup, workers)
					cfg := Config{MaxDepth: depth, Depth2: true, MinSupport: minsup, Workers: workers}
					off := cfg
					off.NoLinkedDepth2 = true
					a, err := Solve(context.Background(), d, cfg, NoRule{})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					b, err := Solve(context.Background(), d, off, NoRule{})
					if err != nil {
						t.Fatalf("%s unlinked: %v", name, err)
					}
					checkResult(t, v, a, depth)
					if !a.Optimal || a.Err != b.Err || a.LB != b.LB {
						t.Fatalf("%s: linked %v ≥ %v (optimal %v), unlinked %v ≥ %v", name, a.Err, a.LB, a.Optimal, b.Err, b.LB)
					}
					if minsup == 1 && want >= 0 && a.Err != want {
						t.Fatalf("%s: error %v, brute force %v", name, a.Err, want)
					}
					if minsup > 1 {
						checkSupport(t, v, a.Tree, allRows(v), minsup, name)
					}
					if workers == 1 && !sameTree(a.Tree, b.Tree) {
						t.Fatalf("%s: the linked step changed the tree", name)
					}
					if b.Depth2Linked != 0 {
						t.Fatalf("%s: %d linked steps with the link off", name, b.Depth2Linked)
					}
					linked += a.Depth2Linked
				}
			}
		}
	}
	if linked == 0 {
		t.Fatal("no depth-2 step was linked")
	}
	t.Logf("%d linked depth-2 steps", linked)
}

// checkSupport fails when a leaf of tr holds fewer than minsup of rows.
func checkSupport(t *testing.T, v *model.BinaryView, tr *Tree, rows []int, minsup int, name string) {
	t.Helper()
	if tr.Test < 0 {
		if len(rows) < minsup {
			t.Fatalf("%s: a leaf of %d rows under minimum support %d", name, len(rows), minsup)
		}
		return
	}
	lo, hi := splitRows(v, rows, tr.Test)
	checkSupport(t, v, tr.Lo, lo, minsup, name)
	checkSupport(t, v, tr.Hi, hi, minsup, name)
}
