package satodt

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// singleLeafResult is the decoded result of the single-leaf formula.
func singleLeafResult(job *backend.Job) *model.Result {
	g := model.MajorityLeaf(job.Data)
	res := &model.Result{Model: g, Stop: model.StopNone, Stats: map[string]any{"single_leaf": true}}
	res.Errors, res.Objective = g.Errors(job.Data), job.Problem.Evaluate(job.Data, g)
	return res
}

// Decode reads a MaxSAT or PB solver's answer for the exported formula
// (see sat.ParseAnswer). The model must satisfy every hard clause and a
// claimed cost ("o" line) must be its cost; it decodes into a tree
// whose weighted error is that cost when the solver claims the optimum
// (a model whose soft literals overcount its tree's error is not
// optimal), and every variable of the formula must have a value. A
// claimed optimum is the result's claimed bound (Result.Claim): odtkit
// cannot check it, so the result is feasible unless the user trusts the
// solver. An unsatisfiable claim is an error: every complete tree of
// the depth satisfies the hard clauses.
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	p, f, err := formula(ctx, job, o)
	if errors.Is(err, errSingleLeaf) {
		if _, err := sat.ParseAnswer(r, 1); err != nil {
			return nil, backend.Answer(backend.Invalidf("solver output: %w", err))
		}
		return singleLeafResult(job), nil
	}
	if err != nil {
		return nil, err
	}
	a, err := sat.ParseAnswer(r, f.CNF.NumVars)
	if err != nil {
		return nil, backend.Answer(backend.Invalidf("solver output: %w", err))
	}
	res, err = answerResult(job, p, f, a)
	if err != nil {
		if a.Status == sat.OptUnsatisfiable {
			// A wrong claim, not a malformed file: the solver failed.
			return nil, backend.Answer(err)
		}
		return nil, backend.Answer(backend.Invalid(err)) // the answer file is the bad input
	}
	return res, nil
}

// answerResult verifies a solver's answer and turns it into a result.
func answerResult(job *backend.Job, p *satjob.Prepared, f *Encoding, a *sat.Answer) (*model.Result, error) {
	res := &model.Result{Stats: map[string]any{
		"solver_status": string(a.Status),
		"depth":         f.Depth,
		"distinct_rows": len(p.Groups),
		"tests_used":    len(p.Tests),
		"variables":     f.CNF.NumVars,
		"clauses":       f.CNF.NumClauses(),
	}}
	if a.Status == sat.OptUnsatisfiable {
		return nil, fmt.Errorf("%w: the solver claims the formula unsatisfiable, but every complete tree of depth %d satisfies it", sat.ErrOutput, f.Depth)
	}
	if a.Model == nil {
		res.Stop = model.StopNone // read to its end: no model
		return res, nil
	}
	val, cost, err := maxsat.Check(a, f.CNF, f.soft(), "were the depth and options the same as for the export?")
	if err != nil {
		return nil, err
	}
	g, err := f.Decode(p, val)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sat.ErrOutput, err)
	}
	d := job.Data
	res.Model = g
	res.Errors = g.Errors(d)
	res.Objective = job.Problem.Evaluate(d, g)
	res.Stop = model.StopNone
	res.LowerBound = float64(p.Floor)
	if a.Status == sat.OptOptimum {
		if float64(cost) != res.Objective {
			return nil, fmt.Errorf("%w: the solver claims an optimum of cost %d, but the model's tree makes %v errors: the model is not optimal", sat.ErrOutput, cost, res.Objective)
		}
		// The solver's word: a claimed bound, not odtkit's proof.
		res.Claim(res.Objective, maxsat.Claimant(a))
	}
	res.LowerBound = min(res.LowerBound, res.Objective)
	return res, nil
}

// Decode reads the tree of an assignment (val gives each literal's
// value): each node's first true test, each leaf's class (Tree).
func (f *Encoding) Decode(p *satjob.Prepared, val func(sat.Lit) bool) (*model.Graph, error) {
	d := f.Depth
	nodes := 1<<d - 1
	nt := len(p.Tests)
	a := Assignment{Test: make([]int, nodes), Class: make([]int, 1<<d)}
	for n := range nodes {
		a.Test[n] = -1
		for t := range nt {
			if val(f.F.Lit(n, t)) {
				a.Test[n] = t
				break
			}
		}
		if a.Test[n] < 0 {
			return nil, fmt.Errorf("node %d of the assignment tests nothing (F[%d][*] all false)", n, n)
		}
	}
	for l := range a.Class {
		if f.Classes == 2 {
			if val(f.Y.Lit(l)) {
				a.Class[l] = 1
			}
			continue
		}
		for k := range f.Classes {
			if val(f.Y.Lit(l, k)) {
				a.Class[l] = k
				break
			}
		}
	}
	return Tree(p, a), nil
}

// Tree is the tree of a complete assignment a of depth d ≥ 1 (len(a.Test)
// = 2^d-1). Sibling leaves of one class are merged into one leaf (the
// errors are the same).
func Tree(p *satjob.Prepared, a Assignment) *model.Graph {
	nodes := len(a.Test)
	b := model.NewBuilder(p.View.Data, model.KindTree)
	// build returns the node's index and, when it is a leaf, its class.
	var build func(n int) (int, int)
	build = func(n int) (int, int) {
		if n >= nodes {
			k := a.Class[n-nodes]
			return b.Leaf(k), k
		}
		lo, kl := build(2*n + 1)
		hi, kh := build(2*n + 2)
		if kl >= 0 && kl == kh {
			return b.Leaf(kl), kl
		}
		return b.Split(p.View.Tests[p.Tests[a.Test[n]]], lo, hi), -1
	}
	root, _ := build(0)
	return b.Graph(root)
}
