package blossom

import (
	"context"
	"fmt"
	"testing"

	"github.com/odtkit/odtkit/dp/internal/dptest"
)

// threadsCells are the cp4im depth-4 cells whose sequential search takes
// over 5 s: vehicle and pendigits about 8 s and 14 s on a
// quiet machine, ionosphere minutes.
var threadsCells = []string{"vehicle", "pendigits", "ionosphere"}

// BenchmarkThreads solves each cell of threadsCells at depth 4 with 1
// and then 2 workers, checks both against the reference optimum, and
// reports their wall and CPU seconds (the minimum over b.N rounds), the
// wall-time speed-up and the CPU-time inflation (2-worker CPU / 1-worker
// CPU):
//
//	go test -run '^$' -bench 'Threads' -benchtime 1x -timeout 0 ./dp/blossom/
//	go test -run '^$' -bench 'Threads/vehicle' -benchtime 1x ./dp/blossom/
//
// On the 2-core machine, quiet, 2026-11-23 (wall 1 -> 2 workers, CPU
// 2 workers / 1): vehicle 5.16 -> 2.40 s (2.15x, CPU 0.91), pendigits
// 10.76 -> 5.38 s (2.00x, CPU 0.99), ionosphere 60.93 -> 30.47 s (2.00x,
// CPU 0.98); the objectives 12, 13 and 7, the reference optima.
func BenchmarkThreads(b *testing.B) {
	shared := blossomShared(b)
	ref := map[string]int{}
	for _, c := range blossomReference(b, shared) {
		if c.depth == 4 {
			ref[c.name] = c.optimum
		}
	}
	for _, name := range threadsCells {
		b.Run(name+"-d4", func(b *testing.B) {
			v := blossomLoad(b, shared, name)
			var tt dptest.Threads
			var obj [2]float64
			for range b.N {
				for i, workers := range []int{1, 2} {
					var r *Result
					err := tt.Measure(i, func() (err error) {
						r, err = Solve(context.Background(), v, Config{MaxDepth: 4, Workers: workers}, nil)
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
					if want, ok := ref[name]; !r.Optimal || ok && r.Objective != float64(want) {
						b.Fatalf("%d workers: %v (optimal %v), reference %d", workers, r.Objective, r.Optimal, want)
					}
					obj[i] = r.Objective
				}
			}
			if obj[0] != obj[1] {
				b.Fatalf("objective %v with 1 worker, %v with 2", obj[0], obj[1])
			}
			tt.Report(b)
			b.ReportMetric(obj[1], "objective")
			b.ReportMetric(0, "ns/op")
			fmt.Printf("%s depth 4: objective %v; 1 worker %.2f s wall %.2f s CPU; 2 workers %.2f s wall %.2f s CPU\n",
				name, obj[1], tt.Wall(0), tt.CPU(0), tt.Wall(1), tt.CPU(1))
		})
	}
}
