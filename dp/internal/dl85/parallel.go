package dl85

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/odtkit/odtkit/backend"
)

// nShards is the number of independently locked parts of the shared
// cache.
const nShards = 64

// shared is what the workers of a parallel search share: the cache of
// solved branches (sharded, a lock per shard), its memory accounting,
// and the stop flag with its cause.
type shared[T comparable] struct {
	shards   [nShards]shard[T]
	capShard int64 // bytes a shard may hold before it evicts (0: no cap)

	stop  atomic.Bool
	mu    sync.Mutex // guards cause and the Budget reservation
	cause error
	res   int64 // bytes reserved in the Budget for the cache

	bytes   atomic.Int64
	peak    atomic.Int64
	evicted atomic.Int64
}

type shard[T comparable] struct {
	mu      sync.Mutex
	m       map[string]entry[T]
	lvBytes []int64
	bytes   int64
	_       [64]byte // keeps shards' locks off one cache line
}

func newShared[T comparable](capBytes int64, levels int) *shared[T] {
	sh := &shared[T]{}
	if capBytes > 0 {
		sh.capShard = max(capBytes/nShards, 1)
	}
	for i := range sh.shards {
		sh.shards[i].m = map[string]entry[T]{}
		sh.shards[i].lvBytes = make([]int64, levels)
	}
	return sh
}

// shardOf hashes a key (FNV-1a) to its shard.
func (sh *shared[T]) shardOf(key []byte) *shard[T] {
	h := uint32(2166136261)
	for _, b := range key {
		h ^= uint32(b)
		h *= 16777619
	}
	return &sh.shards[h%nShards]
}

func (sh *shared[T]) get(key []byte) (entry[T], bool) {
	p := sh.shardOf(key)
	p.mu.Lock()
	e, ok := p.m[string(key)]
	p.mu.Unlock()
	return e, ok
}

// store merges an entry into the shared cache, with the same rules as
// the sequential cache; a full shard evicts its deepest levels, and the
// cache's growth is reserved in the Budget (on refusal the shard evicts,
// and every worker stops when that is not enough).
func (sh *shared[T]) store(s *search[T], key []byte, n entry[T]) {
	p := sh.shardOf(key)
	p.mu.Lock()
	old, ok := p.m[string(key)]
	p.m[string(key)] = merge(old, ok, n)
	if ok {
		p.mu.Unlock()
		return
	}
	b := int64(len(key)) + entryOverhead
	p.bytes += b
	p.lvBytes[len(key)/4] += b
	total := sh.bytes.Add(b)
	if sh.capShard > 0 && p.bytes > sh.capShard {
		total = sh.evict(p, sh.capShard/2)
	}
	p.mu.Unlock()
	for {
		peak := sh.peak.Load()
		if total <= peak || sh.peak.CompareAndSwap(peak, total) {
			break
		}
	}
	bud := s.cfg.Budget
	if bud == nil {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if total <= sh.res {
		return
	}
	step := total - sh.res + cacheStep(bud)
	if err := bud.Reserve(step, "dl85 cache"); err != nil {
		// As the sequential cache: evict to half the cap, and stop
		// when that does not bring the cache within its reservation.
		p.mu.Lock()
		total = sh.evict(p, sh.capShard/2)
		p.mu.Unlock()
		if total > sh.res {
			sh.stopFor(err)
		}
		return
	}
	sh.res += step
}

// evict drops a shard's deepest levels down to target bytes (0: half)
// and returns the cache's new total. The shard is locked by the caller.
func (sh *shared[T]) evict(p *shard[T], target int64) int64 {
	before := p.bytes
	p.m, p.bytes = evictLevels(p.m, p.lvBytes, p.bytes, target)
	sh.evicted.Add(1)
	return sh.bytes.Add(p.bytes - before)
}

// memoryStop stops every worker for lack of memory.
func (sh *shared[T]) memoryStop(err error) {
	sh.mu.Lock()
	sh.stopFor(err)
	sh.mu.Unlock()
}

// stopFor records the first cause and stops the workers (sh.mu held).
func (sh *shared[T]) stopFor(err error) {
	if sh.cause == nil {
		sh.cause = err
	}
	sh.stop.Store(true)
}

// release returns the cache's reservation to the Budget.
func (sh *shared[T]) release(b *backend.Budget) {
	b.Release(sh.res)
	sh.res = 0
}

// stats adds the shared cache's counters and the stop cause to res.
func (sh *shared[T]) stats(res *Result) {
	n := 0
	for i := range sh.shards {
		n += len(sh.shards[i].m)
	}
	res.CacheEntries = n
	res.PeakCacheBytes = sh.peak.Load()
	res.Evictions = int(sh.evicted.Load())
	if res.Cause == nil {
		res.Cause = sh.cause
	}
}

// workerBytes is the scratch of one more worker: its per-level row sets,
// its irreducible-error tables and its test positions.
func (s *search[T]) workerBytes() int64 {
	d := s.d
	return int64(s.cfg.MaxDepth+2)*int64(d.words)*8 + int64(d.nGroups)*int64(8*d.NC+4) + int64(d.M)*8
}

// ensureWorkers makes the other workers (once per Solve), as many of
// cfg.Workers-1 as the Budget has room for.
func (s *search[T]) ensureWorkers() {
	if s.workers != nil {
		return
	}
	s.workers = []*search[T]{}
	for range s.cfg.Workers - 1 {
		w := &search[T]{d: s.d, cfg: s.cfg, rule: s.rule, ctx: s.ctx, minsup: s.minsup, sh: s.sh,
			leaves: s.leaves, all: s.all}
		if err := w.reserve(s.workerBytes(), "dl85 worker"); err != nil {
			break // fewer workers
		}
		w.alloc()
		s.workers = append(s.workers, w)
	}
}

// releaseWorkers returns the workers' reservations to the Budget.
func (s *search[T]) releaseWorkers() {
	for _, w := range s.workers {
		s.cfg.Budget.Release(w.reserved)
		w.reserved = 0
	}
}

// incumbent is the root's best tree during a parallel search, with the
// position (in the root's order) of its test: -1 for the leaf or for
// the bound the root was searched under.
type incumbent struct {
	gen    atomic.Uint64 // counts the changes
	mu     sync.Mutex
	err    float64
	pos    int
	tree   *Tree
	report func(*Tree, float64)
}

// bound is the error a tree of position i must stay under: the
// incumbent's, or just above it for a position before the incumbent's
// (which wins a tie).
func (in *incumbent) bound(i int) float64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if i < in.pos {
		return math.Nextafter(in.err, math.Inf(1))
	}
	return in.err
}

// offer makes t (error e, position i) the incumbent if it is better, or
// as good and earlier; only a strictly better tree is reported.
func (in *incumbent) offer(t *Tree, e float64, i int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if e < in.err || (e == in.err && i < in.pos) {
		if e < in.err {
			in.report(t, e)
		}
		in.err, in.pos, in.tree = e, i, t
		in.gen.Add(1)
	}
}

// tightener tells a worker's nodes how far the bound of its root test
// (position pos, searched from bound ub0) dropped since the test began:
// a bound below the root made from the root's (not from a tree found on
// the way) may drop as much. A node applies what was not yet applied to
// its own bound (search.d0 holds, per level, what its parent had
// applied, or -1 for a bound made from a tree).
type tightener struct {
	in  *incumbent
	pos int
	ub0 float64
	gen uint64
	d   float64
}

func (t *tightener) delta() float64 {
	if g := t.in.gen.Load(); g != t.gen {
		t.gen = g
		t.d = t.ub0 - t.in.bound(t.pos)
	}
	return t.d
}

// rootTally is what one worker learned about the root's tests.
type rootTally struct {
	lbMin    float64
	complete bool
}

// parallelRoot tries the root's tests (nd, in order ord) with all the
// workers: positions are handed out in order from a shared counter; each
// worker searches both children of its test with its own scratch, the
// cache shared. ub and lb0 are as in node; r1 is the best single split.
// Unlike the sequential search, every worker starts from the better of
// the leaf and r1 (the sequential search finds a good bound on its first
// test before it tries the others; a worker starting on the second test
// has only this one): a test whose best tree only ties r1 is then not
// kept, which changes the final tree of a proof not at all (it is rebuilt
// by canonicalRoot), and that of a stopped search only among equals.
func (s *search[T]) parallelRoot(nd *level[T], ord []int32, ub, lb0 float64, r1 result, report func(*Tree, float64)) result {
	s.ensureWorkers()
	leafErr, leafCls := leafOf(nd.cnt)
	in := &incumbent{err: ub, pos: -1, report: report}
	if leafErr < ub {
		in.err, in.tree = leafErr, s.leaves[leafCls]
		report(in.tree, leafErr)
	}
	if r1.tree != nil && r1.err < in.err {
		in.err, in.tree = r1.err, r1.tree
	}
	var next atomic.Int64
	var done atomic.Bool // a tree met lb0: no later position can win
	all := append([]*search[T]{s}, s.workers...)
	tallies := make([]rootTally, len(all))
	var wg sync.WaitGroup
	for wi, w := range all[1:] {
		w.iter = s.iter
		wg.Go(func() { tallies[wi+1] = w.rootWorker(nd, ord, in, &next, &done, lb0, leafErr) })
	}
	tallies[0] = s.rootWorker(nd, ord, in, &next, &done, lb0, leafErr)
	wg.Wait()
	lbMin, complete := leafErr, true
	for _, t := range tallies {
		lbMin = min(lbMin, t.lbMin)
		complete = complete && t.complete
	}
	bestErr := math.Inf(1)
	if in.tree != nil {
		bestErr = in.err
	}
	if done.Load() {
		lbMin, complete = bestErr, true
	}
	return s.settle(nd, ub, lb0, lbMin, complete, in.tree, bestErr)
}

// rootWorker takes the root's tests one position at a time until none is
// left, and tallies their bounds.
func (s *search[T]) rootWorker(nd *level[T], ord []int32, in *incumbent, next *atomic.Int64, done *atomic.Bool, lb0, leafErr float64) rootTally {
	t := rootTally{lbMin: leafErr, complete: true}
	tg := &tightener{in: in}
	defer func() { s.tg = nil }()
	for !done.Load() {
		i := int(next.Add(1) - 1)
		if i >= len(ord) {
			break
		}
		k := ord[i]
		f := nd.act[k]
		s.keyLo[0] = childKey(s.keyLo[0], nd.key, uint32(2*f))
		s.keyHi[0] = childKey(s.keyHi[0], nd.key, uint32(2*f+1))
		lbLo, lbHi := s.cachedLB(s.keyLo[0]), s.cachedLB(s.keyHi[0])
		if s.stopped() {
			t.complete = false
			t.lbMin = min(t.lbMin, lbLo+lbHi)
			continue
		}
		ub := in.bound(i)
		if lbLo+lbHi >= ub {
			t.lbMin = min(t.lbMin, lbLo+lbHi)
			continue
		}
		*tg = tightener{in: in, pos: i, ub0: ub, gen: in.gen.Load()}
		s.tg, s.d0[1] = tg, 0
		l, r := s.split(nd, i, k, lbHi, ub)
		s.tg = nil
		if !l.complete {
			t.complete = false
		}
		if l.tree == nil {
			t.lbMin = min(t.lbMin, l.lb+lbHi)
			continue
		}
		if !r.complete {
			t.complete = false
		}
		t.lbMin = min(t.lbMin, l.lb+max(r.lb, lbHi))
		if r.tree == nil {
			continue
		}
		e := l.err + r.err
		in.offer(&Tree{Test: int(f), Lo: l.tree, Hi: r.tree}, e, i)
		if e <= lb0 {
			done.Store(true)
		}
	}
	return t
}

// canonicalRoot rebuilds, after a parallel search proved opt optimal,
// the tree the sequential DL8.5 search returns (see canonical), or nil
// when it cannot (stopped). At the root the sequential search reports
// the leaf, then the best single split, before any deeper tree: the
// first of them that is optimal wins.
func (s *search[T]) canonicalRoot(cnt []float64, opt float64) *Tree {
	if s.stopped() {
		return nil
	}
	s.iter++ // no entry of a pruned restart is reused as is
	s.noPrune = true
	defer func() { s.noPrune = false }()
	return s.canonical(0, cnt, s.d.N, nil, opt, s.all)
}

// canonical returns the first optimal tree (error opt) of the branch at
// level lv (rows s.sets[lv], class weights cnt, n rows, key key) in the
// sequential search's order: the leaf; at depth 1 (and as the root's
// first incumbent) the best single split; at depth 2 the depth-2 step's
// tree; else the first test, in the node's order, whose children's
// optima add up to opt, with the canonical trees of its children. The
// children's optima come from the cache or a search that prunes
// nothing; nil when the search stopped.
func (s *search[T]) canonical(lv int, cnt []float64, n int, key []byte, opt float64, parentAct []int32) *Tree {
	leafErr, leafCls := leafOf(cnt)
	rd := s.cfg.MaxDepth - lv
	if leafErr <= opt || rd == 0 || n < 2*s.minsup {
		return s.leaves[leafCls]
	}
	rows := s.sets[lv]
	act, fn, fc := s.actives(lv, rows, n, parentAct)
	if len(act) == 0 {
		return s.leaves[leafCls]
	}
	if rd == 1 || lv == 0 {
		r1 := s.depth1(cnt, n, act, fn, fc, math.Inf(1))
		if rd == 1 || r1.err <= opt {
			return r1.tree
		}
	}
	if rd == 2 && s.cfg.Depth2 && s.depth2Fits(len(act), n) {
		t, _, ok := s.depth2(lv, cnt, n, act, fn, fc)
		if !ok {
			return nil
		}
		return t
	}
	var st T
	nd := level[T]{lv: lv, cnt: cnt, n: n, rows: rows, key: key, st: st, act: act, fn: fn, fc: fc, childAct: act}
	if s.cfg.NoInheritTests {
		nd.childAct = s.all
	}
	ord := s.orderTests(&nd)
	up := math.Nextafter(opt, math.Inf(1))
	for i, k := range ord {
		f := act[k]
		s.keyLo[lv] = childKey(s.keyLo[lv], key, uint32(2*f))
		s.keyHi[lv] = childKey(s.keyHi[lv], key, uint32(2*f+1))
		lbLo, lbHi := s.cachedLB(s.keyLo[lv]), s.cachedLB(s.keyHi[lv])
		if lbLo+lbHi > opt {
			continue
		}
		l, r := s.split(&nd, i, k, lbHi, up)
		if s.stop {
			return nil
		}
		if l.tree == nil || r.tree == nil || l.err+r.err > opt {
			continue
		}
		// s.sets[lv+1] holds the true side's rows: rebuild it first.
		cLo := append([]float64(nil), s.cntLo[lv]...)
		cHi := append([]float64(nil), s.cntHi[lv]...)
		klo := append([]byte(nil), s.keyLo[lv]...)
		khi := append([]byte(nil), s.keyHi[lv]...)
		hiT := s.canonical(lv+1, cHi, fn[k], khi, r.err, nd.childAct)
		next := s.sets[lv+1]
		for wi, x := range rows {
			next[wi] = x &^ s.d.cols[f][wi]
		}
		loT := s.canonical(lv+1, cLo, n-fn[k], klo, l.err, nd.childAct)
		if hiT == nil || loT == nil {
			return nil
		}
		return &Tree{Test: int(f), Lo: loT, Hi: hiT}
	}
	return nil
}
