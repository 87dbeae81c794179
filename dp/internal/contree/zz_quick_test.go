package contree

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

func TestQuickPar(t *testing.T) {
	spec := os.Getenv("QP")
	if spec == "" {
		t.Skip()
	}
	depth, _ := strconv.Atoi(os.Getenv("QD"))
	for _, name := range strings.Split(spec, ",") {
		d, err := model.ReadFile(filepath.Join("/work/shared/data/numeric", name+".txt"), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		in := input(d)
		for _, w := range []int{1, 2} {
			cfg := Config{MaxDepth: depth, FIFO: true, EtaSum: true, LargerFirst: true, EtaLongest: true, Workers: w}
			st := time.Now()
			r := Solve(context.Background(), in, cfg, nil)
			checkResult(t, in, r)
			t.Logf("%s d%d w%d: %d errors opt %v %.3fs %+v", name, depth, w, r.Errors, r.Optimal, time.Since(st).Seconds(), r.Stats)
		}
	}
}
