package satodt

import (
	"context"
	"errors"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// solveExternal runs the formula of the job's depth on the external
// solver argv (package maxsat) and verifies its answer like odt decode:
// the model satisfies the hard clauses, a claimed cost is its cost, a
// claimed optimum's soft literals are exactly its tree's errors. The
// result is never worse than the incumbent given (cart's tree).
func solveExternal(ctx context.Context, job *backend.Job, argv []string, inc *model.Graph, incErr float64) (*model.Result, error) {
	p, f, err := formula(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return maxsat.Stopped(ctx, job, inc, 0), nil
		}
		return nil, err
	}
	return maxsat.Solve(ctx, job, maxsat.Run{
		Argv: argv, CNF: f.CNF, Soft: f.soft(),
		Verify:    func(a *sat.Answer) (*model.Result, error) { return answerResult(job, p, f, a) },
		Incumbent: inc, Objective: incErr, LowerBound: float64(p.Floor),
	})
}
