package odtkit

import (
	"context"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// A backend's status gap stands while its bound is below the objective,
// and becomes optimal when the bound meets it; the bounds it reports
// reach the result's trace and the incumbents found after them.
func TestGapStatusAndBounds(t *testing.T) {
	d := tiny()
	g := stump(d)
	for _, c := range []struct {
		lb   float64
		want model.Status
		opt  bool
	}{{0.5, model.StatusGap, false}, {1, model.StatusOptimal, true}} {
		fb := fake("gapped", func(_ context.Context, job *backend.Job) (*model.Result, error) {
			job.Report.Report(2, deep(d))
			job.Bound.Report(0.25)
			job.Bound.Report(0.1) // not a rise: ignored
			job.Report.Report(1, g)
			job.Bound.Report(c.lb)
			return &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: c.lb, Status: model.StatusGap}, nil
		})
		res, err := NewRegistry(fb).Solve(context.Background(), d, model.Problem{MaxDepth: 2}, Settings{Backend: "gapped"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != c.want || res.Optimal != c.opt {
			t.Errorf("bound %v: status %s optimal %v, want %s %v", c.lb, res.Status, res.Optimal, c.want, c.opt)
		}
		if len(res.Bounds) != 2 || res.Bounds[0].LowerBound != 0.25 || res.Bounds[1].LowerBound != c.lb {
			t.Errorf("bounds %+v", res.Bounds)
		}
		if n := len(res.Incumbents); n != 2 || res.Incumbents[0].LowerBound != 0 || res.Incumbents[1].LowerBound != 0.25 {
			t.Errorf("incumbents %+v", res.Incumbents)
		}
	}
}
