package satodt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Estimate is the size of the formula a search of depth d ≥ 1 builds
// with the given counter cut at limit (the incumbent's error), estimated
// without building it: the tree's clauses, every group's, and the
// counter.
func Estimate(p *satjob.Prepared, d int, counter Counter, limit int) backend.Size {
	var c backend.Counter
	if d > 62 {
		return satjob.TooLarge()
	}
	nodes, leaves := int64(1)<<d-1, int64(1)<<d
	ng, nt, nk := int64(len(p.Groups)), int64(len(p.Tests)), int64(p.Classes)
	softs := int64(0)
	for _, g := range p.Groups {
		for _, w := range g.Count {
			if w > 0 {
				softs++
			}
		}
	}
	yVars := leaves
	if nk > 2 {
		yVars = c.Mul(leaves, nk)
	}
	// Tests per node (at least one), the sides of every group at every
	// node, tests not repeated below (at most nodes² pairs per test),
	// and at most one class per leaf.
	vars := c.Add(c.Mul(nodes, nt), c.Mul(nodes, ng), yVars, softs)
	clauses := c.Add(nodes, c.Mul(c.Mul(nodes, ng), nt), c.Mul(c.Mul(nodes, nodes), nt), c.Mul(leaves, nk*nk))
	lits := c.Add(c.Mul(nodes, nt), 2*c.Mul(c.Mul(nodes, ng), nt), 2*c.Mul(c.Mul(nodes, nodes), nt), c.Mul(leaves, nk*nk))
	var cs sat.CounterSize
	if counter == CounterRows {
		// A clause per soft literal and leaf, and one totalizer.
		clauses = c.Add(clauses, c.Mul(softs, leaves))
		lits = c.Add(lits, c.Mul(c.Mul(softs, leaves), int64(d+2)))
		w := make([]int, 0, softs)
		for _, g := range p.Groups {
			for _, x := range g.Count {
				if x > 0 {
					w = append(w, x)
				}
			}
		}
		_, cs = sat.TotalizerSize(w, limit)
	} else {
		// A reach literal per leaf and group, a totalizer per leaf and
		// class (the same at every leaf), the leaves' errors and their
		// sums along the tree.
		vars = c.Add(vars, c.Mul(leaves, ng))
		clauses = c.Add(clauses, c.Mul(leaves, ng))
		lits = c.Add(lits, c.Mul(c.Mul(leaves, ng), int64(d+1)))
		w := make([]int, 0, ng)
		for k := range p.Classes {
			w = w[:0]
			for _, g := range p.Groups {
				if x := g.Total() - g.Count[k]; x > 0 {
					w = append(w, x)
				}
			}
			_, t := sat.TotalizerSize(w, limit)
			cs.Vars = c.Add(cs.Vars, c.Mul(leaves, t.Vars))
			cs.Clauses = c.Add(cs.Clauses, c.Mul(leaves, t.Clauses))
			cs.Lits = c.Add(cs.Lits, c.Mul(leaves, t.Lits))
		}
		perLeaf := int64(limit) * (nk + 3)
		cs.Vars = c.Add(cs.Vars, c.Mul(leaves, int64(limit)))
		cs.Clauses = c.Add(cs.Clauses, c.Mul(leaves, perLeaf))
		cs.Lits = c.Add(cs.Lits, c.Mul(c.Mul(leaves, perLeaf), nk+2))
		_, sum := sat.SumSize(limit, limit, limit)
		cs.Vars = c.Add(cs.Vars, c.Mul(leaves-1, sum.Vars))
		cs.Clauses = c.Add(cs.Clauses, c.Mul(leaves-1, sum.Clauses))
		cs.Lits = c.Add(cs.Lits, c.Mul(leaves-1, sum.Lits))
	}
	return satjob.CNFSize(&c, c.Add(vars, cs.Vars), c.Add(clauses, cs.Clauses), c.Add(lits, cs.Lits))
}

// ExportEstimate estimates the exported formula of depth d (the tree's
// clauses and the soft literals' clauses at every leaf, no counter).
func ExportEstimate(p *satjob.Prepared, d int) backend.Size { return Estimate(p, d, CounterRows, 1) }

// MaxDepth is the deepest complete tree the formula states: its
// 2^20 − 1 nodes each hold a clause per group and test.
const MaxDepth = 20

// UsefulDepth is the depth the formula needs for trees of depth at most
// d on the prepared data: no path of an optimal tree repeats a kept
// test, and each of its useful splits leaves a group on either side, so
// no tree needs more levels than there are kept tests or groups − 1.
func UsefulDepth(p *satjob.Prepared, d int) int {
	return max(min(d, len(p.Tests), len(p.Groups)-1), 0)
}

// linksBelow is a lower bound on the bytes of the formula of depth d
// (after UsefulDepth) on data with at least groups groups and exactly
// tests kept tests: its node-group-test clauses alone.
func linksBelow(d, groups, tests int) int64 {
	d = max(min(d, tests, groups-1), 0)
	if d == 0 {
		return 0
	}
	if d > 62 {
		return math.MaxInt64
	}
	var c backend.Counter
	return c.Mul(c.Mul(c.Mul(int64(1)<<d-1, int64(groups)), int64(tests)), satjob.BinaryClauseBytes)
}

// plan is what a solve of a job builds, decided before the formula is
// allocated: the data as the formula sees it, the depth searched, the
// incumbent the search starts from and the formula's estimate.
type plan struct {
	view *model.BinaryView
	// prep is nil when no formula is needed before grouping the rows
	// (depth 0, or cart's tree makes no error).
	prep *satjob.Prepared
	// depth is the depth searched (UsefulDepth of the job's).
	depth int
	// inc is the best of the majority leaf, cart's tree and the greedy
	// complete tree; incErr its weighted error.
	inc    *model.Graph
	incErr float64
	// search is set when a formula is to be built, of estimated size.
	search bool
	size   backend.Size
}

// newPlan prepares the job's data and decides what a solve builds,
// allocating nothing of the formula's size: the depth is cut to the
// useful depth, a depth beyond MaxDepth is refused, and the formula is
// refused as soon as a lower bound of its size (while the rows are
// grouped, then with the least cut of its counters) passes the job's
// memory cap, before the greedy complete tree is grown; the estimate
// returned cuts the counters at the incumbent's error. Refusals wrap
// backend.ErrInvalid; when ctx ends the error is its cause and the plan
// holds the incumbent so far (nil before the binary view is built).
func newPlan(ctx context.Context, job *backend.Job, o Options) (*plan, error) {
	d := job.Data
	capBytes := job.Budget.Limit()
	limit := int64(viewBytes)
	if capBytes > 0 {
		limit = min(limit, capBytes/4)
	}
	v, err := model.BinarizeBudget(ctx, d, limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	pl := &plan{view: v, depth: job.Problem.MaxDepth}
	b := model.NewBuilder(d, model.KindTree)
	k, _ := model.Majority(d.ClassCounts())
	pl.inc = b.Graph(b.Leaf(k))
	pl.incErr = pl.inc.WeightedErrors(d)
	if pl.depth > 0 && pl.incErr > 0 {
		if g, _ := cart.Grow(ctx, v, pl.depth, cart.Config{}); ctx.Err() == nil {
			if e := g.WeightedErrors(d); e < pl.incErr {
				pl.inc, pl.incErr = g, e
			}
		}
	}
	job.Report.Report(pl.incErr, pl.inc)
	if ctx.Err() != nil {
		return pl, context.Cause(ctx)
	}
	if pl.depth == 0 || pl.incErr == 0 {
		return pl, nil // the incumbent is optimal: nothing to search
	}
	p, err := prepareWithin(ctx, v, pl.depth, capBytes)
	if err != nil {
		return pl, err
	}
	pl.prep = p
	pl.depth = UsefulDepth(p, pl.depth)
	if pl.depth == 0 || pl.incErr <= float64(p.Floor) {
		return pl, nil // a single leaf, or no tree beats the floor
	}
	size := func(cut int) backend.Size { return Estimate(p, pl.depth, o.Counter, cut) }
	if o.MaxSAT.Argv != nil {
		// An external solver reads the exported formula.
		size = func(int) backend.Size { return ExportEstimate(p, pl.depth) }
	}
	what := fmt.Sprintf("the sat-odt formula of depth %d", pl.depth)
	least := size(p.Floor + 1)
	if pl.depth > MaxDepth {
		return pl, backend.Invalidf("sat-odt: depth %d exceeds the deepest complete tree the formula states (%d): %s would need about %s (%s) (lower --depth)",
			pl.depth, MaxDepth, what, backend.MB(least.Bytes), least)
	}
	if err := job.Budget.Admit(least, what); err != nil {
		return pl, err
	}
	g := Tree(p, Greedy(p, pl.depth, o))
	if e := g.WeightedErrors(d); e < pl.incErr {
		pl.inc, pl.incErr = g, e
		job.Report.Report(pl.incErr, pl.inc)
	}
	if pl.incErr <= float64(p.Floor) {
		return pl, nil
	}
	pl.search = true
	pl.size = size(int(math.Round(pl.incErr)))
	return pl, nil
}

// prepareWithin prepares the view for the formula of depth d, refused
// (wrapped in backend.ErrInvalid) as soon as the groups found so far
// make its node-group-test clauses pass capBytes (0: no cap); when ctx
// ends the error is its cause.
func prepareWithin(ctx context.Context, v *model.BinaryView, d int, capBytes int64) (*satjob.Prepared, error) {
	p, err := satjob.PrepareWithin(ctx, v, func(groups, tests int) error {
		if b := linksBelow(d, groups, tests); capBytes > 0 && b > capBytes {
			return backend.Invalidf("sat-odt: the formula of depth %d would need more than %s (at least %d groups of identical rows sent down each node by each of %d tests), more than the memory cap of %s: refused before building it (raise --memory-limit, or lower --depth)",
				min(d, tests, groups-1), backend.MB(b), groups, tests, backend.MB(capBytes))
		}
		return nil
	})
	switch {
	case err == nil || errors.Is(err, backend.ErrInvalid):
		return p, err
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	}
	return nil, backend.Invalid(err)
}

// Size estimates the formula a solve of the job builds (see newPlan):
// zero when no formula is needed, an error wrapping backend.ErrInvalid
// for a depth beyond MaxDepth or a formula whose least size passes the
// memory cap.
func (b Backend) Size(job *backend.Job) (backend.Size, error) {
	o, err := JobOptions(job)
	if err != nil {
		return backend.Size{}, err
	}
	pl, err := newPlan(context.Background(), job, o)
	if err != nil {
		return backend.Size{}, err
	}
	return pl.size, nil
}
