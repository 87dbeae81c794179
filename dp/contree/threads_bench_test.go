package contree

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
)

// BenchmarkThreads solves each numeric depth-3 reference cell with 1 and
// then 2 workers, side by side in every iteration, checks both optima,
// and reports their wall and CPU seconds (getrusage: all threads, the
// garbage collector included), the wall-time speed-up (wall-1 / wall-2)
// and the CPU inflation (cpu-2 / cpu-1, the cost of the parallelism):
//
//	go test -run '^$' -bench 'Threads' -benchtime 1x -timeout 2h ./dp/contree
//
// Filter cells with e.g. -bench 'Threads/rice'. The cells (1-thread
// time over 5 s): rice, fault, occupancy, avila, bean, skin, htru, magic
// and eeg; segment, page and bidding are close to it.
func BenchmarkThreads(b *testing.B) {
	dir := filepath.Join(contreeShared(b), "data", "numeric")
	for _, ref := range contreeNumericRefs(b) {
		if ref.depth != 3 {
			continue
		}
		b.Run(ref.dataset+"/d"+strconv.Itoa(ref.depth), func(b *testing.B) {
			d, err := model.ReadFile(filepath.Join(dir, ref.dataset+".txt"), model.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			var tt dptest.Threads
			errs := -1
			for range b.N {
				for i, w := range []int{1, 2} {
					var r *Result
					err := tt.Measure(i, func() (err error) {
						r, err = Solve(context.Background(), d, Config{MaxDepth: ref.depth, Workers: w}, nil)
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
					if !r.Optimal || r.Errors > ref.optimum || (!ref.float32 && r.Errors != ref.optimum) || (errs >= 0 && r.Errors != errs) {
						b.Fatalf("%d workers: %d errors (optimal %v), reference %d, other count %d", w, r.Errors, r.Optimal, ref.optimum, errs)
					}
					if r.Tree.Errors(d) != r.Errors || r.Tree.Depth() > ref.depth {
						b.Fatalf("%d workers: tree makes %d errors (claimed %d) or is too deep (%d)", w, r.Tree.Errors(d), r.Errors, r.Tree.Depth())
					}
					errs = r.Errors
				}
			}
			b.ReportMetric(float64(errs), "errors")
			tt.Report(b)
		})
	}
}
