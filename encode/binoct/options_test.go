package binoct_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/binoct"
	"github.com/odtkit/odtkit/model"
)

// TestJobOptions: the problem states the MILP's sizes; formulation is
// the paper's unless binary-leaves is asked for.
func TestJobOptions(t *testing.T) {
	d := randomData(5, 8, 2, 2, false)
	p := model.Problem{MaxDepth: 2, MinSupport: 3, LeafCost: 0.01, MaxNodes: 2}
	for _, c := range []struct {
		raw       map[string]string
		aggregate bool
	}{
		{nil, false},
		{map[string]string{binoct.OptFormulation: binoct.FormulationPublished}, false},
		{map[string]string{binoct.OptFormulation: binoct.FormulationBinaryLeaves}, true},
	} {
		job, err := backend.NewJob(binoct.Backend{}.Info(), d, p, c.raw)
		if err != nil {
			t.Fatal(err)
		}
		o, err := binoct.JobOptions(job)
		want := binoct.Options{Depth: job.Problem.MaxDepth, MinSupport: 3, LeafCost: 0.01, MaxSplits: 2, BinaryLeaves: c.aggregate}
		if err != nil || o != want {
			t.Errorf("%v: got %+v, %v; want %+v", c.raw, o, err, want)
		}
	}
	if _, err := backend.NewJob(binoct.Backend{}.Info(), d, p, map[string]string{binoct.OptFormulation: "strong"}); err == nil {
		t.Errorf("formulation=strong accepted")
	}
}
