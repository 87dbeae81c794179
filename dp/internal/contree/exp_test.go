package contree

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
)

// TestExperiment times engine variants on ../shared/data/numeric; it runs
// only when CONTREE_EXP is set, e.g.
//
//	CONTREE_EXP='fifo,sum,larger;fifo,sum,larger,long' CONTREE_DEPTH=3 \
//	CONTREE_DATA=raisin,page go test -run Experiment -v ./dp/internal/contree
//
// CONTREE_TIME (a Go duration) stops each run after that long;
// CONTREE_TRACE (any value) logs each incumbent and bound with its time;
// CONTREE_UPPER=E starts the root search as if a tree of E errors were
// known (Config.knownErrors).
//
// Variants are separated by ';', knobs by ','. dp.ConTree uses
// "fifo,sum,larger" (plus "long" for eta=max).
func TestExperiment(t *testing.T) {
	spec := os.Getenv("CONTREE_EXP")
	if spec == "" {
		t.Skip("experiment harness: set CONTREE_EXP to run")
	}
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "numeric")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("experiment harness: ../shared not present")
	}
	depth, _ := strconv.Atoi(os.Getenv("CONTREE_DEPTH"))
	for _, name := range strings.Split(os.Getenv("CONTREE_DATA"), ",") {
		d, err := model.ReadFile(filepath.Join(dir, name+".txt"), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		in := Input{Labels: d.Labels, Classes: d.NumClasses()}
		for _, f := range d.Features {
			in.Columns = append(in.Columns, f.Values)
		}
		for _, v := range strings.Split(spec, ";") {
			cfg := Config{MaxDepth: depth}
			for _, k := range strings.Split(v, ",") {
				switch k {
				case "fifo":
					cfg.FIFO = true
				case "sum":
					cfg.EtaSum = true
				case "long":
					cfg.EtaLongest = true
				case "noorder":
					cfg.NoOrder = true
				case "noroot":
					cfg.NoOrderRoot = true
				case "nobelow":
					cfg.NoOrderBelow = true
				case "noprobe":
					cfg.NoProbe = true
				case "nofirst":
					cfg.NoFirstCut = true
				case "nobits":
					cfg.NoBits = true
				case "notable":
					cfg.NoTable = true
				case "nonest":
					cfg.NoNest = true
				case "larger":
					cfg.LargerFirst = true
				}
			}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if lim, err := time.ParseDuration(os.Getenv("CONTREE_TIME")); err == nil {
				ctx, cancel = context.WithTimeout(ctx, lim)
			}
			st, c0 := time.Now(), dptest.CPUSeconds()
			cfg.knownErrors, _ = strconv.Atoi(os.Getenv("CONTREE_UPPER"))
			var onImprove func(*Node)
			if os.Getenv("CONTREE_TRACE") != "" {
				onImprove = func(n *Node) { t.Logf("%.1fs: %d errors", time.Since(st).Seconds(), n.Errors) }
				cfg.OnBound = func(b int) { t.Logf("%.1fs: bound %d", time.Since(st).Seconds(), b) }
			}
			r := Solve(ctx, in, cfg, onImprove)
			cancel()
			cpu := dptest.CPUSeconds() - c0
			if !r.Optimal && ctx.Err() == nil {
				t.Errorf("%s d%d [%s]: not optimal", name, depth, v)
			}
			t.Logf("%s d%d [%s]: %d errors >= %d %.3fs (cpu %.3fs) %+v", name, depth, v, r.Errors, r.LowerBound, time.Since(st).Seconds(), cpu, r.Stats)
		}
	}
}
