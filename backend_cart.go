package odtkit

import (
	"context"

	"github.com/odtkit/odtkit/dp"
	"github.com/odtkit/odtkit/model"
)

// cartBackend is the greedy baseline.
type cartBackend struct{}

func (cartBackend) Info() Info {
	return Info{
		Name:        "cart",
		Description: "greedy top-down tree (Gini impurity), the baseline and first incumbent of the exact solvers",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Anytime:     false,
		Params: []Param{
			{Name: "min-leaf", Default: "1", Help: "least number of rows in a leaf (the problem's min support when larger)"},
		},
	}
}

func (cartBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	minLeaf, err := job.Options.Int("min-leaf", 1)
	if err != nil {
		return nil, err
	}
	v := model.Binarize(job.Data)
	g, werr := dp.CART(ctx, v, job.Problem.MaxDepth, dp.CARTSettings{MinLeaf: max(minLeaf, job.Problem.MinSupport)})
	job.Report.Report(werr, g)
	return &model.Result{Model: g, Errors: g.Errors(job.Data), Objective: werr, LowerBound: 0,
		Status: model.StatusFeasible, Stats: map[string]any{"binary_tests": v.NumTests()}}, nil
}
