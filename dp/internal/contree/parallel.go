package contree

import (
	"sync"
	"sync/atomic"

	"github.com/odtkit/odtkit/dp/internal/cacheline"
)

// The parallel root search: see "Parallel search" in the package doc.

// incumbent is the best tree of a parallel root search so far.
type incumbent struct {
	errors int
	key    uint64
	tree   *Node
}

// key orders the root candidates of the search proper: feature position
// q in the search order, then threshold index w. Key 0 is the leaf or
// seed tree; the probe's candidates (probeKey) come between.
func key(q int, w int32) uint64 { return 1<<63 | probeKey(q, w) }

// probeKey is the key of a probe candidate: below every candidate of
// the search proper, so that, as in the sequential search, the probe's
// best tree is kept against later ties and bounds every feature's
// search without the tie-break's one extra error.
func probeKey(q int, w int32) uint64 { return uint64(q+1)<<32 | uint64(uint32(w)) }

// shared is the state the workers of a parallel root search share.
type shared struct {
	inc    atomic.Pointer[incumbent]
	halted atomic.Bool // a worker stopped: every worker stops
	// hungry is true when a worker waits for work and none is queued:
	// the workers then give away half of their pending intervals.
	hungry atomic.Bool
	mu     sync.Mutex // serialises offer and the report of improvements
	onImpr func(*Node)
	cause  error        // guarded by mu: the first budget refusal
	cache  *sharedCache // nil with Config.NoCache

	qmu     sync.Mutex // guards the fields below
	wake    *sync.Cond // on qmu: work queued, or the search is over
	queue   []task
	idle    int // workers waiting in take
	workers int
	over    bool
}

// task is a worker's unit of work: all thresholds of the feature at
// position q of the search order (ivs nil), or the intervals ivs given
// away by another worker, with the computed thresholds (comp) their
// neighbour indices refer to and the upper end mr of the feature's
// remaining thresholds.
type task struct {
	q, f  int
	first int // the feature's best depth-one cut, searched first (0: none)
	ivs   []interval
	comp  []computed
	mr    int32
	probe bool // only the probe of the feature's first cut (see probeTask)
}

// take returns the next task, waiting for one while other workers are
// busy; false when the search is over or halted.
func (p *shared) take() (task, bool) {
	p.qmu.Lock()
	defer p.qmu.Unlock()
	for {
		if p.over || p.halted.Load() {
			return task{}, false
		}
		if len(p.queue) > 0 {
			t := p.queue[0]
			p.queue = p.queue[1:]
			p.hungry.Store(p.idle > 0 && len(p.queue) == 0)
			return t, true
		}
		if p.idle == p.workers-1 { // every other worker waits: nothing is left
			p.over = true
			p.wake.Broadcast()
			return task{}, false
		}
		p.idle++
		p.hungry.Store(true)
		p.wake.Wait()
		p.idle--
		p.hungry.Store(p.idle > 0 && len(p.queue) == 0)
	}
}

// donate gives away the newer half of the intervals pending in ls (from
// qh on) as a task for a waiting worker.
func (p *shared) donate(q, f int, ls *levelScratch, qh int, mr int32) {
	n := len(ls.stack) - qh
	give := ls.stack[len(ls.stack)-n/2:]
	t := task{q: q, f: f, mr: mr, ivs: make([]interval, len(give))}
	idx := map[int32]int32{-1: -1}
	for k, iv := range give {
		for _, c := range []*int32{&iv.u, &iv.v} {
			if j, ok := idx[*c]; ok {
				*c = j
				continue
			}
			idx[*c] = int32(len(t.comp))
			t.comp = append(t.comp, ls.comp[*c])
			*c = idx[*c]
		}
		t.ivs[k] = iv
	}
	ls.stack = ls.stack[:len(ls.stack)-n/2]
	p.qmu.Lock()
	p.queue = append([]task{t}, p.queue...)
	p.hungry.Store(false)
	p.wake.Signal()
	p.qmu.Unlock()
}

// bound is the exclusive bound for candidates of key k or larger: a
// candidate must have fewer errors than the incumbent, or as many when
// its key is below the incumbent's.
func (p *shared) bound(k uint64) int {
	inc := p.inc.Load()
	if k < inc.key {
		return inc.errors + 1
	}
	return inc.errors
}

// offer makes the tree built by mk the incumbent when it has fewer
// errors than the incumbent, or as many and a smaller key. Improvements
// in errors are reported.
func (p *shared) offer(errors int, k uint64, mk func() *Node) {
	if inc := p.inc.Load(); errors > inc.errors || (errors == inc.errors && k >= inc.key) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	inc := p.inc.Load()
	if errors > inc.errors || (errors == inc.errors && k >= inc.key) {
		return
	}
	t := mk()
	p.inc.Store(&incumbent{errors: errors, key: k, tree: t})
	if errors < inc.errors && p.onImpr != nil {
		p.onImpr(t)
	}
}

// halt stops every worker (at its next look at the context), keeping
// the first non-nil cause.
func (p *shared) halt(cause error) {
	p.mu.Lock()
	if p.cause == nil {
		p.cause = cause
	}
	p.mu.Unlock()
	p.halted.Store(true)
	p.qmu.Lock()
	p.wake.Broadcast()
	p.qmu.Unlock()
}

// worker returns a solver for one worker of a parallel search: s's
// read-only data, its own scratch, the shared cache.
func (s *solver) worker(p *shared) *solver {
	w := &solver{ctx: s.ctx, cfg: s.cfg, p: s.p, k: s.k, n: s.n, vals: s.vals, rowH1: s.rowH1, rowH2: s.rowH2, gdist: s.gdist, par: p}
	w.side = make([]uint8, s.n)
	w.nestRun = s.nestRun
	w.shc = p.cache
	w.cl = cacheline.Slice[int](s.k)
	w.cr = cacheline.Slice[int](s.k)
	w.fql = cacheline.Slice[int](s.k)
	w.fqr = cacheline.Slice[int](s.k)
	return w
}

// rootTasks returns one task per feature of the root, in the
// sequential search order.
func (s *solver) rootTasks(root *view) []task {
	ls := s.level(0)
	s.featureOrder(root, ls, s.natural(true))
	var tasks []task
	if s.probing() {
		for q, f := range ls.order {
			if ls.first[f] > 0 {
				tasks = append(tasks, task{q: q, f: f, first: ls.first[f], probe: true})
			}
		}
	}
	for q, f := range ls.order {
		tasks = append(tasks, task{q: q, f: f, first: ls.first[f]})
	}
	return tasks
}

// probeTask offers the root split of tk's feature at its best depth-one
// cut with optimal subtrees: the sequential search's probe (see probe),
// one feature per task, each candidate with its own key.
func (s *solver) probeTask(root *view, d int, tk task) {
	w := root.cols[tk.f][tk.first-1].rank // the cut's threshold index (root ranks are dense)
	k := probeKey(tk.q, w)
	lo, hi := s.probeCut(root, d, tk.f, tk.first, s.par.bound(k))
	if lo != nil {
		s.par.offer(lo.Errors+hi.Errors, k, func() *Node {
			return s.splitNode(root.cols[tk.f], tk.f, tk.first, lo, hi)
		})
	}
}

// parallel runs the root search with cfg.Workers workers (see the
// comment at the top of this file) and returns Solve's result.
func (s *solver) parallel(in Input, root *view, leaf *Node) Result {
	workers := s.cfg.Workers
	d := s.cfg.MaxDepth
	p := &shared{onImpr: s.onImpr, queue: s.rootTasks(root), workers: workers}
	if s.cache != nil {
		p.cache = newSharedCache(s.cache)
	}
	p.wake = sync.NewCond(&p.qmu)
	start := s.best // the leaf or the starting tree (greedy)
	p.inc.Store(&incumbent{errors: start.Errors, key: 0, tree: start})
	ws := make([]*solver, workers)
	var wg sync.WaitGroup
	for i := range ws {
		w := s.worker(p)
		ws[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { s.cfg.Budget.Release(w.held); w.held = 0 }()
			for !w.stop {
				tk, ok := p.take()
				if !ok {
					break
				}
				if tk.probe {
					w.probeTask(root, d, tk)
					continue
				}
				st := &branchState{ub: leaf.Errors + 1, best: leaf, par: p, q: tk.q, isRoot: true} // MaxGap is 0
				w.branch(root, d, tk.f, tk.first, st, &tk)
			}
			if w.stop {
				p.halt(w.cause)
			}
		}()
	}
	wg.Wait()
	stopped := false
	for _, w := range ws {
		s.stats.add(w.stats)
		stopped = stopped || w.stop
	}
	return s.rootResult(ws, p, root, d, stopped, s.irreducible(in, root))
}

// rootResult is a parallel root search's result once its workers ws are
// done: when stopped, the incumbent with lower (at most its errors) as
// its bound; else the incumbent, made canonical when workers may have
// found it in different orders (see canonical), proven optimal.
func (s *solver) rootResult(ws []*solver, p *shared, root *view, d int, stopped bool, lower int) Result {
	inc := p.inc.Load()
	res := Result{Stats: s.stats}
	if stopped {
		res.Tree, res.Errors = inc.tree, inc.errors
		res.Stopped = true
		res.LowerBound = min(lower, inc.errors)
		res.Cause = p.cause
		return res
	}
	t := inc.tree
	if inc.key != 0 {
		t = canonical(ws, root, d, t)
		for _, w := range ws[:2] {
			s.cfg.Budget.Release(w.held)
			res.Stats.add(w.stats) // the canonical re-solves
		}
	}
	res.Tree, res.Errors = t, t.Errors
	res.LowerBound, res.Optimal = t.Errors, true
	return res
}

// canonical solves the two subtrees of t, a root split of the optimal
// tree, again, each with a fresh cache and the bound one above its
// errors, so that they depend on their row sets only: the low side by
// ws[0], the high side by ws[1] at the same time. It returns t when
// stopped.
func canonical(ws []*solver, root *view, d int, t *Node) *Node {
	a, b := ws[0], ws[1]
	a.stats, b.stats = Stats{}, Stats{}
	cut := 0
	vals := a.vals[t.Feature]
	for _, e := range root.cols[t.Feature] {
		if vals[e.row()] <= t.Threshold {
			cut++
		}
	}
	// The views live in a's root-level scratch, which the solves below
	// (from level 1 on) do not touch: b only reads its side.
	left, right := a.splitView(root, t.Feature, cut, 0)
	if left == nil {
		return t
	}
	var hi *Node
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		hi = b.resolve(right, d-1, t.High)
	}()
	lo := a.resolve(left, d-1, t.Low)
	wg.Wait()
	if lo == nil || hi == nil {
		return t
	}
	return &Node{Feature: t.Feature, Threshold: t.Threshold, Low: lo, High: hi, Errors: lo.Errors + hi.Errors}
}

// resolve solves v at depth d with a fresh cache of s's own and the
// bound one above want's errors; nil when stopped or when the tree found
// does not have want's errors.
func (s *solver) resolve(v *view, d int, want *Node) *Node {
	if s.cacheOn() {
		s.shc, s.cache = nil, map[cacheKey]*cacheVal{}
	}
	_, c := s.solve(v, d, want.Errors+1, 0, 0, 1, false)
	if s.stop || c == nil || c.Errors != want.Errors {
		return nil
	}
	return c
}

func (a *Stats) add(b Stats) {
	a.Nodes += b.Nodes
	a.D2Calls += b.D2Calls
	a.CacheHits += b.CacheHits
	a.CacheStored += b.CacheStored
	a.SplitsTried += b.SplitsTried
	a.Tables += b.Tables
	a.D2ByTable += b.D2ByTable
	a.D2ByBits += b.D2ByBits
	a.BoundProbes += b.BoundProbes
	a.BoundCut += b.BoundCut
	a.AtFloor += b.AtFloor
	a.NestCut += b.NestCut
}
