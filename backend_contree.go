package odtkit

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/dp/contree"
	"github.com/odtkit/odtkit/model"
)

// contreeBackend searches optimal trees directly on numeric columns.
type contreeBackend struct{}

func (contreeBackend) Info() Info {
	return Info{
		Name: "contree",
		Description: "ConTree: optimal depth-limited tree by dynamic programming and branch-and-bound " +
			"directly on numeric thresholds (categorical columns as one 0/1 test per level; integer row weights only)",
		Objectives: []model.Objective{model.MinError},
		Input:      "numeric",
		Exact:      true,
		Anytime:    true,
		Params: []Param{
			{Name: "max-gap", Default: "0", Help: "errors the tree may make above the optimum (0 = exact)"},
			{Name: "eta", Default: "max", Help: "η of the right upper bound: max (the paper's text, faster here) or min (its Algorithm 1)"},
			{Name: "cache", Default: "true", Help: "cache solved subproblems by row set and depth"},
		},
	}
}

func (contreeBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	p := job.Problem
	if p.MinSupport > 1 {
		return nil, fmt.Errorf("%w: min support %d (only 1 is supported)", contree.ErrInput, p.MinSupport)
	}
	if p.MaxNodes > 0 && p.MaxNodes < 1<<(p.MaxDepth+1)-1 {
		return nil, fmt.Errorf("%w: a node limit (%d) below a full tree of depth %d", contree.ErrInput, p.MaxNodes, p.MaxDepth)
	}
	gap, err := job.Options.Int("max-gap", 0)
	if err != nil {
		return nil, err
	}
	eta := job.Options.String("eta", "max")
	if eta != "min" && eta != "max" {
		return nil, fmt.Errorf("option eta=%q: want min or max", eta)
	}
	useCache, err := job.Options.Bool("cache", true)
	if err != nil {
		return nil, err
	}
	s := contree.Config{MaxDepth: p.MaxDepth, MaxGap: gap, EtaShortest: eta == "min", NoCache: !useCache}
	r, err := contree.Solve(ctx, job.Data, s, job.Report)
	if err != nil {
		return nil, err
	}
	res := &model.Result{Model: r.Tree, Errors: r.Errors, Objective: float64(r.Objective),
		LowerBound: float64(r.LowerBound), Optimal: r.Optimal && gap == 0, Stats: r.Stats}
	if gap > 0 && !r.Stopped {
		res.Status = model.StatusFeasible
		res.Stats["max_gap"] = gap
	}
	return res, nil
}
