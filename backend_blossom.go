package odtkit

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/dp/blossom"
	"github.com/odtkit/odtkit/model"
)

// blossomBackend is the anytime, memory-light exact search of blossom.Solve.
type blossomBackend struct{}

func (blossomBackend) Info() Info {
	return Info{
		Name:        "blossom",
		Description: "Blossom: anytime exact depth-bounded search with memory linear in the tree size (Hebrard & Emmanuel)",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Params: []Param{
			{Name: "order", Default: "gini", Help: "feature order on a branch: gini, error (the paper's no-heuristic variant) or index"},
			{Name: "lower-bound", Default: "true", Help: "fail early with the ancestor lower bound (sum of optimal sibling errors)"},
			{Name: "depth2", Default: "true", Help: "solve branches with two levels left at once from pairwise counts (false: only the last level, as in the paper)"},
			{Name: "merge-rows", Default: "true", Help: "merge identical rows into weighted rows and cancel inconsistent ones"},
			{Name: "drop-redundant", Default: "true", Help: "drop constant tests and tests equal or complementary to another"},
			{Name: "drop-uninformative", Default: "true", Help: "on each branch, drop the tests that take one value on all its rows"},
			{Name: "cart-seed", Default: "true", Help: "report the greedy (cart) tree first and return it if a stopped search found nothing better"},
		},
	}
}

func (blossomBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	if job.Problem.MinSupport > 1 {
		return nil, fmt.Errorf("min support %d is not supported (blossom has no leaf-size constraint)", job.Problem.MinSupport)
	}
	if job.Problem.MaxNodes > 0 {
		return nil, fmt.Errorf("a node limit is not supported")
	}
	s := blossom.Config{MaxDepth: job.Problem.MaxDepth, Order: blossom.Order(job.Options.String("order", "gini"))}
	flags := []struct {
		key string
		off *bool
	}{
		{"lower-bound", &s.NoLowerBound}, {"depth2", &s.NoDepth2}, {"merge-rows", &s.NoMergeRows},
		{"drop-redundant", &s.NoDropRedundant}, {"drop-uninformative", &s.NoDropUninformative},
		{"cart-seed", &s.NoCARTSeed},
	}
	for _, f := range flags {
		on, err := job.Options.Bool(f.key, true)
		if err != nil {
			return nil, err
		}
		*f.off = !on
	}
	r, err := blossom.Solve(ctx, model.Binarize(job.Data), s, job.Report)
	if err != nil {
		return nil, err
	}
	res := &model.Result{Model: r.Model, Errors: r.Errors, Objective: r.Objective, LowerBound: r.LowerBound,
		Optimal: r.Optimal, Stats: r.Stats}
	return res, nil
}
