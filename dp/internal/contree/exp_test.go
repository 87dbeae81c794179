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
				case "larger":
					cfg.LargerFirst = true
				}
			}
			st, c0 := time.Now(), dptest.CPUSeconds()
			r := Solve(context.Background(), in, cfg, nil)
			cpu := dptest.CPUSeconds() - c0
			if !r.Optimal {
				t.Errorf("%s d%d [%s]: not optimal", name, depth, v)
			}
			t.Logf("%s d%d [%s]: %d errors %.3fs (cpu %.3fs) %+v", name, depth, v, r.Errors, time.Since(st).Seconds(), cpu, r.Stats)
		}
	}
}
