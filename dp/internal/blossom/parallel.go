package blossom

import (
	"context"
	"sync"
	"sync/atomic"
)

// The parallel search (Options.Workers > 1).
//
// Work split. The sequential search tries the tests of the root one
// after the other, in the order of its domain, and searches the two
// subtrees under each test; apart from the root's best tree (the bound
// every branch is checked against through the ancestor lower bound),
// what it does under one test of the root does not depend on what it did
// under another. The parallel search computes the root's domain once and
// hands its positions out in that order from one shared counter; each
// worker searches the subtrees under its test exactly as the sequential
// search does (same code: a root whose only test left is the one at its
// position), with its own branch slots, pair tables and scratch, then
// takes the next position. Load balances itself: a worker that finishes
// early takes more tests.
//
// What is shared: the data (read only), the root's domain (read only),
// the incumbent (the best tree, its error and the position of the root
// test it came from) behind an atomic pointer, written under one mutex,
// the next position, a stop flag, and the memory budget (each worker
// reserves its own branch slots and pair tables in it).
//
// Tie-break and determinism. Among trees of equal error, the one under
// the root test of lowest position wins, as in the sequential search,
// where a later test replaces the root's tree only when strictly better.
// A worker at position p reads the incumbent (e, q) before every step and
// uses e as its root's best when q < p, and e+1 when q > p (so it still
// accepts a tree of error e, which then replaces the incumbent). Its
// ancestor lower bound at the root and its improvements of the root are
// thus exactly the sequential ones for a root best that no later test
// can beat, and no worker's timing decides which test wins: the winner is
// the lowest position whose optimum is the optimum. The tree under the
// winning test is the first tree of that error its worker finds; the
// bound a worker reads only gives up configurations that cannot reach
// the bound, and only changes which branches of such configurations are
// explored, not the order in which the others are. Tests check that the
// tree is the same at 1, 2 and 4 workers.
//
// Anytime. Every improvement of a worker's root is offered to the
// shared incumbent under the mutex; the report is made there, and only
// when the error strictly improves, so reports stay strictly decreasing.
// A tree of equal error from a lower position replaces the incumbent
// silently.
//
// Stop. Each worker looks at the context and at the shared stop flag as
// the sequential search looks at the context; Solve waits for every
// worker before it returns. A refused reservation of a branch slot sets
// the flag (every worker stops) and becomes the result's Cause; a
// refused pair table only makes that branch be searched test by test, as
// in the sequential search. The lower bound of a stopped search is the
// smallest of the incumbent's error, the bound of each test being
// searched when the search stopped (as the sequential bound of a root
// whose current test is its last) and 0 when some test was never handed
// out; a finished test cannot beat the incumbent.
//
// Memory. Each worker holds at most the branches of one current tree
// under one root test, like the sequential search, and its pair tables:
// memory is that of the sequential search times the number of workers.

// incumbent is the best tree found by any worker: its error, and the
// position of the root test it was found under (-1: the root's leaf).
type incumbent struct {
	err  int64
	pos  int
	tree *Tree
}

// shared is the state the workers of a parallel search share.
type shared struct {
	dom   []int32 // the root's domain, read only
	inc   atomic.Pointer[incumbent]
	next  atomic.Int64 // next position of dom to hand out
	stop  atomic.Bool
	first atomic.Int64 // incumbent's error at the first complete tree, -1 before

	mu       sync.Mutex // serialises offer: reported, cause and report
	reported int64      // last error reported
	cause    error      // the first refused reservation
	report   func(int64, *Tree)
}

// offer makes (err, tree) from position pos the incumbent when it beats
// it (smaller error, or equal error from a lower position), and reports
// it when its error is smaller than the last one reported.
func (sh *shared) offer(err int64, pos int, tree *Tree) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	cur := sh.inc.Load()
	if err > cur.err || err == cur.err && pos >= cur.pos {
		return
	}
	sh.inc.Store(&incumbent{err: err, pos: pos, tree: tree})
	if err < sh.reported {
		sh.reported = err
		if sh.report != nil {
			sh.report(err, tree)
		}
	}
}

// fail stops every worker because of a refused reservation.
func (sh *shared) fail(err error) {
	sh.mu.Lock()
	if sh.cause == nil {
		sh.cause = err
	}
	sh.mu.Unlock()
	sh.stop.Store(true)
}

// sync lowers the worker's root best to what the incumbent leaves it to
// beat: its error, or one more when it came from a later position (an
// equal tree from this position would replace it).
func (s *search) sync() {
	in := s.sh.inc.Load()
	t := in.err
	if in.pos > s.pos {
		t++
	}
	if r := &s.nodes[0]; t < r.best {
		r.best = t
	}
}

// solveParallel is Solve with o.Workers goroutines, for a root that is
// searched test by test (o.MaxDepth >= 3, or 2 without the two-level
// rule).
func solveParallel(ctx context.Context, d *Data, o Options, report func(int64, *Tree)) *Result {
	s := newSearch(ctx, d, o, nil)
	defer func() { s.budget.Release(s.held) }()
	root := s.newNode(-1, 0, d.All, nil, false)
	r := &s.nodes[root]
	if err := s.reserve(d.Bytes(), "blossom data"); err != nil {
		return &Result{Tree: r.tree, Error: r.best, Stats: s.stats, Cause: err}
	}
	if report != nil {
		report(r.best, r.tree)
	}
	if s.cause != nil || ctx.Err() != nil {
		return &Result{Tree: r.tree, Error: r.best, LowerBound: 0, Stats: s.stats, Cause: s.cause}
	}
	if r.best > 0 {
		s.order(root)
		r = &s.nodes[root]
	}
	if len(r.dom) == 0 {
		// A perfect leaf, or no test splits the rows: the leaf is optimal.
		s.stats.FirstComplete = r.best
		return &Result{Tree: r.tree, Error: r.best, Optimal: true, LowerBound: r.best, Stats: s.stats}
	}
	sh := &shared{dom: r.dom, reported: r.best, report: report}
	sh.inc.Store(&incumbent{err: r.best, pos: -1, tree: r.tree})
	sh.first.Store(-1)
	n := min(o.Workers, len(r.dom))
	type outcome struct {
		stats   Stats
		stopped bool
		bound   int64
	}
	outs := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newSearch(ctx, d, o, nil)
			defer func() { w.budget.Release(w.held) }()
			w.sh = sh
			w.report = func(e int64, t *Tree) { sh.offer(e, w.pos, t) }
			stopped, bound := w.rootTests()
			outs[i] = outcome{w.stats, stopped, bound}
		}()
	}
	wg.Wait()

	in := sh.inc.Load()
	res := &Result{Tree: in.tree, Error: in.err, Optimal: true, LowerBound: in.err, Cause: sh.cause}
	st := &res.Stats
	st.Depth1, st.Depth2 = s.stats.Depth1, s.stats.Depth2
	for _, w := range outs {
		st.Iterations += w.stats.Iterations
		st.Decisions += w.stats.Decisions
		st.Depth1 += w.stats.Depth1
		st.Depth2 += w.stats.Depth2
		st.ParentCounts += w.stats.ParentCounts
		st.Pruned += w.stats.Pruned
		st.Incumbents += w.stats.Incumbents
		st.PeakBranches += w.stats.PeakBranches
		st.Depth2Skipped += w.stats.Depth2Skipped
		st.RootTests += w.stats.RootTests
		if w.stopped {
			res.Optimal = false
			res.LowerBound = min(res.LowerBound, w.bound)
		}
	}
	st.PeakBranches++ // the coordinator's root
	if !res.Optimal && sh.next.Load() < int64(len(sh.dom)) {
		res.LowerBound = 0 // a test of the root was never searched
	}
	st.FirstComplete = sh.first.Load()
	if st.FirstComplete < 0 && res.Optimal {
		st.FirstComplete = res.Error
	}
	return res
}

// rootTests is a worker's loop: it takes the next position of the root's
// domain and searches the subtrees under that test, until none is left
// or the search is stopped. It returns whether it was stopped and then a
// lower bound on the best tree under the test it was searching.
func (s *search) rootTests() (stopped bool, bound int64) {
	root := s.newNode(-1, 0, s.d.All, nil, false)
	s.nodes[root].dom = s.sh.dom
	for {
		if s.halt || s.looked() {
			return true, 0
		}
		p := int(s.sh.next.Add(1) - 1)
		if p >= len(s.sh.dom) {
			return false, 0
		}
		s.stats.RootTests++
		// Every slot but the root's is free again.
		s.free = s.free[:0]
		for id := int32(len(s.nodes)) - 1; id > root; id-- {
			s.free = append(s.free, id)
		}
		s.inUse = 1
		s.buds, s.head, s.seq = append(s.buds[:0], root), 0, s.seq[:0]
		s.pos, s.rootEnd = p, p+1
		x := &s.nodes[root]
		x.next, x.feat, x.kids = p, -1, [2]int32{-1, -1}
		x.done, x.tainted, x.best = false, false, x.leafErr
		s.sync()
		if s.run(root) {
			return true, s.bound(root)
		}
	}
}
