package satodt

import (
	"context"
	"fmt"
	"slices"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Descent is a search for the least cost on one incremental solver whose
// formula holds a counter of the cost: it asks for ever smaller bounds
// until one is refuted. The space may be split into parts, each one
// literal assumed beside the bound (a root test: with it fixed the two
// subtrees of the root are independent, which the solver does not see
// on the whole tree); each bound is then refuted part by part, and a
// refuted part is kept as a clause (its literal forces the cost above
// the bound), so that later calls need not find it again.
type Descent struct {
	Solver sat.Solver
	// AtLeast is the counter's output forced true when the cost reaches
	// k (1 ≤ k ≤ Cap), 0 when no cost reaches k.
	AtLeast func(k int) sat.Lit
	Cap     int
	// Parts are the literals of the parts (nil: the whole space). Every
	// model must make one of them true.
	Parts []sat.Lit
	// Bisect tries the middle of a part's lower bound and the best cost
	// instead of one below the best cost.
	Bisect bool
	// Model reads the solver's model after a satisfiable call with bound
	// k: its cost (at most k, checked by Model against the data) or an
	// error.
	Model func(k int) (int, error)
}

// DescentResult is where a descent ended.
type DescentResult struct {
	// Cost is the best cost found (the one given when nothing better
	// was); LowerBound the least cost proven over all parts.
	Cost, LowerBound int
	Optimal, Stopped bool
	Calls            int
	Steps            []Step
}

// Run descends from an incumbent of cost cost ≤ d.Cap with floor a known
// lower bound. It returns when a bound one below the best cost is
// refuted on every part (Optimal), when ctx ends or the solver gives no
// answer (Stopped), or with the first error of the solver or of Model.
func (d Descent) Run(ctx context.Context, cost, floor int) (*DescentResult, error) {
	out := &DescentResult{Cost: cost, LowerBound: floor}
	type part struct {
		lit   sat.Lit
		lower int
	}
	parts := []part{{lower: floor}}
	if len(d.Parts) > 0 {
		parts = parts[:0]
		for _, l := range d.Parts {
			parts = append(parts, part{lit: l, lower: floor})
		}
		// The counter's outputs in order (reaching k+1 implies reaching
		// k): a part's clause at bound k then holds at every lower one.
		for k := 1; k < d.Cap; k++ {
			if a, b := d.AtLeast(k), d.AtLeast(k+1); a != 0 && b != 0 && a != b {
				d.Solver.AddClause(b.Not(), a)
			}
		}
	}
	lower := func() int {
		lb := out.Cost
		for _, pt := range parts {
			lb = min(lb, pt.lower)
		}
		return lb
	}
	for i := 0; i < len(parts); {
		pt := &parts[i]
		if pt.lower >= out.Cost {
			i++
			continue
		}
		k := out.Cost - 1
		if d.Bisect {
			k = pt.lower + (out.Cost-1-pt.lower)/2
		}
		var as []sat.Lit
		if o := d.AtLeast(k + 1); o != 0 {
			as = append(as, o.Not())
		}
		step := Step{Part: -1, Bound: k}
		if pt.lit != 0 {
			as = append(as, pt.lit)
			step.Part = i
		}
		st, err := d.Solver.Solve(ctx, as...)
		out.Calls++
		if err != nil {
			return nil, fmt.Errorf("solver: %w", err)
		}
		step.Status = st
		switch st {
		case sat.Unknown:
			out.Stopped = true
			out.Steps = append(out.Steps, step)
			out.LowerBound = max(out.LowerBound, lower())
			return out, nil
		case sat.Unsatisfiable:
			pt.lower = k + 1
			if o := d.AtLeast(k + 1); pt.lit != 0 && o != 0 {
				d.Solver.AddClause(pt.lit.Not(), o)
			}
		case sat.Satisfiable:
			got, err := d.Model(k)
			if err != nil {
				return nil, err
			}
			if got > k {
				return nil, fmt.Errorf("the model costs %d, above the bound %d", got, k)
			}
			step.Cost = got
			out.Cost = got
		}
		out.Steps = append(out.Steps, step)
	}
	out.LowerBound = out.Cost
	out.Optimal = true
	return out, nil
}

// RootOrder lists the kept tests in the order of their stumps' error
// (ties: lower index first): the order in which a search by root test
// meets good trees early.
func (p *Prepared) RootOrder() []int {
	stump := make([]int, len(p.Tests))
	lo, hi := make([]int64, p.Classes), make([]int64, p.Classes)
	for t := range p.Tests {
		clear(lo)
		clear(hi)
		for g, gr := range p.Groups {
			side := lo
			if p.Value(g, t) {
				side = hi
			}
			for c, x := range gr.Count {
				side[c] += int64(x)
			}
		}
		_, el := model.Majority(lo)
		_, eh := model.Majority(hi)
		stump[t] = int(el + eh)
	}
	out := make([]int, len(p.Tests))
	for t := range out {
		out[t] = t
	}
	slices.SortStableFunc(out, func(a, b int) int { return stump[a] - stump[b] })
	return out
}
