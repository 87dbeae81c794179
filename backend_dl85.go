package odtkit

import (
	"context"
	"errors"
	"fmt"

	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/model"
)

// dl85Backend is DL8.5: exact caching branch-and-bound on the binary view.
type dl85Backend struct{}

// dl85CommonParams are the options shared by dl85 and cadl85.
var dl85CommonParams = []Param{
	{Name: "cache-mb", Default: "0", Help: "cap on the cache of solved branches in MiB (0 = half the memory limit, or none); at the cap the deepest branches are evicted, the answer stays exact"},
	{Name: "depth2", Default: "true", Help: "solve depth-2 subproblems with the specialised pairwise-count step (unweighted data)"},
	{Name: "order", Default: "gain", Help: "order in which a node tries its tests: gain (information gain) or index"},
}

func (dl85Backend) Info() Info {
	return Info{
		Name:        "dl85",
		Description: "DL8.5: optimal tree of bounded depth by caching branch-and-bound (multiclass, weights, min support)",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Params:      dl85CommonParams,
	}
}

// dl85Settings reads the options shared by dl85 and cadl85.
func dl85Settings(job Job) (dl85.Config, error) {
	var s dl85.Config
	mb, err := job.Options.Float("cache-mb", 0)
	if err != nil {
		return s, err
	}
	if mb < 0 {
		return s, fmt.Errorf("option cache-mb=%v: must not be negative", mb)
	}
	if mb == 0 && job.MemoryLimitMB > 0 {
		mb = float64(job.MemoryLimitMB) / 2
	}
	s.CacheMB = mb
	s.MaxDepth, s.MinSupport = job.Problem.MaxDepth, job.Problem.MinSupport
	d2, err := job.Options.Bool("depth2", true)
	if err != nil {
		return s, err
	}
	s.NoDepth2 = !d2
	switch o := job.Options.String("order", "gain"); o {
	case "gain":
	case "index":
		s.IndexOrder = true
	default:
		return s, fmt.Errorf("option order=%q: want gain or index", o)
	}
	s.OnIncumbent = func(g *model.Graph, e float64) { job.Report.Report(e, g) }
	return s, nil
}

// dl85Result turns a DL8.5 outcome into the selector's result.
func dl85Result(job Job, r *dl85.Result, err error) (*model.Result, error) {
	if errors.Is(err, dl85.ErrInfeasible) {
		return &model.Result{Status: model.StatusInfeasible, Stats: map[string]any{"reason": err.Error()}}, nil
	}
	if err != nil {
		return nil, err
	}
	return &model.Result{Model: r.Tree, Errors: r.Tree.Errors(job.Data), Objective: r.Error,
		LowerBound: r.LowerBound, Optimal: r.Optimal, Stats: r.Stats}, nil
}

func (dl85Backend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	s, err := dl85Settings(job)
	if err != nil {
		return nil, err
	}
	v := model.Binarize(job.Data)
	r, err := dl85.Solve(ctx, v, s)
	return dl85Result(job, r, err)
}
