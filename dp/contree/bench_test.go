package contree

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// BenchmarkConTree solves every dataset of numeric-optima.tsv at depths 2
// and 3, checks each optimum and re-evaluates each tree; compare ns/op with the reference cpu_s
// (reported as ref_s). Filter with -bench 'ConTree/raisin/d3'.
func BenchmarkConTree(b *testing.B) {
	refs := contreeNumericRefs(b)
	dir := filepath.Join(contreeShared(b), "data", "numeric")
	for _, ref := range refs {
		if ref.depth > 3 {
			continue
		}
		b.Run(ref.dataset+"/d"+strconv.Itoa(ref.depth), func(b *testing.B) {
			d, err := model.ReadFile(filepath.Join(dir, ref.dataset+".txt"), model.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			errs := -1
			b.ResetTimer()
			for range b.N {
				r, err := Solve(context.Background(), d, Config{MaxDepth: ref.depth}, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if !r.Optimal || r.Errors > ref.optimum || (!ref.float32 && r.Errors != ref.optimum) {
					b.Fatalf("%d errors (optimal %v), reference %d", r.Errors, r.Optimal, ref.optimum)
				}
				if err := r.Tree.Validate(); err != nil || r.Tree.Errors(d) != r.Errors || r.Tree.Depth() > ref.depth {
					b.Fatalf("tree invalid (%v) or makes %d errors (claimed %d) or too deep (%d)", err, r.Tree.Errors(d), r.Errors, r.Tree.Depth())
				}
				errs = r.Errors
				b.StartTimer()
			}
			b.ReportMetric(float64(errs), "errors")
			b.ReportMetric(ref.cpu, "ref_s")
		})
	}
}
