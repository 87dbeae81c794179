package satodt_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/model"
)

// TestGreedyIsCartsCompleteTree: the first assignment is cart's complete
// tree over the kept tests (its errors), fills every node with a kept
// test, repeats none on a path unless asked to, and with Dead has each
// node above two leaves of one class test 0.
func TestGreedyIsCartsCompleteTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 8 {
		d := randomData(rng, 40+rng.IntN(80), 3+i%3, 2+i%2, i%3 == 0)
		v := model.Binarize(d)
		p, err := satjob.Prepare(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		for depth := 1; depth <= min(3, len(p.Tests)); depth++ {
			for _, o := range []satodt.Options{{}, {Repeats: true}, {Dead: true}} {
				a := satodt.Greedy(p, depth, o)
				_, want := cart.Grow(context.Background(), v, depth, cart.Config{Complete: true, Tests: p.Tests, NoRepeat: !o.Repeats})
				if got := satodt.Tree(p, a).WeightedErrors(d); got != want {
					t.Errorf("%s depth %d %+v: %v errors, cart's complete tree %v", d.Name, depth, o, got, want)
				}
				nodes := 1<<depth - 1
				var walk func(n int, path []int)
				walk = func(n int, path []int) {
					if n >= nodes {
						return
					}
					tst := a.Test[n]
					if tst < 0 || tst >= len(p.Tests) {
						t.Fatalf("%s depth %d: node %d tests %d of %d", d.Name, depth, n, tst, len(p.Tests))
					}
					dead := o.Dead && p.Classes == 2 && 2*n+1 >= nodes && a.Class[2*n+1-nodes] == a.Class[2*n+2-nodes]
					if dead && tst != 0 {
						t.Errorf("%s depth %d: dead node %d tests %d", d.Name, depth, n, tst)
					}
					if !o.Repeats && !dead && slices.Contains(path, tst) {
						t.Errorf("%s depth %d: node %d repeats test %d of its path %v", d.Name, depth, n, tst, path)
					}
					path = append(path[:len(path):len(path)], tst)
					walk(2*n+1, path)
					walk(2*n+2, path)
				}
				walk(0, nil)
			}
		}
	}
}
