package contree

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

func TestExperiment(t *testing.T) {
	spec := os.Getenv("CONTREE_EXP")
	if spec == "" {
		t.Skip("set CONTREE_EXP")
	}
	depth, _ := strconv.Atoi(os.Getenv("CONTREE_DEPTH"))
	for _, name := range strings.Split(os.Getenv("CONTREE_DATA"), ",") {
		d, err := model.ReadFile("../../../../shared/data/numeric/"+name+".txt", model.ReadOptions{})
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
				case "larger":
					cfg.LargerFirst = true
				}
			}
			st := time.Now()
			r := Solve(context.Background(), in, cfg, nil)
			t.Logf("%s d%d [%s]: %d errors %.3fs %+v", name, depth, v, r.Errors, time.Since(st).Seconds(), r.Stats)
		}
	}
}
