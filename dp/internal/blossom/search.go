package blossom

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Order is the order in which the features of a branch are tried.
type Order int

const (
	// OrderGini tries features by increasing Gini impurity of the split
	// (the paper's default heuristic).
	OrderGini Order = iota
	// OrderError tries features by increasing classification error of the
	// split (the paper's "no heuristic" variant).
	OrderError
	// OrderIndex tries features in their index order (no ordering at all).
	OrderIndex
)

// Options control a search. The zero value is the full algorithm.
type Options struct {
	// MaxDepth is the maximum number of tests on a branch.
	MaxDepth int
	Order    Order
	// NoLowerBound switches off the ancestor lower bound.
	NoLowerBound bool
	// NoDepth2 switches off the two-level rule: with it on (the default),
	// a branch with two levels left is solved optimally at once from the
	// pairwise class counts of its features, the way the paper solves a
	// branch with one level left; with it off, only the last level is.
	NoDepth2 bool
	// NoDropUninformative keeps, on every branch, the features that take
	// one value on all of its rows.
	NoDropUninformative bool
	// CheckEvery is the number of iterations between two looks at the
	// context (0: 64); the context is also looked at after every 2^20
	// words of bitset work, and inside the pair counts of the two-level
	// rule.
	CheckEvery int
	// Budget, when set, accounts the engine's big structures (the data
	// and the pair tables of the two-level rule) against the solve's
	// memory cap. A branch whose pair tables do not fit is searched
	// feature by feature instead (memory linear in the features); when
	// even the data does not fit, Solve refuses with an error wrapping
	// model.ErrMemoryLimit.
	Budget *backend.Budget
	// Workers is the number of search goroutines (0 or 1: the sequential
	// search). With more, the tests of the root are handed out in their
	// order to the workers (see parallel.go).
	Workers int
	// OnBound, when set, receives each rise of the lower bound on the
	// optimal error that the search proves as it runs (see search.bound;
	// looked at every CheckEvery iterations), and the final bound. The
	// bound rises only while the root's last tests are searched: with
	// one worker the last one, with several the last tests handed out
	// (see shared.reportBound). Calls come from one goroutine at a time.
	OnBound func(lb int64)
	// Allowance, when set, lets the search end within a gap: a test of the
	// root is given up once the branches solved under it show it cannot
	// beat the incumbent (error inc) by more than Allowance(inc). The tree
	// returned is then within Allowance of the optimum, not proven optimal
	// (Result.Gap). inc - Allowance(inc) must not fall as inc rises.
	Allowance func(inc int64) float64
}

// maxDepth2Bytes caps the pair tables of the two-level rule when no
// Budget is set.
const maxDepth2Bytes = 512 << 20

// Tree is a decision tree over the engine's features. Feature < 0 marks
// a leaf predicting Class; otherwise rows where the feature is false go
// Low and the others High. Subtrees are shared and never modified.
type Tree struct {
	Feature   int
	Class     int
	Low, High *Tree
}

// Depth is the number of tests on the longest branch.
func (t *Tree) Depth() int {
	if t == nil || t.Feature < 0 {
		return 0
	}
	return 1 + max(t.Low.Depth(), t.High.Depth())
}

// Stats count the work of a search.
type Stats struct {
	Iterations   int64 // iterations of the main loop
	Decisions    int64 // (branch, feature) pairs pushed on the sequence
	Depth1       int64 // branches with one level left solved at once
	Depth2       int64 // branches with two levels left solved at once
	ParentCounts int64 // pair counts of a parent, to solve two siblings at once
	Pruned       int64 // branches given up by the lower bound
	Incumbents   int64 // improvements of the root
	// FirstComplete is the error of the first complete tree (when the
	// buds first run out), -1 if the search stopped before.
	FirstComplete int64
	PeakBranches  int // most branch slots in use at once
	// Depth2Skipped counts the branches with two levels left searched
	// feature by feature because their pair tables did not fit.
	Depth2Skipped int64
	// RootTests counts the tests of the root searched by a parallel
	// search (0 for the sequential one).
	RootTests int64
}

// Result is the outcome of a search.
type Result struct {
	Tree    *Tree
	Error   int64 // weighted error of Tree on the engine's data
	Optimal bool  // the search space was exhausted (or the error is 0)
	// LowerBound is a proven lower bound on the optimal error (Error when
	// Optimal): from the branches solved optimally under the current
	// tree, where every other test of their parents was tried.
	LowerBound int64
	// Gap is set when the search ended (not stopped) having given up a
	// test of the root within Options.Allowance: LowerBound is then the
	// error less its allowance, and Optimal is false.
	Gap   bool
	Stats Stats
	// Cause is nil, or an error wrapping model.ErrMemoryLimit when even
	// the data did not fit the Budget (Tree is then the root's leaf).
	Cause error
}

type node struct {
	parent  int32
	inst    int64 // instance number, unique over the search
	depth   int32
	rows    []uint64 // rows of the branch, full length
	nzw     []int32  // indices of the non-zero words of rows
	cls     []int64  // weighted class counts
	total   int64
	leafErr int64
	leafCls int
	dom     []int32 // features to try, in order (nil: not computed yet)
	next    int     // dom[:next] have been tried
	best    int64   // error of tree, the best subtree found so far
	tree    *Tree
	feat    int32    // current test, -1 when none
	kids    [2]int32 // current children (low, high) while feat >= 0
	done    bool     // never expanded again: terminal, exhausted or pruned
	tainted bool     // pruned here or below w.r.t. an ancestor: best may not be optimal
}

type search struct {
	d      *Data
	o      Options
	nodes  []node
	free   []int32
	buds   []int32
	head   int
	seq    []int32
	leaves []*Tree
	report func(int64, *Tree)
	stats  Stats
	inUse  int
	ctx    context.Context
	work   int64 // words of bitset work since the context was looked at
	halt   bool  // the context ended inside a step
	budget *backend.Budget
	held   int64 // bytes reserved in budget
	// tableRoom is the number of elements reserved in budget for each of
	// the two-level rule's tables (single, pair, cacheSingle, cachePair,
	// proj): see depth2Fits.
	tableRoom [5]int64
	cause     error // a refused reservation that stopped the search
	lastBound int64 // the highest bound reported through Options.OnBound (-1: none)
	gapCut    bool  // a test of the root was given up within Options.Allowance

	// parallel search (nil / 0 for the sequential one): the state the
	// workers share, the position in the root's domain of the test this
	// worker searches, and rootEnd = pos+1, the end of the root's tests.
	sh      *shared
	pos     int
	rootEnd int
	slot    *atomic.Int64 // this worker's entry of sh.bounds

	// scratch
	hc, lc, tc             []int64
	cand                   []int32
	score                  []float64
	proj                   []uint64
	psegs                  []packSeg
	keep                   []int
	cacheInst              int64
	cacheSingle, cachePair []int64
	nextInst               int64
	ppos                   []int32
	single                 []int64
	pair                   []int64
}

// Solve runs Blossom on d. report (may be nil) receives every
// improvement of the best complete tree, the first one as soon as the
// root is split. When ctx ends, the best tree so far is returned with
// Optimal=false.
func Solve(ctx context.Context, d *Data, o Options, report func(err int64, t *Tree)) (res *Result) {
	if o.CheckEvery <= 0 {
		o.CheckEvery = 64
	}
	if o.Workers > 1 && (o.MaxDepth >= 3 || o.MaxDepth == 2 && o.NoDepth2) {
		return solveParallel(ctx, d, o, report)
	}
	s := newSearch(ctx, d, o, report)
	defer func() { s.budget.Release(s.held) }()
	root := s.newNode(-1, 0, d.All, nil, false)
	if err := s.reserve(d.Bytes(), "blossom data"); err != nil {
		r := &s.nodes[root]
		return &Result{Tree: r.tree, Error: r.best, Stats: s.stats, Cause: err}
	}
	s.buds = append(s.buds, root)
	if report != nil {
		report(s.nodes[root].best, s.nodes[root].tree)
	}
	stopped := s.run(root)
	r := &s.nodes[root]
	defer func() {
		if o.OnBound != nil {
			res.LowerBound = finalBound(o.OnBound, res, s.lastBound)
		}
	}()
	if s.stats.FirstComplete < 0 && !stopped {
		s.stats.FirstComplete = r.best
	}
	res = &Result{Tree: r.tree, Error: r.best, Optimal: !stopped, Stats: s.stats, Cause: s.cause}
	if res.Optimal && s.gapCut {
		res.Optimal, res.Gap, res.LowerBound = false, true, s.gapBound(res.Error)
	} else if res.Optimal {
		res.LowerBound = res.Error
	} else {
		res.LowerBound = min(s.bound(root), res.Error)
	}
	return res
}

// newSearch is a search with its scratch, no branch yet.
func newSearch(ctx context.Context, d *Data, o Options, report func(int64, *Tree)) *search {
	s := &search{d: d, o: o, report: report, ctx: ctx, budget: o.Budget,
		hc: make([]int64, d.C), lc: make([]int64, d.C), tc: make([]int64, d.C),
		score: make([]float64, len(d.Cols)),
	}
	s.stats.FirstComplete = -1
	s.lastBound = -1
	for c := range d.C {
		s.leaves = append(s.leaves, &Tree{Feature: -1, Class: c})
	}
	return s
}

// run is the main loop: buds are expanded (first in, first out) and,
// when none is left, decisions are undone, until the search space of
// root is exhausted or root holds a perfect tree. It returns true when
// the search was stopped (context, memory, or another worker's stop).
func (s *search) run(root int32) bool {
	for len(s.seq)+len(s.buds)-s.head > 0 {
		s.stats.Iterations++
		if s.halt || (s.stats.Iterations%int64(s.o.CheckEvery) == 0 || s.work > 1<<20) && s.looked() {
			return true
		}
		if s.sh != nil {
			s.sync()
			if s.sh.onBound != nil && s.stats.Iterations%int64(s.o.CheckEvery) == 0 {
				s.slot.Store(min(s.bound(root), s.nodes[root].best))
				s.sh.reportBound()
			}
		} else if s.o.OnBound != nil && s.stats.Iterations%int64(s.o.CheckEvery) == 0 {
			s.raiseBound(root)
		}
		if s.nodes[root].best == 0 {
			break // nothing can beat a perfect tree
		}
		if s.head < len(s.buds) {
			id := s.buds[s.head]
			s.head++
			if s.head == len(s.buds) {
				s.buds, s.head = s.buds[:0], 0
			}
			s.expand(id)
			continue
		}
		s.backtrack()
	}
	// A step cut short by the context leaves its branch unsolved.
	return s.halt
}

// looked looks at the context and, in a parallel search, at the other
// workers' stop (and resets the work counter): true when the search
// must stop.
func (s *search) looked() bool {
	s.work = 0
	if s.ctx.Err() != nil || s.sh != nil && s.sh.stop.Load() {
		s.halt = true
	}
	return s.halt
}

// reserve accounts n bytes in the budget until Solve returns.
func (s *search) reserve(n int64, what string) error {
	if err := s.budget.Reserve(n, what); err != nil {
		return err
	}
	s.held += n
	return nil
}

// end is the number of tests of branch id that may be tried: all of its
// domain, except at the root of a parallel worker, which tries only the
// test at its position.
func (s *search) end(id int32, x *node) int {
	if id == 0 && s.rootEnd > 0 {
		return s.rootEnd
	}
	return len(x.dom)
}

// bound is a lower bound on the optimal error of branch id of a stopped
// search: its best when it was solved optimally (done and not tainted);
// otherwise, when its current test is the last one left to try and no
// branch below it was given up, the smaller of its best (what the tests
// tried before reached) and the bounds of its two current children;
// else 0.
func (s *search) bound(id int32) int64 {
	x := &s.nodes[id]
	if x.done && !x.tainted {
		if x.parent < 0 && s.gapCut {
			return s.gapBound(x.best)
		}
		return x.best
	}
	if x.tainted || x.feat < 0 || x.dom == nil || x.next < s.end(id, x) {
		return 0
	}
	lb := min(x.best, s.bound(x.kids[0])+s.bound(x.kids[1]))
	if x.parent < 0 && s.gapCut {
		// The tests given up within the gap are bounded only by the
		// limit they were given up at.
		lb = min(lb, s.gapBound(x.best))
	}
	return lb
}

// finalBound is the bound of res once every bound reported before (the
// highest, last; -1 for none) is counted, and reports it to onBound when
// it is higher than last: a bound found while the search ran stays
// proven when its branch is left (the bound of a branch being searched
// may fall back as the search moves on).
func finalBound(onBound func(int64), res *Result, last int64) int64 {
	lb := min(max(res.LowerBound, last), res.Error)
	if lb > last {
		onBound(lb)
	}
	return lb
}

// raiseBound reports the bound of the root's search (bound, capped at
// the best tree's error) through Options.OnBound when it rose. It is 0
// until the root's last test is being searched, then rises as the
// branches under it are solved.
func (s *search) raiseBound(root int32) {
	lb := min(s.bound(root), s.nodes[root].best)
	if lb > s.lastBound {
		s.lastBound = lb
		s.o.OnBound(lb)
	}
}

// alloc returns a free branch slot.
func (s *search) alloc() int32 {
	s.inUse++
	s.stats.PeakBranches = max(s.stats.PeakBranches, s.inUse)
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		return id
	}
	// A new slot is accounted before it is made; when it does not fit,
	// it is made all the same (one slot) and the search stops at its
	// next step with the refusal as its cause.
	if err := s.reserve(s.slotBytes(), "blossom branches"); err != nil && s.cause == nil {
		s.cause, s.halt = err, true
		if s.sh != nil {
			s.sh.fail(err)
		}
	}
	s.nodes = append(s.nodes, node{rows: make([]uint64, s.d.W), cls: make([]int64, s.d.C)})
	return int32(len(s.nodes) - 1)
}

// slotBytes is the memory of one branch slot: its rows, the indices of
// its non-zero words (at most one per word), its class counts and the
// node itself.
func (s *search) slotBytes() int64 {
	return int64(s.d.W)*(8+4) + int64(s.d.C)*8 + int64(unsafe.Sizeof(node{}))
}

func (s *search) release(id int32) {
	if id < 0 {
		return
	}
	s.inUse--
	s.free = append(s.free, id)
}

// newNode creates the branch of parent's rows restricted by col (high
// side when high, low side otherwise); parent < 0 creates the root on
// rows.
func (s *search) newNode(parent int32, depth int, rows []uint64, col []uint64, high bool) int32 {
	id := s.alloc()
	x := &s.nodes[id]
	x.parent, x.depth = parent, int32(depth)
	s.nextInst++
	x.inst = s.nextInst
	x.nzw = x.nzw[:0]
	for w, v := range rows {
		switch {
		case col == nil:
		case high:
			v &= col[w]
		default:
			v &^= col[w]
		}
		x.rows[w] = v
		if v != 0 {
			x.nzw = append(x.nzw, int32(w))
		}
	}
	clear(x.cls)
	for _, w := range x.nzw {
		x.cls[s.d.WordClass[w]] += int64(bits.OnesCount64(x.rows[w])) * s.d.WordWeight[w]
	}
	x.total, x.leafCls = 0, 0
	for c, v := range x.cls {
		x.total += v
		if v > x.cls[x.leafCls] {
			x.leafCls = c
		}
	}
	x.leafErr = x.total - x.cls[x.leafCls]
	x.best, x.tree = x.leafErr, s.leaves[x.leafCls]
	x.dom, x.next, x.feat, x.kids = nil, 0, -1, [2]int32{-1, -1}
	x.done, x.tainted = false, false
	return id
}

// countHigh sets out to the weighted class counts of x's rows on which
// feature f is true.
func (s *search) countHigh(x *node, f int32, out []int64) {
	clear(out)
	col := s.d.Cols[f]
	wc, ww := s.d.WordClass, s.d.WordWeight
	for _, w := range x.nzw {
		if v := x.rows[w] & col[w]; v != 0 {
			out[wc[w]] += int64(bits.OnesCount64(v)) * ww[w]
		}
	}
	s.work += int64(len(x.nzw))
}

// candidates lists the features that may be tested on x: its parent's
// domain without the parent's test (all features at the root).
func (s *search) candidates(x *node) []int32 {
	s.cand = s.cand[:0]
	if x.parent < 0 {
		for f := range s.d.Cols {
			s.cand = append(s.cand, int32(f))
		}
		return s.cand
	}
	p := &s.nodes[x.parent]
	for _, f := range p.dom {
		if f != p.feat {
			s.cand = append(s.cand, f)
		}
	}
	return s.cand
}

func errOf(cnt []int64) (int64, int) {
	c, e := model.Majority(cnt)
	return e, c
}

func gini(cnt []int64) float64 {
	var tot, sq float64
	for _, v := range cnt {
		f := float64(v)
		tot += f
		sq += f * f
	}
	if tot == 0 {
		return 0
	}
	return tot - sq/tot
}

// expand handles a bud picked from the FIFO queue.
func (s *search) expand(id int32) {
	x := &s.nodes[id]
	if x.done {
		return // solved with its sibling
	}
	rem := s.o.MaxDepth - int(x.depth)
	if x.best == 0 || rem <= 0 {
		x.done = true
		return
	}
	if !s.o.NoLowerBound {
		if a := s.hopeless(id); a >= 0 {
			s.prune(id, a)
			return
		}
	}
	if rem == 1 {
		s.solveDepth1(id)
		return
	}
	if rem == 2 && !s.o.NoDepth2 && s.depth2Fits(id) {
		s.solveDepth2(id)
		return
	}
	if x.dom == nil {
		s.order(id)
		x = &s.nodes[id]
	}
	if x.next >= s.end(id, x) {
		x.done = true
		return
	}
	f := x.dom[x.next]
	x.next++
	x.feat = f
	s.seq = append(s.seq, id)
	s.stats.Decisions++
	col, depth := s.d.Cols[f], int(x.depth)+1
	// newNode may grow s.nodes: x is not used after this point.
	lo := s.newNode(id, depth, s.nodes[id].rows, col, false)
	hi := s.newNode(id, depth, s.nodes[id].rows, col, true)
	s.nodes[id].kids = [2]int32{lo, hi}
	s.buds = append(s.buds, lo, hi)
	s.propagate(lo)
}

// order computes x's domain: the candidate features that split its rows,
// sorted by the chosen score (stable: ties keep index order).
func (s *search) order(id int32) {
	x := &s.nodes[id]
	cand := s.candidates(x)
	dom := make([]int32, 0, len(cand))
	scores := s.score[:0]
	for _, f := range cand {
		s.countHigh(x, f, s.hc)
		var nh int64
		for c, v := range s.hc {
			nh += v
			s.lc[c] = x.cls[c] - v
		}
		if !s.o.NoDropUninformative && (nh == 0 || nh == x.total) {
			continue
		}
		var sc float64
		switch s.o.Order {
		case OrderGini:
			sc = gini(s.hc) + gini(s.lc)
		case OrderError:
			eh, _ := errOf(s.hc)
			el, _ := errOf(s.lc)
			sc = float64(eh + el)
		}
		dom = append(dom, f)
		scores = append(scores, sc)
	}
	if s.o.Order != OrderIndex {
		idx := make([]int, len(dom))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case scores[a] < scores[b]:
				return -1
			case scores[a] > scores[b]:
				return 1
			}
			return 0
		})
		sorted := make([]int32, len(dom))
		for i, j := range idx {
			sorted[i] = dom[j]
		}
		dom = sorted
	}
	x.dom = dom
}

// solveDepth1 gives x its best tree of depth at most one: the test of
// least error (the first in index order on ties), or a leaf.
func (s *search) solveDepth1(id int32) {
	x := &s.nodes[id]
	s.stats.Depth1++
	best, bf := x.leafErr, int32(-1)
	var bl, bh int
	for _, f := range s.candidates(x) {
		s.countHigh(x, f, s.hc)
		for c, v := range s.hc {
			s.lc[c] = x.cls[c] - v
		}
		eh, ch := errOf(s.hc)
		el, cl := errOf(s.lc)
		if eh+el < best {
			best, bf, bl, bh = eh+el, f, cl, ch
		}
	}
	x.done = true
	if bf >= 0 {
		x.best = best
		x.tree = &Tree{Feature: int(bf), Low: s.leaves[bl], High: s.leaves[bh]}
		s.propagate(id)
	}
}

// propagate pushes an improvement of x's best up the current tree.
func (s *search) propagate(id int32) {
	for {
		p := s.nodes[id].parent
		if p < 0 {
			break
		}
		P := &s.nodes[p]
		L, H := &s.nodes[P.kids[0]], &s.nodes[P.kids[1]]
		cur := L.best + H.best
		if cur >= P.best {
			return
		}
		P.best = cur
		P.tree = &Tree{Feature: int(P.feat), Low: L.tree, High: H.tree}
		id = p
	}
	s.stats.Incumbents++
	if s.report != nil {
		r := &s.nodes[id]
		s.report(r.best, r.tree)
	}
}

// hopeless returns the closest ancestor a of id whose best cannot be
// improved while the current tests between a and id stand: the optimal
// errors of the siblings along the way already reach best[a]. It returns
// -1 when there is none.
func (s *search) hopeless(id int32) int32 {
	var sum int64
	x := id
	for p := s.nodes[x].parent; p >= 0; x, p = p, s.nodes[p].parent {
		P := &s.nodes[p]
		sib := P.kids[0]
		if sib == x {
			sib = P.kids[1]
		}
		if S := &s.nodes[sib]; S.done && !S.tainted {
			sum += S.best
		}
		lim := P.best
		if P.parent < 0 && s.o.Allowance != nil {
			lim = s.gapLimit(P.best)
		}
		if sum >= lim {
			if sum < P.best {
				s.gapCut = true
				if s.sh != nil {
					s.sh.gapCut.Store(true)
				}
			}
			return p
		}
	}
	return -1
}

// gapLimit is the least sum of solved branches under a test of the root
// that lets the test be given up when the incumbent has error inc: a
// tree under it would err at least that much, which is within the
// allowance of inc.
func (s *search) gapLimit(inc int64) int64 {
	return min(inc, int64(math.Ceil(float64(inc)-s.o.Allowance(inc))))
}

// gapBound is the bound of a search that ended with error inc after
// giving up tests of the root within the allowance. Each was given up
// with sums of at least gapLimit of the incumbent then, which was at
// least inc; gapLimit does not fall as inc rises.
func (s *search) gapBound(inc int64) int64 {
	return max(0, s.gapLimit(inc))
}

// prune gives up branch id because of ancestor a: id and the branches
// between them may now hold a best that is not their optimum.
func (s *search) prune(id, a int32) {
	s.stats.Pruned++
	s.nodes[id].done = true
	for x := id; x != a; x = s.nodes[x].parent {
		s.nodes[x].tainted = true
	}
}

// backtrack undoes decisions once the current tree is complete, until a
// branch with untried features is found and put back among the buds.
func (s *search) backtrack() {
	if s.stats.FirstComplete < 0 {
		s.stats.FirstComplete = s.nodes[0].best
		if s.sh != nil {
			s.sh.first.CompareAndSwap(-1, s.sh.inc.Load().err)
		}
	}
	for len(s.seq) > 0 {
		id := s.seq[len(s.seq)-1]
		s.seq = s.seq[:len(s.seq)-1]
		x := &s.nodes[id]
		s.release(x.kids[0])
		s.release(x.kids[1])
		x.kids, x.feat = [2]int32{-1, -1}, -1
		if x.best > 0 && x.next < s.end(id, x) {
			a := int32(-1)
			if !s.o.NoLowerBound {
				a = s.hopeless(id)
			}
			if a < 0 {
				s.buds = append(s.buds, id)
				return
			}
			s.prune(id, a)
			continue
		}
		x.done = true
	}
}
