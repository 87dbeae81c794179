package contree

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// The fast numeric reference cells at 2 and 4 workers: the reference
// optimum, a verified tree, and the same tree (as JSON) at 2 workers
// twice and at 4.
func TestConTreeThreadsReference(t *testing.T) {
	dir := filepath.Join(contreeShared(t), "data", "numeric")
	for _, ref := range contreeNumericRefs(t) {
		fast := ref.depth == 2 && ref.cpu <= 0.2 || ref.depth == 3 && ref.cpu <= 1.5 && ref.dataset != "wilt"
		if !fast && !contreeLong() || ref.depth > 3 || ref.dataset == "skin" {
			continue
		}
		t.Run(ref.dataset+"/d"+strconv.Itoa(ref.depth), func(t *testing.T) {
			d, err := model.ReadFile(filepath.Join(dir, ref.dataset+".txt"), model.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			for _, w := range []int{2, 4, 2} {
				r, err := Solve(context.Background(), d, Config{MaxDepth: ref.depth, Workers: w}, nil)
				if err != nil {
					t.Fatal(err)
				}
				contreeCheck(t, d, ref.depth, r)
				if !r.Optimal || r.Errors > ref.optimum || (!ref.float32 && r.Errors != ref.optimum) {
					t.Fatalf("%d workers: %d errors (optimal %v), reference %d", w, r.Errors, r.Optimal, ref.optimum)
				}
				js, err := json.Marshal(r.Tree)
				if err != nil {
					t.Fatal(err)
				}
				if want == "" {
					want = string(js)
				} else if string(js) != want {
					t.Fatalf("%d workers returned\n%s\nanother run returned\n%s", w, js, want)
				}
			}
		})
	}
}
