package blossom

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
)

// The parallel search (Options.Workers > 1): its design is in the
// package doc.

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

	// bounds holds, per worker, a lower bound on the best tree under the
	// root test it searches (math.MaxInt64 when it searches none), and
	// onBound (nil: no bound is followed) receives the rises of the
	// root's bound, the least of these and the incumbent's error once
	// every test was handed out (see reportBound); lastBound, guarded by
	// mu, is the highest reported.
	bounds    []atomic.Int64
	onBound   func(int64)
	lastBound int64
	// gapCut is set once a worker gave up a test of the root within the
	// gap (Options.Allowance): a test searched to its end is then bounded
	// only by gapBound of the incumbent's error, and gapBound computes it.
	gapCut   atomic.Bool
	gapBound func(int64) int64
}

// reportBound reports the root's bound when it rose. A test searched to
// its end has no tree better than the incumbent of that moment, no
// better than today's; a test being searched has its worker's bound; so
// once every test was handed out, the least of the workers' bounds and
// of the incumbent's error bounds the optimum.
func (sh *shared) reportBound() {
	if sh.onBound == nil || sh.next.Load() < int64(len(sh.dom)) {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	lb := sh.inc.Load().err
	if sh.gapCut.Load() {
		lb = sh.gapBound(lb)
	}
	for i := range sh.bounds {
		lb = min(lb, sh.bounds[i].Load())
	}
	if lb > sh.lastBound {
		sh.lastBound = lb
		sh.onBound(lb)
	}
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
func solveParallel(ctx context.Context, d *Data, o Options, report func(int64, *Tree)) (res *Result) {
	var sh *shared
	if o.OnBound != nil {
		defer func() {
			last := int64(-1)
			if sh != nil {
				last = sh.lastBound // the workers are done
			}
			res.LowerBound = finalBound(o.OnBound, res, last)
		}()
	}
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
	sh = &shared{dom: r.dom, reported: r.best, report: report, onBound: o.OnBound, lastBound: -1, gapBound: s.gapBound}
	sh.inc.Store(&incumbent{err: r.best, pos: -1, tree: r.tree})
	sh.first.Store(-1)
	n := min(o.Workers, len(r.dom))
	sh.bounds = make([]atomic.Int64, n)
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
			w.slot = &sh.bounds[i]
			w.report = func(e int64, t *Tree) { sh.offer(e, w.pos, t) }
			stopped, bound := w.rootTests()
			outs[i] = outcome{w.stats, stopped, bound}
		}()
	}
	wg.Wait()

	in := sh.inc.Load()
	res = &Result{Tree: in.tree, Error: in.err, Optimal: true, LowerBound: in.err, Cause: sh.cause}
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
	if sh.gapCut.Load() {
		res.LowerBound = min(res.LowerBound, s.gapBound(res.Error))
		if res.Optimal {
			res.Optimal, res.Gap = false, true
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
		s.slot.Store(0) // before the test is taken: the bound holds at every moment
		p := int(s.sh.next.Add(1) - 1)
		if p >= len(s.sh.dom) {
			s.slot.Store(math.MaxInt64)
			s.sh.reportBound()
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
