package flowoct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// oneLeaf is the result of an error problem whose leaf cost decides it
// without a MILP: when λ is at least the single leaf's error share e/W,
// a tree of L ≥ 2 leaves costs at least L·λ ≥ λ + e/W, the single leaf's
// objective, so the majority leaf is optimal and its objective is the
// bound. ok is false for every other job; the MILP then sees a leaf cost
// below e/W ≤ 1, a coefficient of the same scale as the errors' (a leaf
// cost of 1e300, which HiGHS would read as infinite, never reaches it).
// A small margin leaves the ties to the MILP.
func oneLeaf(job *backend.Job) (res *model.Result, ok bool) {
	d, p := job.Data, job.Problem
	if p.Objective != model.MinError || p.LeafCost <= 0 || d.Rows() < p.MinSupport {
		return nil, false
	}
	k, e := model.Majority(d.ClassCounts())
	total := d.TotalWeight()
	if total <= 0 || p.LeafCost < e/total*(1+1e-9) {
		return nil, false
	}
	b := model.NewBuilder(d, model.KindTree)
	g := b.Graph(b.Leaf(k))
	obj := p.Evaluate(d, g)
	job.Report.Report(obj, g)
	return &model.Result{Model: g, Errors: g.Errors(d), Objective: obj, LowerBound: obj, Proved: true}, true
}
