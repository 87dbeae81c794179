package flowoct

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// The decomposition by root test solves the error objective at depth d
// as many small FlowOCT MILPs instead of one: with the root's test fixed
// the rows split in two, and the subtrees of depth d−1 on either side
// are independent problems, each a FlowOCT MILP over its half of the
// groups (its own tests: those constant, duplicate or complementary on
// the half are dropped). The root may also be a leaf. The optimum is the
// best of the leaf and, over the root tests, the sum of the two sides'
// optima; the levels below the root may be enumerated the same way
// (Levels), the last level's subtrees are MILPs.
//
// Roots are tried in the order of the greedy tree with that root (each
// such tree is an incumbent). A root whose sides' bounds (first the
// conflicts of identical rows with different labels, then a solved
// side's proven bound) reach the incumbent is skipped, and every side's
// MILP gets the cutoff the incumbent leaves it, so that HiGHS ends a
// hopeless side as soon as it proves nothing better exists.
//
// The lower bound is the least, over the leaf and the roots, of each
// root's proven bound (a root not reached contributes its conflict
// bound): a run stopped by its time limit or its caller reports an
// honest bound.

// dnode is a tree assembled from a decomposition's subtrees: a split on
// the view's test (test ≥ 0) or a leaf of class.
type dnode struct {
	test, class int
	lo, hi      *dnode
}

func (n *dnode) leaf() bool { return n.test < 0 }

// outcome is what the decomposition knows of a (sub)problem.
type outcome struct {
	tree *dnode  // best tree found (nil: none)
	obj  float64 // its objective (+Inf: none)
	lb   float64 // a proven lower bound on the optimum (+Inf: no tree)
}

// decomp is one decomposed solve of the error objective.
type decomp struct {
	s      *search
	levels int     // levels enumerated below the root (≥ 1)
	total  float64 // the weight errors are a share of with a leaf cost
	// counts per level: roots tried, roots skipped by their bounds
	tried, pruned []int
	subMILPs      int
	memory        bool // a sub-MILP stopped at the memory limit
	timeLimit     bool // a sub-MILP stopped at its time limit (set just short of the deadline)
	offer         func(*dnode)
	// perfect: the subproblems are those of the error objective, for a
	// tree with no error (min-depth, min-size).
	perfect bool
	// size: the objective is the leaves of a tree with no error (errors
	// below errCut), the least row weight (min-size at its depth).
	size   bool
	errCut float64
}

// reaches reports whether bound b already rules out beating threshold t
// (within the tolerance of an optimality claim, milpjob.Tolerance, which is
// wider than the hair below t a MILP's cutoff asks for: see cutoffFor).
func reaches(b, t float64) bool {
	return !math.IsInf(t, 1) && b >= t-milpjob.Tolerance(t)
}

// plan groups the rows for a (sub)problem of depth k, without building
// its MILP or admitting its size (an enumerated level only groups the
// rows; see admit).
func (dc *decomp) plan(ctx context.Context, rows model.Bitset, k int) (*Encoding, error) {
	o := options(dc.s.job, dc.s.pr, k)
	if dc.perfect {
		// A tree with no error: the fewest errors, asked below one.
		o.Objective, o.MaxInternal = Errors, 0
	}
	o.Rows, o.Total, o.Local = rows, dc.total, true
	o.Tight = dc.s.pr.set.Tight
	e, err := Plan(ctx, dc.s.pr.view, o)
	if errors.Is(err, ErrInput) {
		return nil, backend.Invalid(err)
	}
	return e, err
}

// side is what a root's side holds before it is solved.
type side struct {
	rows  model.Bitset
	size  int     // groups
	cheap float64 // conflict bound of a subtree (its errors and one leaf)
	ok    bool    // enough rows for a leaf (min support)
}

// conflicts is the weight no tree can classify in the groups gs: each
// group's weight outside its majority class.
func (e *Encoding) conflicts(gs []int) (errs float64, rows int) {
	for _, g := range gs {
		_, c := model.Majority(e.groups[g].w)
		errs += c
		rows += e.groups[g].rows
	}
	return errs, rows
}

// eval is the objective of tree t on the encoding's rows (its errors
// there, plus the leaf cost of its leaves) and the tree as a dnode.
func (e *Encoding) eval(t Tree) (float64, *dnode) {
	errs, leaves, tree := e.evalParts(t)
	if tree == nil {
		return math.Inf(1), nil
	}
	return errs*e.scale() + e.Opts.LeafCost*float64(leaves), tree
}

// evalParts is the weighted errors and the leaves of tree t on the
// encoding's rows, and the tree as a dnode (nil: t is no tree).
func (e *Encoding) evalParts(t Tree) (float64, int, *dnode) {
	leaves := 0
	var walk func(n int) *dnode
	walk = func(n int) *dnode {
		if n < e.nInt && t.Test[n] >= 0 {
			lo, hi := walk(2*n+1), walk(2*n+2)
			if lo == nil || hi == nil {
				return nil
			}
			if !e.Opts.general() && lo.leaf() && hi.leaf() && lo.class == hi.class {
				leaves--
				return lo
			}
			return &dnode{test: e.Tests[t.Test[n]], class: -1, lo: lo, hi: hi}
		}
		if t.Class[n] < 0 {
			return nil
		}
		leaves++
		return &dnode{test: -1, class: t.Class[n]}
	}
	tree := walk(0)
	if tree == nil {
		return 0, 0, nil
	}
	errs := 0.0
	for g, gr := range e.groups {
		n := 0
		for n < e.nInt && t.Test[n] >= 0 {
			if e.value(g, t.Test[n]) {
				n = 2*n + 2
			} else {
				n = 2*n + 1
			}
		}
		errs += gr.total - gr.w[t.Class[n]]
	}
	return errs, leaves, tree
}

// eval is the objective of tree t in the decomposition's terms: e.eval,
// or in size mode the leaves of a tree with no error (+Inf otherwise).
func (dc *decomp) eval(e *Encoding, t Tree) (float64, *dnode) {
	if !dc.size {
		return e.eval(t)
	}
	errs, leaves, tree := e.evalParts(t)
	if tree == nil || errs >= dc.errCut {
		return math.Inf(1), nil
	}
	return float64(leaves), tree
}

// leaf is the single leaf over the encoding's rows (in size mode: one
// leaf when it makes no error, none otherwise).
func (dc *decomp) leaf(e *Encoding) outcome {
	o := e.leafOutcome()
	if dc.size {
		if o.tree == nil || o.obj >= dc.errCut {
			return outcome{obj: math.Inf(1), lb: math.Inf(1)}
		}
		return outcome{tree: o.tree, obj: 1, lb: 1}
	}
	return o
}

// sizeBound is size mode's bound on the leaves of a tree over groups gs
// with no error: none with a conflict, one leaf when a class holds all
// the weight, else two.
func (e *Encoding) sizeBound(gs []int, errCut float64) float64 {
	if errs, _ := e.conflicts(gs); errs >= errCut {
		return math.Inf(1)
	}
	w := make([]float64, len(e.View.Class))
	for _, g := range gs {
		for c, v := range e.groups[g].w {
			w[c] += v
		}
	}
	if _, errs := model.Majority(w); errs < errCut {
		return 1
	}
	return 2
}

// leafOutcome is the single leaf over the encoding's rows.
func (e *Encoding) leafOutcome() outcome {
	w := make([]float64, len(e.View.Class))
	rows := 0
	for _, gr := range e.groups {
		for c, v := range gr.w {
			w[c] += v
		}
		rows += gr.rows
	}
	if rows == 0 || e.Opts.MinSupport > 1 && rows < e.Opts.MinSupport {
		return outcome{obj: math.Inf(1), lb: math.Inf(1)}
	}
	c, errs := model.Majority(w)
	obj := errs*e.scale() + e.Opts.LeafCost
	return outcome{tree: &dnode{test: -1, class: c}, obj: obj, lb: obj}
}

// solve finds the best tree of depth k over rows whose objective is
// below cutoff (+Inf: any), at enumeration level level (0: the root).
// Its bound is valid whatever the cutoff; its tree may be none when ctx
// ends or nothing beats the cutoff.
func (dc *decomp) solve(ctx context.Context, rows model.Bitset, k, level int, cutoff float64) (outcome, error) {
	e, err := dc.plan(ctx, rows, k)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return outcome{obj: math.Inf(1), lb: math.Inf(-1)}, nil
		}
		return outcome{}, err
	}
	if level >= dc.levels || e.Opts.Depth < 2 {
		// Only a MILP that is solved is admitted against the memory cap.
		e.subtree = true
		if err := admit(dc.s.job, e, true); err != nil {
			return outcome{}, err
		}
		return dc.milp(ctx, e, cutoff)
	}
	res := dc.leaf(e)
	res.lb = res.obj
	better := func(obj float64, t *dnode) {
		if t != nil && obj < res.obj-1e-12*math.Max(1, math.Abs(obj)) {
			res.obj, res.tree = obj, t
			if level == 0 {
				dc.offer(t)
			}
		}
	}
	if level == 0 && res.tree != nil {
		dc.offer(res.tree)
	}
	type root struct {
		j      int // index into e.Tests
		score  float64
		lo, hi side
	}
	n := dc.s.pr.view.N
	scale, lambda := e.scale(), e.Opts.LeafCost
	var roots []root
	for j, t := range e.Tests {
		if j%16 == 0 && ctx.Err() != nil {
			break
		}
		var lo, hi []int
		for g := range e.groups {
			if e.value(g, j) {
				hi = append(hi, g)
			} else {
				lo = append(lo, g)
			}
		}
		r := root{j: j}
		for i, gs := range [][]int{lo, hi} {
			errs, cnt := e.conflicts(gs)
			sd := side{size: len(gs), cheap: errs*scale + lambda, ok: e.Opts.MinSupport <= 1 || cnt >= e.Opts.MinSupport}
			if dc.size {
				sd.cheap = e.sizeBound(gs, dc.errCut)
			}
			if i == 0 {
				sd.rows = model.NewBitset(n).AndNot(rows, dc.s.pr.view.True[t])
				r.lo = sd
			} else {
				sd.rows = model.NewBitset(n).And(rows, dc.s.pr.view.True[t])
				r.hi = sd
			}
		}
		if !r.lo.ok || !r.hi.ok {
			continue // a side cannot hold a leaf: no tree has this root
		}
		gt := e.greedy(j)
		r.score, _ = dc.eval(e, gt)
		better(dc.eval(e, gt))
		roots = append(roots, r)
	}
	slices.SortStableFunc(roots, func(a, b root) int { return cmp.Compare(a.score, b.score) })
	lb := res.lb
	thr := func() float64 { return math.Min(res.obj, cutoff) }
	for i, r := range roots {
		if ctx.Err() != nil {
			for _, u := range roots[i:] {
				lb = math.Min(lb, u.lo.cheap+u.hi.cheap)
			}
			break
		}
		dc.tried[level]++
		if b := r.lo.cheap + r.hi.cheap; reaches(b, thr()) {
			dc.pruned[level]++
			lb = math.Min(lb, b)
			continue
		}
		// The side with more groups first: its bound is the stronger
		// cutoff for the other.
		a, b, swapped := r.lo, r.hi, false
		if b.size > a.size {
			a, b, swapped = b, a, true
		}
		oa, err := dc.solve(ctx, a.rows, k-1, level+1, thr()-b.cheap)
		if err != nil {
			return outcome{}, err
		}
		lbA := math.Max(a.cheap, oa.lb)
		if reaches(lbA+b.cheap, thr()) {
			dc.pruned[level]++
			lb = math.Min(lb, lbA+b.cheap)
			continue
		}
		ob, err := dc.solve(ctx, b.rows, k-1, level+1, thr()-lbA)
		if err != nil {
			return outcome{}, err
		}
		lb = math.Min(lb, lbA+math.Max(b.cheap, ob.lb))
		if oa.tree != nil && ob.tree != nil {
			lo, hi := oa.tree, ob.tree
			if swapped {
				lo, hi = hi, lo
			}
			better(oa.obj+ob.obj, &dnode{test: e.Tests[r.j], class: -1, lo: lo, hi: hi})
		}
	}
	res.lb = math.Min(lb, res.obj)
	return res, nil
}

// cutoffFor is the MILP cutoff that asks for an objective below c: one
// error below with whole errors, a hair below otherwise.
func (dc *decomp) cutoffFor(c float64) float64 {
	if dc.s.whole {
		return c - 0.5
	}
	return c - 1e-7*math.Max(1, math.Abs(c))
}

// milp solves the subproblem of encoding e by its FlowOCT MILP, with the
// greedy tree as an incumbent (and, with warm-start, as the MIP start),
// asking only for trees below cutoff.
func (dc *decomp) milp(ctx context.Context, e *Encoding, cutoff float64) (outcome, error) {
	all := make([]int, len(e.groups))
	for g := range all {
		all[g] = g
	}
	errs, _ := e.conflicts(all)
	cheap := errs*e.scale() + e.Opts.LeafCost
	if dc.size {
		// A tree with no error: one leaf, or a depth-1 MILP asked for
		// errors below one (its leaves are then counted).
		cheap = e.sizeBound(all, dc.errCut)
		if cheap == 1 || math.IsInf(cheap, 1) || e.Opts.Depth == 0 {
			return dc.leaf(e), nil
		}
		if reaches(cheap, cutoff) {
			return outcome{obj: math.Inf(1), lb: cheap}, nil
		}
		cutoff = dc.errCut
	}
	if e.Opts.Depth == 0 {
		return e.leafOutcome(), nil
	}
	stopped := outcome{obj: math.Inf(1), lb: cheap}
	if !dc.size && reaches(cheap, cutoff) {
		return stopped, nil
	}
	if err := e.Build(ctx); err != nil {
		if ctx.Err() != nil {
			return stopped, nil
		}
		return outcome{}, err
	}
	dc.subMILPs++
	res := outcome{obj: math.Inf(1), lb: math.Inf(-1)}
	params := dc.s.params(nil)
	t := e.Greedy()
	if x, ok := e.Point(t); ok && e.Model.CheckPoint(x, 1e-9) == nil {
		res.obj, res.tree = dc.eval(e, t)
		if dc.s.pr.set.WarmStart {
			params.Start = x
		}
	}
	if !math.IsInf(cutoff, 1) {
		params.Cutoff, params.HasCutoff = dc.cutoffFor(cutoff), true
	}
	sol, err := milpjob.Solve(ctx, dc.s.solver, e.Model, params, nil)
	if err != nil {
		return outcome{}, err
	}
	dc.s.wholeBound(sol)
	if sol.MemoryLimit {
		dc.memory = true
	}
	if sol.TimeLimit {
		dc.timeLimit = true
	}
	if sol.X != nil {
		st, err := e.TreeOf(sol.X)
		if err != nil {
			return outcome{}, fmt.Errorf("decoding the %s solution of a subtree: %w", dc.s.solver.Name(), err)
		}
		if obj, tree := dc.eval(e, st); tree != nil && obj < res.obj {
			res.obj, res.tree = obj, tree
		}
	}
	switch {
	case sol.Status == milp.StatusInfeasible && !params.HasCutoff:
		res.lb = math.Inf(1) // no tree (min support)
	case !math.IsInf(sol.Bound, 0) && !math.IsNaN(sol.Bound):
		res.lb = sol.Bound
	case sol.Status == milp.StatusOptimal:
		res.lb = sol.Objective
	}
	if dc.size {
		// The MILP's bound is on errors: below one, the tree has the
		// two leaves of cheap; above, there is no tree.
		if reaches(res.lb, dc.errCut) {
			res.lb = math.Inf(1)
		} else {
			res.lb = cheap
		}
	}
	res.lb = math.Min(math.Max(res.lb, cheap), res.obj)
	return res, nil
}

// graph builds the model of a decomposition's tree.
func graph(d *model.Dataset, v *model.BinaryView, t *dnode) *model.Graph {
	b := model.NewBuilder(d, model.KindTree)
	var walk func(n *dnode) int
	walk = func(n *dnode) int {
		if n.leaf() {
			return b.Leaf(n.class)
		}
		return b.Split(v.Tests[n.test], walk(n.lo), walk(n.hi))
	}
	return b.Graph(walk(t))
}

// decomposes reports whether the job's error objective is solved by the
// decomposition: asked for (decompose > 0), the flow formulation on
// in-process HiGHS (the milp-solver option), and no node limit (which
// couples the two sides).
func decomposes(job *backend.Job, set Settings) bool {
	solver, err := milpjob.NewSolver(job)
	return err == nil && set.Decompose > 0 && !set.Benders &&
		!milp.IsExternal(solver) && job.Problem.MaxNodes == 0 && job.Problem.MaxDepth >= 2
}

// decomposed solves the error objective by the decomposition by root
// test (see decomp).
func (s *search) decomposed(ctx context.Context) (*model.Result, error) {
	job, d, p := s.job, s.job.Data, s.job.Problem
	v := s.pr.view
	levels := min(s.pr.set.Decompose, p.MaxDepth-1)
	// The largest subtree MILP it may build is admitted first, as Size
	// estimates it: a cap it passes is refused at once, not after the
	// enumeration has run into it.
	first, err := firstPlan(ctx, job, s.pr)
	if err == nil {
		err = admit(job, first, true)
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Stop: model.StopOf(ctx)}, nil
		}
		return nil, err
	}
	dc := &decomp{s: s, levels: levels, total: d.TotalWeight(), tried: make([]int, levels), pruned: make([]int, levels)}
	var best *model.Graph
	bestObj := math.Inf(1)
	dc.offer = func(t *dnode) {
		g := graph(d, v, t)
		if obj := p.Evaluate(d, g); obj < bestObj-1e-12 {
			best, bestObj = g, obj
			job.Report.Report(obj, g)
		}
	}
	rows := s.pr.keep
	if rows == nil {
		rows = model.FullBitset(v.N)
	}
	out, err := dc.solve(ctx, rows, p.MaxDepth, 0, math.Inf(1))
	if err != nil {
		return nil, err
	}
	if out.tree != nil {
		dc.offer(out.tree)
	}
	st := s.stats
	st["decompose"], st["depth"] = levels, p.MaxDepth
	st["sub_milps"], st["roots_tried"], st["roots_pruned"] = dc.subMILPs, dc.tried, dc.pruned
	res := &model.Result{}
	switch {
	case ctx.Err() != nil:
		res.Stop = model.StopOf(ctx)
	case dc.memory:
		res.Stop = model.StopMemory
	case dc.timeLimit:
		// A sub-MILP's own limit, set just short of the deadline, ended
		// it before the context did: a time limit, not a finished search.
		res.Stop = model.StopTimeLimit
	default:
		res.Stop = model.StopNone
	}
	if best == nil {
		res.Infeasible = ctx.Err() == nil && math.IsInf(out.lb, 1)
		return res, nil
	}
	res.Model, res.Errors, res.Objective = best, best.Errors(d), bestObj
	lb := math.Max(0, math.Min(out.lb, bestObj))
	if bestObj <= lb+milpjob.Tolerance(bestObj) {
		lb, res.Proved = bestObj, true // proven within the solver's tolerance
	}
	res.LowerBound = lb
	return res, nil
}

// perfectDecomposable reports whether min-depth's and min-size's
// depth-by-depth search asks the decomposition for a tree with no error
// at each depth: decompose > 0 on in-process HiGHS, no node limit, and
// positive row weights (a zero weight would make an error free).
func (s *search) perfectDecomposable() bool {
	job := s.job
	if s.pr.set.Decompose == 0 || milp.IsExternal(s.solver) || job.Problem.MaxNodes > 0 {
		return false
	}
	for _, w := range job.Data.Weights {
		if w <= 0 {
			return false
		}
	}
	return true
}

// perfectAt asks the decomposition for a tree of depth k with no error
// on the rows kept: the tree (nil: none), and whether none exists.
func (s *search) perfectAt(ctx context.Context, k int) (*dnode, bool, error) {
	out, cutoff, err := s.perfectSearch(ctx, k, false)
	if err != nil {
		return nil, false, err
	}
	if out.tree != nil && !reaches(out.obj, cutoff) {
		return out.tree, false, nil
	}
	return nil, reaches(out.lb, cutoff), nil
}

// perfectSearch runs the decomposition for a tree of depth k with no
// error on the rows kept: with size, for the fewest leaves (the outcome
// counts leaves), else for any (the outcome counts errors, below cutoff
// meaning none).
func (s *search) perfectSearch(ctx context.Context, k int, size bool) (outcome, float64, error) {
	d := s.job.Data
	ss := *s
	_, fractional := d.FractionalWeight()
	ss.whole = s.wholeErrors
	// With no error allowed, a side with a conflict ends a root at once:
	// every level is enumerated, down to subtrees of depth 1.
	levels := max(k-1, 0)
	dc := &decomp{s: &ss, levels: levels, total: d.TotalWeight(), tried: make([]int, levels), pruned: make([]int, levels), perfect: true, offer: func(*dnode) {}}
	// Errors below the least row weight are no errors.
	cutoff := 1.0
	if fractional {
		cutoff = math.Inf(1)
		for _, w := range d.Weights {
			cutoff = math.Min(cutoff, w)
		}
	}
	rows := s.pr.keep
	if rows == nil {
		rows = model.FullBitset(s.pr.view.N)
	}
	dc.size, dc.errCut = size, cutoff
	c := cutoff
	if size {
		c = math.Inf(1)
	}
	out, err := dc.solve(ctx, rows, k, 0, c)
	if err != nil {
		return outcome{}, 0, err
	}
	s.stats["sub_milps"] = toInt(s.stats["sub_milps"]) + dc.subMILPs
	s.stats["decompose"] = dc.levels
	return out, cutoff, nil
}

func toInt(v any) int {
	i, _ := v.(int)
	return i
}
