package odtkit

import (
	"fmt"
	"math"

	"github.com/odtkit/odtkit/model"
)

// Verify re-evaluates a result's model on the data: well formed, fitting
// the data, within the problem's limits, and with the claimed errors and
// objective (model.Problem.Evaluate, the one definition of each
// objective). Any mismatch wraps ErrVerification.
func Verify(d *model.Dataset, p model.Problem, res *model.Result) error {
	g := res.Model
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrVerification, fmt.Sprintf(format, a...))
	}
	if g == nil {
		return fail("no model")
	}
	p = p.Normalized()
	if err := g.Validate(); err != nil {
		return fail("invalid model: %v", err)
	}
	if err := g.CheckData(d); err != nil {
		return fail("%v", err)
	}
	errs := g.Errors(d)
	if res.Errors != errs {
		return fail("the backend claims %d errors, its model makes %d", res.Errors, errs)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	if want := p.Evaluate(d, g); !near(res.Objective, want) {
		return fail("the backend claims objective %v, its model's %s objective is %v", res.Objective, p.Objective, want)
	}
	switch p.Objective {
	case model.MinError:
		if g.Kind != model.KindTree {
			return fail("a %s model for a tree objective", g.Kind)
		}
		if dep := g.Depth(); dep > p.MaxDepth {
			return fail("model depth %d exceeds the maximum %d", dep, p.MaxDepth)
		}
	case model.MinDepth, model.MinSize, model.MinNodes:
		if g.Kind != model.KindTree {
			return fail("a %s model for a tree objective", g.Kind)
		}
		if errs != 0 && (res.DroppedRows != errs || d.ConflictFloor() != errs) {
			return fail("a consistent tree was asked for; the model makes %d errors (%d rows reported dropped as conflicting)", errs, res.DroppedRows)
		}
		if k, capped := p.DepthLimit(); capped && p.Objective == model.MinNodes && g.Depth() > k {
			return fail("model depth %d exceeds the maximum %d", g.Depth(), k)
		}
	}
	if p.MinSupport > 1 {
		count := make([]int, len(g.Nodes))
		for r := range d.Rows() {
			count[g.Leaf(d, r)]++
		}
		for i, n := range g.Nodes {
			if n.Leaf && count[i] < p.MinSupport {
				return fail("leaf %d holds %d rows, fewer than the minimum support %d", i, count[i], p.MinSupport)
			}
		}
	}
	if p.MaxNodes > 0 && g.InternalNodes() > p.MaxNodes {
		return fail("model has %d internal nodes, more than the maximum %d", g.InternalNodes(), p.MaxNodes)
	}
	if res.LowerBound > res.Objective+1e-9*math.Max(1, math.Abs(res.Objective)) {
		return fail("lower bound %v exceeds the objective %v", res.LowerBound, res.Objective)
	}
	return nil
}
