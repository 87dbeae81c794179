package oct_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/oct"
	"github.com/odtkit/odtkit/model"
)

// TestJobOptions: the problem states the MILP's sizes; formulation is
// the paper's unless aggregated is asked for.
func TestJobOptions(t *testing.T) {
	d := randomData(5, 8, 2, 2, false)
	p := model.Problem{MaxDepth: 2, MinSupport: 3, LeafCost: 0.01, MaxNodes: 2}
	for _, c := range []struct {
		raw       map[string]string
		aggregate bool
	}{
		{nil, false},
		{map[string]string{oct.OptFormulation: oct.FormulationPublished}, false},
		{map[string]string{oct.OptFormulation: oct.FormulationAggregated}, true},
	} {
		job, err := backend.NewJob(oct.Backend{}.Info(), d, p, c.raw)
		if err != nil {
			t.Fatal(err)
		}
		o, err := oct.JobOptions(job)
		want := oct.Options{Depth: job.Problem.MaxDepth, MinSupport: 3, LeafCost: 0.01, MaxSplits: 2, Aggregate: c.aggregate}
		if err != nil || o != want {
			t.Errorf("%v: got %+v, %v; want %+v", c.raw, o, err, want)
		}
	}
	if _, err := backend.NewJob(oct.Backend{}.Info(), d, p, map[string]string{oct.OptFormulation: "strong"}); err == nil {
		t.Errorf("formulation=strong accepted")
	}
}
