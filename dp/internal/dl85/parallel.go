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
	serial  atomic.Int64 // names depth-3 branches (see nextSerial)
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

// workerBytes is the scratch of one more worker: its per-level row sets
// and the linked depth-2 step's sibling rows, its irreducible-error
// tables and its test positions.
func (s *search[T]) workerBytes() int64 {
	d := s.d
	return int64(s.cfg.MaxDepth+3)*int64(d.words)*8 + int64(d.nGroups)*int64(8*d.NC+4) + int64(d.M)*8
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
			leaves: s.leaves, all: s.all, relax: s.relax}
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
	// allowance, set in a gapped search, is how far above the root's
	// bound a tree of a given error may stay (see search.allowance).
	allowance func(float64) float64
}

// bound is the error a tree of position i must stay under: the
// incumbent's, or just above it for a position before the incumbent's
// (which wins a tie). In a gapped search it is the incumbent's error less
// the gap, whatever the position: it never rises as the incumbent
// drops, so the tightener's drops stay drops.
func (in *incumbent) bound(i int) float64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.allowance != nil {
		if math.IsInf(in.err, 1) {
			return in.err
		}
		return in.err - in.allowance(in.err)
	}
	if i < in.pos {
		return math.Nextafter(in.err, math.Inf(1))
	}
	return in.err
}

// best is the incumbent's error (+Inf when there is no tree yet).
func (in *incumbent) best() float64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.tree == nil {
		return math.Inf(1)
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
	if s.gapped() && s.relax == 0 {
		in.allowance = s.allowance
	}
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
	jb := newBoard[T](len(all))
	var pb *parBound
	if s.cfg.OnBound != nil {
		pb = &parBound{rb: s.rootBoundOf(ord, nd.act, nd.key, leafErr, lb0), sb: &s.sb}
	}
	var wg sync.WaitGroup
	for wi, w := range all[1:] {
		w.iter, w.jb = s.iter, jb
		wg.Go(func() {
			tallies[wi+1] = w.rootWorker(nd, ord, in, &next, &done, lb0, leafErr, pb)
			w.help(jb)
		})
	}
	s.jb = jb
	tallies[0] = s.rootWorker(nd, ord, in, &next, &done, lb0, leafErr, pb)
	s.help(jb)
	wg.Wait()
	for _, w := range all {
		w.jb = nil
	}
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
	if s.gapped() && complete && !s.stopped() {
		return s.gapRoot(lbMin, lb0, in.tree, bestErr)
	}
	return s.settle(nd, ub, lb0, lbMin, complete, in.tree, bestErr)
}

// parBound is the root's bound of a parallel search (see rootBound): the
// workers record their tests' bounds in it, under its lock, and report
// its rises.
type parBound struct {
	mu sync.Mutex
	rb *rootBound
	sb *searchBound
}

// set records the bound lb of the test at position i and reports the
// root's bound if it rose.
func (p *parBound) set(i int, lb float64, in *incumbent) {
	if p == nil {
		return
	}
	bestErr := in.best()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rb.set(i, lb)
	p.rb.settle(p.sb, bestErr)
}

// rootWorker takes the root's tests one position at a time until none is
// left, and tallies their bounds (recorded in pb too, when not nil).
func (s *search[T]) rootWorker(nd *level[T], ord []int32, in *incumbent, next *atomic.Int64, done *atomic.Bool, lb0, leafErr float64, pb *parBound) rootTally {
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
		lim := ub
		if s.relax > 0 {
			// Branches stop within the gap: the test is settled within
			// the root's (see target).
			lim = s.target(0, ub)
		}
		if lbLo+lbHi >= lim {
			t.lbMin = min(t.lbMin, lbLo+lbHi)
			pb.set(i, lbLo+lbHi, in)
			continue
		}
		*tg = tightener{in: in, pos: i, ub0: ub, gen: in.gen.Load()}
		s.tg, s.d0[1] = tg, 0
		p := s.split(nd, i, k, lbLo, lbHi, ub, lim)
		s.tg = nil
		if !p.complete {
			t.complete = false
		}
		t.lbMin = min(t.lbMin, p.lb)
		if p.lo != nil {
			e := p.loErr + p.hiErr
			in.offer(&Tree{Test: int(f), Lo: p.lo, Hi: p.hi}, e, i)
			if e <= lb0 {
				done.Store(true)
			}
		}
		if !s.stopped() {
			pb.set(i, p.lb, in)
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
	relax := s.relax
	s.relax = 0 // exact branches only
	defer func() { s.noPrune, s.relax = false, relax }()
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
		p := s.split(&nd, i, k, lbLo, lbHi, up, up)
		if s.stop {
			return nil
		}
		if p.lo == nil || p.loErr+p.hiErr > opt {
			continue
		}
		// s.sets[lv+1] holds the true side's rows: rebuild it first.
		cLo := append([]float64(nil), s.cntLo[lv]...)
		cHi := append([]float64(nil), s.cntHi[lv]...)
		klo := append([]byte(nil), s.keyLo[lv]...)
		khi := append([]byte(nil), s.keyHi[lv]...)
		hiT := s.canonical(lv+1, cHi, fn[k], khi, p.hiErr, nd.childAct)
		next := s.sets[lv+1]
		for wi, x := range rows {
			next[wi] = x &^ s.d.cols[f][wi]
		}
		loT := s.canonical(lv+1, cLo, n-fn[k], klo, p.loErr, nd.childAct)
		if hiT == nil || loT == nil {
			return nil
		}
		return &Tree{Test: int(f), Lo: loT, Hi: hiT}
	}
	return nil
}

// board is where, once the root's tests of a restart have all been handed
// out, the workers still searching one publish the level-1 nodes they enter
// (joints), and the idle workers take tests from them, so that the restart
// does not wait for its slowest root test on one worker.
type board[T comparable] struct {
	mu   sync.Mutex
	cond sync.Cond // signalled when a joint opens or a worker's root tests end
	open []*joint[T]
	busy int          // workers still on the root's tests
	idle atomic.Int32 // workers waiting to help
}

func newBoard[T comparable](workers int) *board[T] {
	b := &board[T]{busy: workers}
	b.cond.L = &b.mu
	return b
}

// joint is a level-1 node whose remaining tests (positions in ord from
// next on) its owner and the helpers take one at a time. Its best tree
// is kept as the root's incumbent is: the lowest position wins a tie, so
// the node's result does not depend on who searched what.
type joint[T comparable] struct {
	nd   level[T] // a copy: its slices are the owner's, unchanged until the owner returns
	ord  []int32
	tg   *tightener // the owner's: helpers copy its root test
	ubP  float64    // the node's bound before the root's tightening (see bound)
	fix  bool       // the node's bound is not made from the root's: ubP is it
	lb0  float64
	next atomic.Int64
	done atomic.Bool // a tree met lb0
	wg   sync.WaitGroup

	mu       sync.Mutex
	best     *Tree
	bestErr  float64
	bestPos  int
	lbMin    float64
	complete bool
}

// shareRest searches the tests of node nd from position i0 on with the
// idle workers' help, and settles the node. The arguments are the state
// of the node's loop before position i0 (ub already tightened by base,
// the root's drop applied so far, -1 when ub is not made from the root's
// bound).
func (s *search[T]) shareRest(nd *level[T], ord []int32, i0 int, ub, base, lb0, lbMin float64, complete bool, best *Tree, bestErr float64) result {
	j := &joint[T]{nd: *nd, ord: ord, tg: s.tg, ubP: ub, fix: base < 0, lb0: lb0,
		best: best, bestErr: bestErr, bestPos: -1, lbMin: lbMin, complete: complete}
	if !j.fix {
		j.ubP = ub + base
	}
	j.next.Store(int64(i0))
	b := s.jb
	b.mu.Lock()
	b.open = append(b.open, j)
	b.cond.Broadcast()
	b.mu.Unlock()
	s.takeTests(j, s.tg)
	b.mu.Lock()
	for k, o := range b.open {
		if o == j {
			b.open = append(b.open[:k], b.open[k+1:]...)
			break
		}
	}
	b.mu.Unlock()
	j.wg.Wait()
	ub, _ = j.ub(s.tg)
	if j.done.Load() {
		j.lbMin, j.complete = j.bestErr, true
	}
	if j.best != nil && j.bestErr >= ub {
		// As in node: the root's incumbent dropped below the best tree.
		j.best, j.bestErr = nil, math.Inf(1)
	}
	return s.settle(nd, ub, lb0, j.lbMin, j.complete, j.best, j.bestErr)
}

// help makes a worker whose root tests ran out take tests from the open
// joints until no worker is left on the root's tests.
func (s *search[T]) help(b *board[T]) {
	b.mu.Lock()
	b.busy--
	b.cond.Broadcast()
	b.idle.Add(1)
	for {
		if j := b.pick(); j != nil {
			j.wg.Add(1) // before the owner can close j (under b.mu)
			b.mu.Unlock()
			tg := &tightener{in: j.tg.in, pos: j.tg.pos, ub0: j.tg.ub0, gen: math.MaxUint64}
			s.tg = tg
			n := s.takeTests(j, tg)
			s.tg = nil
			s.helped += n
			j.wg.Done()
			b.mu.Lock()
			continue
		}
		if b.busy == 0 {
			break
		}
		b.cond.Wait()
	}
	b.idle.Add(-1)
	b.mu.Unlock()
}

// pick returns the open joint with the most tests left, or nil (b.mu
// held).
func (b *board[T]) pick() *joint[T] {
	var best *joint[T]
	left := int64(0)
	for _, j := range b.open {
		if l := int64(len(j.ord)) - j.next.Load(); l > left && !j.done.Load() {
			best, left = j, l
		}
	}
	return best
}

// takeTests searches j's tests one position at a time until none is
// left, with tg the worker's tightener of the root test, and returns
// how many it took.
func (s *search[T]) takeTests(j *joint[T], tg *tightener) int64 {
	n := int64(0)
	for !j.done.Load() {
		i := int(j.next.Add(1) - 1)
		if i >= len(j.ord) {
			break
		}
		s.jointTest(j, i, tg)
		n++
	}
	return n
}

// bound is the bound a test at position i of j is searched under, and
// the root's drop it was made from (-1: made from a tree of the node, or
// not from the root's bound), as in node's loop.
func (j *joint[T]) bound(i int, tg *tightener) (float64, float64) {
	ub, d0 := j.ub(tg)
	j.mu.Lock()
	be := j.bestErr
	if i < j.bestPos {
		be = math.Nextafter(be, math.Inf(1))
	}
	j.mu.Unlock()
	if be < ub {
		return be, -1
	}
	return ub, d0
}

// ub is the node's bound now, and the root's drop it was made from (-1:
// not made from the root's bound).
func (j *joint[T]) ub(tg *tightener) (float64, float64) {
	if j.fix {
		return j.ubP, -1
	}
	d := tg.delta()
	return j.ubP - d, d
}

// jointTest searches both children of the test at position i of j, as
// node's loop does, and merges the outcome into j.
func (s *search[T]) jointTest(j *joint[T], i int, tg *tightener) {
	nd := &j.nd
	lv := nd.lv
	k := j.ord[i]
	f := nd.act[k]
	s.keyLo[lv] = childKey(s.keyLo[lv], nd.key, uint32(2*f))
	s.keyHi[lv] = childKey(s.keyHi[lv], nd.key, uint32(2*f+1))
	lbLo, lbHi := s.cachedLB(s.keyLo[lv]), s.cachedLB(s.keyHi[lv])
	if s.stopped() {
		j.tally(lbLo+lbHi, false, nil, 0, i)
		return
	}
	ub, d0 := j.bound(i, tg)
	lim := s.limit(lv, ub, nd.need)
	if lbLo+lbHi >= lim {
		j.tally(lbLo+lbHi, true, nil, 0, i)
		return
	}
	s.d0[lv+1] = d0
	p := s.split(nd, i, k, lbLo, lbHi, ub, lim)
	if p.lo == nil {
		j.tally(p.lb, p.complete, nil, 0, i)
		return
	}
	j.tally(p.lb, p.complete, &Tree{Test: int(nd.act[k]), Lo: p.lo, Hi: p.hi}, p.loErr+p.hiErr, i)
}

// tally merges what a test (position i) proved into j: a lower bound
// lb, whether its search was complete, and its tree t (error e) if any.
func (j *joint[T]) tally(lb float64, complete bool, t *Tree, e float64, i int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lbMin = min(j.lbMin, lb)
	j.complete = j.complete && complete
	if t == nil {
		return
	}
	if e < j.bestErr || (e == j.bestErr && i < j.bestPos) {
		j.best, j.bestErr, j.bestPos = t, e, i
	}
	if e <= j.lb0 {
		j.done.Store(true)
	}
}
