package avellaneda

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// BenchmarkInferDT times DT_depth and DT_size on the inferdt rows that
// InferDT finished (both reference CPU times are numbers), e.g.
//
//	go test -run '^$' -bench 'InferDT/size/monk2' -benchtime 1x ./encode/avellaneda
//
// The target: summed over these rows, at most 1.5× the reference
// CPU seconds of ../shared/reference/inferdt.tsv.
func BenchmarkInferDT(b *testing.B) {
	dir := sharedDir(b)
	for _, phase := range []string{"depth", "size"} {
		for _, ref := range readReference(b, dir) {
			if !ref.cpuDepthOK || !ref.cpuSizeOK || isLongRow(ref) {
				continue
			}
			b.Run(phase+"/"+strings.TrimSuffix(ref.file, ".csv"), func(b *testing.B) {
				d, err := model.ReadFile(filepath.Join(dir, "data", "inferdt", ref.file), model.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					p, err := Prepare(d, false)
					if err != nil {
						b.Fatal(err)
					}
					var o *Outcome
					if phase == "depth" {
						o, err = MinDepth(context.Background(), p, Settings{})
					} else {
						o, err = MinSize(context.Background(), p, Settings{})
					}
					if err != nil || !o.Optimal {
						b.Fatalf("%v (optimal %v)", err, o != nil && o.Optimal)
					}
				}
				if phase == "depth" {
					b.ReportMetric(ref.cpuDepth, "ref-cpu-s")
				} else {
					b.ReportMetric(ref.cpuSize, "ref-cpu-s")
				}
			})
		}
	}
}
