package satodt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// TestCP4IMOptima compares sat-odt with the known optima of
// ../shared/reference/cp4im-optima.tsv at depth 2 (and depth 3 on the
// small files named in depth3): every proven optimum must equal the
// reference; a file not proven within the cap is logged, not failed.
// By default the cap is 10 s and only the cells in short run; with
// ODTKIT_LONG=1 every depth-2 cell and the depth-3 ones run with a 60 s
// cap.
func TestCP4IMOptima(t *testing.T) {
	dir := shared.Dir(t, "reference/cp4im-optima.tsv")
	// The default run: these cells only.
	short := map[string]bool{"vote 2": true, "hepatitis 2": true, "lymph 2": true, "zoo-1 2": true, "primary-tumor 2": true, "anneal 2": true, "tic-tac-toe 2": true, "hepatitis 3": true, "zoo-1 3": true}
	// The small files, run at depth 3 too with ODTKIT_LONG=1.
	depth3 := map[string]bool{"vote": true, "zoo-1": true, "hepatitis": true, "lymph": true, "primary-tumor": true}
	limit := 10 * time.Second
	if shared.Long() {
		limit = 60 * time.Second
	}
	proven, tried := 0, 0
	for _, r := range shared.Table(t, "reference/cp4im-optima.tsv") {
		depth, ok1 := r.Int("depth")
		want, ok2 := r.Int("optimum")
		name := r["dataset"]
		if !ok1 || !ok2 || !(depth == 2 || depth == 3 && depth3[name]) || !shared.Long() && !short[fmt.Sprintf("%s %d", name, depth)] {
			continue
		}
		d, err := model.ReadFile(filepath.Join(dir, "data", "cp4im", name+".txt"), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		job, err := backend.NewJob(satodt.Backend{}.Info(), d, model.Problem{MaxDepth: depth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		job.Threads = 1
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		start := time.Now()
		res, err := satodt.Backend{}.Solve(ctx, job)
		cancel()
		tried++
		if err != nil {
			t.Errorf("%s depth %d: %v", name, depth, err)
			continue
		}
		if e := res.Model.WeightedErrors(d); e != res.Objective || res.Model.Depth() > depth {
			t.Errorf("%s depth %d: claims %v, its tree (depth %d) makes %v", name, depth, res.Objective, res.Model.Depth(), e)
		}
		if res.LowerBound > float64(want) {
			t.Errorf("%s depth %d: lower bound %v above the known optimum %d", name, depth, res.LowerBound, want)
		}
		if !res.Optimal {
			t.Logf("%s depth %d: not proven within %v (%v, bound %v)", name, depth, limit, res.Objective, res.LowerBound)
			continue
		}
		proven++
		if res.Objective != float64(want) {
			t.Errorf("%s depth %d: sat-odt proves %v, the reference optimum is %d", name, depth, res.Objective, want)
		}
		t.Logf("%s depth %d: %v proven in %.2fs", name, depth, res.Objective, time.Since(start).Seconds())
	}
	t.Logf("%d of %d cells proven within %v each", proven, tried, limit)
	if proven == 0 {
		t.Errorf("no cell proven")
	}
}
