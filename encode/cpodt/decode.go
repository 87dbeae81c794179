package cpodt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Tree is the tree of a solution: an internal position testing 0 is a
// leaf of the class of the leaf position it stands for (the leftmost
// below it), any other tests the kept test of that number. A solution
// that is not one of the model's (arrays of the wrong length, values out
// of range, a test below a leaf) is an error wrapping ErrOutput.
func (in *Instance) Tree(sol *Solution) (*model.Graph, error) {
	n, l := in.Internal(), in.Internal()+1
	if len(sol.Tests) != n || len(sol.Classes) != l {
		return nil, fmt.Errorf("%w: node_test has %d values and leaf_class %d; the model of depth %d has %d and %d (were the depth and data the same as for the export?)",
			ErrOutput, len(sol.Tests), len(sol.Classes), in.Depth, n, l)
	}
	for i, t := range sol.Tests {
		if t < 0 || t > len(in.Tests) {
			return nil, fmt.Errorf("%w: node_test[%d] = %d, not a test of the model (0..%d)", ErrOutput, i+1, t, len(in.Tests))
		}
		if t == 0 && 2*(i+1) <= n && (sol.Tests[2*i+1] != 0 || sol.Tests[2*i+2] != 0) {
			return nil, fmt.Errorf("%w: node_test[%d] = 0 (a leaf) has a test below it", ErrOutput, i+1)
		}
	}
	for i, c := range sol.Classes {
		if c < 1 || c > in.Classes {
			return nil, fmt.Errorf("%w: leaf_class[%d] = %d, not a class of the model (1..%d)", ErrOutput, i+1, c, in.Classes)
		}
	}
	b := model.NewBuilder(in.View.Data, model.KindTree)
	var build func(pos int) int
	build = func(pos int) int {
		if pos > n {
			return b.Leaf(sol.Classes[pos-n-1] - 1)
		}
		t := sol.Tests[pos-1]
		if t == 0 {
			for pos <= n {
				pos *= 2
			}
			return b.Leaf(sol.Classes[pos-n-1] - 1)
		}
		lo := build(2 * pos)
		hi := build(2*pos + 1)
		return b.Split(in.View.Tests[in.Tests[t-1]], lo, hi)
	}
	return b.Graph(build(1)), nil
}

// objectiveOf is the model's objective of tree g on the data.
func (in *Instance) objectiveOf(g *model.Graph) int64 {
	errs := int64(math.Round(g.WeightedErrors(in.View.Data)))
	return in.Objective(g.InternalNodes(), g.Depth(), errs)
}

// solutionTree decodes a solution, checks the objective it states
// against its tree's, and checks the tree against the problem's limits
// (the model's constraints: no error for Depth and Size, the minimum
// support, the node limit).
func (in *Instance) solutionTree(p model.Problem, sol *Solution) (*model.Graph, int64, error) {
	g, err := in.Tree(sol)
	if err != nil {
		return nil, 0, err
	}
	obj := in.objectiveOf(g)
	if sol.HasObjective && sol.Objective != obj {
		return nil, 0, fmt.Errorf("%w: the solution ending at line %d states objective %d, but its tree's objective is %d", ErrOutput, sol.Line, sol.Objective, obj)
	}
	if err := satisfies(in.View.Data, p, in.Goal, g); err != nil {
		return nil, 0, fmt.Errorf("%w: the solution ending at line %d: %w", ErrOutput, sol.Line, err)
	}
	return g, obj, nil
}

// satisfies checks the model's side constraints on a tree.
func satisfies(d *model.Dataset, p model.Problem, goal Goal, g *model.Graph) error {
	if goal != GoalError {
		if e := g.Errors(d); e != 0 {
			return fmt.Errorf("its tree makes %d errors; the model asks for none", e)
		}
	}
	if p.MaxNodes > 0 && g.InternalNodes() > p.MaxNodes {
		return fmt.Errorf("its tree has %d internal nodes, more than %d", g.InternalNodes(), p.MaxNodes)
	}
	if p.MinSupport > 1 {
		count := make([]int, len(g.Nodes))
		for r := range d.Rows() {
			count[g.Leaf(d, r)]++
		}
		for i, nd := range g.Nodes {
			if nd.Leaf && count[i] < p.MinSupport {
				return fmt.Errorf("a leaf of its tree holds %d rows, fewer than the minimum support %d", count[i], p.MinSupport)
			}
		}
	}
	return nil
}

// Decode reads a MiniZinc answer to the exported model (dzn or JSON
// output, see Stream): its last complete solution is the model,
// verified against the model and the data (a stated objective must be
// its tree's). A search MiniZinc says is complete (==========) is its
// claim that the solution is optimal: the result's claimed bound
// (Result.Claim), which the selector takes as a proof only when the
// solver is trusted (trust-solver). An answer that ends inside a
// solution keeps the last complete one, with no claim.
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	if _, err := JobOptions(job); err != nil {
		return nil, err
	}
	in, err := exportInstance(ctx, job)
	if err != nil {
		return nil, err
	}
	p := job.Problem
	type found struct {
		g   *model.Graph
		obj int64
	}
	var last found
	out, err := ReadAnswer(r, func(sol *Solution) error {
		g, obj, err := in.solutionTree(p, sol)
		if err != nil {
			return err
		}
		last = found{g, obj}
		return nil
	})
	if err != nil {
		return nil, backend.Answer(backend.Invalid(err))
	}
	res = &model.Result{Stats: map[string]any{"answer_format": out.Format, "solutions": out.Solutions, "depth": in.Depth,
		"tests_used": len(in.Tests), "distinct_rows": len(in.Groups)}}
	by := "the solver's answer (" + lineComplete + ")"
	switch {
	case out.Unsat:
		res.Infeasible = true
		res.ClaimedBy = "the solver's answer (" + lineUnsat + ")"
		return res, nil
	case last.g == nil:
		res.Stop = model.StopNone // read to its end: no model
		return res, nil
	}
	d := job.Data
	res.Model, res.Errors, res.Objective = last.g, last.g.Errors(d), p.Evaluate(d, last.g)
	res.Stop = model.StopNone
	res.LowerBound = min(ownBound(in, p), res.Objective)
	if out.Truncated {
		res.Stats["truncated"] = "the answer ends inside a solution: the last complete one is kept, with no claim"
	} else if out.Complete {
		res.Claim(res.Objective, by)
	}
	return res, nil
}

// exportInstance is the instance odt export writes for the job: the
// depth of the problem (for Depth and Size, the depth limit).
func exportInstance(ctx context.Context, job *backend.Job) (*Instance, error) {
	k, capped := job.Problem.DepthLimit()
	if !capped {
		return nil, backend.Invalidf("cp-odt: the exported model is for one depth of the complete tree: give a depth limit (--depth K)")
	}
	in, err := prepare(ctx, job, k)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	return in, nil
}

// ownBound is the lower bound odtkit knows without the solver: the
// errors no tree avoids (and one leaf's cost) for Error; for Depth and
// Size, what a tree of more than one class needs.
func ownBound(in *Instance, p model.Problem) float64 {
	twoClasses := 0
	for _, g := range in.Groups {
		if g.Label() != in.Groups[0].Label() {
			twoClasses = 1
			break
		}
	}
	switch in.Goal {
	case GoalDepth:
		return float64(twoClasses)
	case GoalSize:
		return float64(1 + 2*twoClasses)
	}
	if p.LeafCost > 0 {
		return p.SparseObjective(float64(in.Floor), float64(in.Total), 1)
	}
	return float64(in.Floor)
}
