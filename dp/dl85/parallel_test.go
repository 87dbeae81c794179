package dl85

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
)

// dl85TreeJSON is a result's tree as JSON, for comparing trees.
func dl85TreeJSON(t *testing.T, r *Result) string {
	t.Helper()
	js, err := json.Marshal(r.Tree)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// TestParallelBrute runs DL8.5 and CA-DL8.5 at 1, 2 and 4 workers on
// small random data (depth 3 and 4, so that the root's tests are split
// between workers; weights, min support, tiny caches): every run is
// proven optimal and agrees with brute force; on unweighted data DL8.5
// returns the same tree at every count, and CA-DL8.5 the same tree at 2
// and 4 workers (weighted errors are sums of floats: trees whose errors
// differ only by rounding may be returned in their place).
func TestParallelBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 40 {
		n := 8 + rng.IntN(60)
		m := 2 + rng.IntN(6)
		nc := 2 + rng.IntN(2)
		weighted := i%4 == 1
		d := dl85Random(rng, n, m, nc, weighted)
		v := model.Binarize(d)
		depth := 3 + rng.IntN(2)
		minSup := 1
		if i%3 == 2 {
			minSup = 1 + rng.IntN(3)
		}
		rows := make([]int, n)
		for r := range rows {
			rows[r] = r
		}
		want := dptest.Brute(v, rows, depth, minSup)
		name := fmt.Sprintf("%d/n%d-m%d-c%d-w%v-d%d-s%d", i, n, m, nc, weighted, depth, minSup)
		t.Run(name, func(t *testing.T) {
			settings := []Config{{}, {NoDepth2: true}, {CacheMB: 1e-4}, {IndexOrder: true, NoDepth2: true}}
			for k, s := range settings {
				var trees []string
				for _, w := range []int{1, 2, 4} {
					s.Workers = w
					r, err := Solve(context.Background(), v, withDepth(s, depth, minSup))
					if err != nil {
						t.Fatal(err)
					}
					dl85Verify(t, v, depth, minSup, r, want)
					trees = append(trees, dl85TreeJSON(t, r))
				}
				if !weighted && (trees[1] != trees[0] || trees[2] != trees[0]) {
					t.Errorf("dl85 settings %d: trees differ between 1, 2 and 4 workers:\n%s\n%s\n%s", k, trees[0], trees[1], trees[2])
				}
			}
			for _, rule := range cadl85Rules {
				var trees []string
				for _, w := range []int{1, 2, 4} {
					s := Config{NoDepth2: i%2 == 0, Workers: w}
					if i%5 == 3 {
						s.CacheMB = 1e-4
					}
					r, err := SolveNamed(context.Background(), v, Spec{Rule: rule}, withDepth(s, depth, minSup))
					if err != nil {
						t.Fatal(err)
					}
					dl85Verify(t, v, depth, minSup, r, want)
					trees = append(trees, dl85TreeJSON(t, r))
				}
				if !weighted && trees[2] != trees[1] {
					t.Errorf("cadl85 %s: trees differ between 2 and 4 workers:\n%s\n%s", rule, trees[1], trees[2])
				}
			}
		})
	}
}
