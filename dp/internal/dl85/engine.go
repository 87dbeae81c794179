package dl85

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"slices"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Tree is a decision tree over the engine's tests. Test < 0 marks a leaf
// predicting Class; otherwise rows where the test is false go to Lo, the
// others to Hi. Subtrees may be shared between trees (they are immutable).
type Tree struct {
	Test   int
	Class  int
	Lo, Hi *Tree
}

// Depth is the number of tests on the longest root-to-leaf path.
func (t *Tree) Depth() int {
	if t.Test < 0 {
		return 0
	}
	return 1 + max(t.Lo.Depth(), t.Hi.Depth())
}

// Order is the order in which a node tries its tests.
type Order int

const (
	// OrderGain tries tests by decreasing information gain (ties: lower
	// index first).
	OrderGain Order = iota
	// OrderIndex tries tests in index order.
	OrderIndex
)

// Config controls one search.
type Config struct {
	MaxDepth   int
	MinSupport int // least number of rows in a leaf (values < 1 mean 1)
	// CacheBytes caps the estimated memory of the cache of solved
	// branches (0 = no cap). When it is reached the deepest branches are
	// evicted; the search stays exact, only slower.
	CacheBytes int64
	// Depth2 solves subproblems of remaining depth 2 with a specialised
	// step (pairwise counts) instead of searching them. Unweighted data only.
	Depth2 bool
	// NoLinkedDepth2 counts every depth-2 step's pairs itself, instead of
	// taking the larger child's counts as its parent's less its sibling's
	// (two classes only; see sibling.go): for measuring what that saves.
	NoLinkedDepth2 bool
	Order          Order
	// OnIncumbent, when set, receives every improving tree found (a
	// complete tree of the whole data, its weighted error).
	OnIncumbent func(t *Tree, err float64)
	// MaxRestarts stops CA-DL8.5 after that many restarts (0 = no limit).
	MaxRestarts int
	// NoCachedBounds ignores the lower bounds stored with branches that
	// were searched without success (exact results are still reused):
	// for measuring what these bounds save.
	NoCachedBounds bool
	// NoInheritTests makes every node check all tests, instead of only
	// those that split its parent with enough rows on both sides (a test
	// constant or below the minimum support on a branch is so on all its
	// sub-branches): for measuring what that saves.
	NoInheritTests bool
	// Budget, when set, accounts the engine's big structures (its copy of
	// the data, the cache, the depth-2 tables) against the solve's memory
	// cap. A depth-2 table that does not fit is replaced by the ordinary
	// search of the branch (slower, memory linear in the tests); a cache
	// that does not fit evicts; when even that is not enough the search
	// stops with its best tree and Result.Cause wrapping
	// model.ErrMemoryLimit.
	Budget *backend.Budget
	// Workers is the number of goroutines that search the root's tests
	// (values < 2: the sequential search). See the package doc.
	Workers int
	// AbsGap and RelGap (a fraction of the incumbent's error, at most 1)
	// let the search stop once its tree is within the larger of the two
	// of the root's lower bound: the root's tests are searched
	// only for trees better than the incumbent by more than that, and
	// Result.Gap tells when the tree returned is not proven optimal.
	AbsGap, RelGap float64
	// NoDive starts the search from the best single split instead of a
	// tree of greedy tests above optimal depth-2 branches (see dive):
	// for measuring what the dive saves.
	NoDive bool
	// OnBound, when set, receives each rise of the root's lower bound:
	// the least, over the root's tests, of what their branches have
	// established (see rootBound; with several workers, parBound: a test
	// a worker is searching counts with its cached bound until it ends).
	// Calls come from the workers' goroutines, one at a time.
	OnBound func(lb float64)
	// NoSimilarity turns off the similarity lower bound (see similar.go):
	// for measuring what it saves.
	NoSimilarity bool
	// FalseFirst searches the false side of every test first, as DL8.5
	// does, instead of the side whose leaf makes more errors (see split):
	// for measuring what the order saves.
	FalseFirst bool
	// RootGapOnly applies RelGap at the root only, searching the root's
	// branches exactly for trees better than the incumbent by more than
	// the gap, instead of letting every branch stop within the relative
	// gap (see relax): for measuring what the relaxed branches save.
	RootGapOnly bool
	// BoundGap, when above 0 and no gap is asked for, first searches the
	// root within that relative gap (every branch stopping within it, see
	// relax), which proves a bound of at least 1 − BoundGap times its
	// tree far sooner than the exact search proves anything on hard
	// data, then goes on with the exact search, which reuses every bound
	// and tree found. The bound is reported (OnBound) when the phase
	// ends; the exact search proves the same optimum as without it.
	BoundGap float64
}

// maxDepth2Bytes caps the depth-2 tables when no Budget is set: beyond
// it the branch is searched instead (the pair counts grow with the
// square of the tests, the search linearly).
const maxDepth2Bytes = 512 << 20

// Result is the outcome of a search.
type Result struct {
	Tree    *Tree
	Err     float64 // weighted error of Tree
	LB      float64 // a lower bound on the optimal error
	Optimal bool
	// Gap is set when the search ended with Tree within the gap
	// (Config.AbsGap, Config.RelGap) of LB, without proving it optimal.
	Gap bool
	// Counters.
	Nodes, Depth2Calls int64
	Restarts           int
	CacheEntries       int
	PeakCacheBytes     int64
	Evictions          int
	// Helped counts the level-1 tests a parallel worker searched for
	// another worker's branch after the root's tests ran out.
	Helped int64
	// Depth2Skipped counts the depth-2 branches searched the ordinary way
	// because their pair tables did not fit.
	Depth2Skipped int64
	// Depth2Linked counts the depth-2 steps whose pair counts came from
	// their parent's and sibling's (see sibling.go).
	Depth2Linked int64
	// SimilarPruned counts the branches settled by the similarity bound
	// without being searched.
	SimilarPruned int64
	// GapSettled counts the branches below the root whose search stopped
	// within the relative gap (see relax) with a tree not proven optimal.
	GapSettled int64
	// Cause is nil, or why the search stopped early on its own: an error
	// wrapping model.ErrMemoryLimit when the Budget refused memory.
	Cause error
}

// ErrInfeasible is returned when the data has fewer rows than the minimum
// support, so that no tree (not even a leaf) satisfies it.
var ErrInfeasible = errors.New("fewer rows than the minimum support: no tree satisfies it")

// result of searching a branch under an upper bound ub: tree is the best
// tree found with error < ub (nil when none was found), lb a lower bound
// on the branch's optimum, complete whether the search of the branch was
// exhaustive (then tree is optimal, or lb >= ub proves none beats ub).
type result struct {
	tree     *Tree
	err      float64
	lb       float64
	complete bool
}

const entryOverhead = 120 // estimated bytes per cache entry beyond its key

type search[T comparable] struct {
	d      *Data
	cfg    Config
	rule   Rule[T]
	ctx    context.Context
	minsup int
	iter   int32

	cache    map[string]entry[T] // the one worker's cache (nil when sh is set)
	sh       *shared[T]          // what parallel workers share (nil: one worker)
	workers  []*search[T]        // the other workers (parallel search only)
	noPrune  bool                // the rule prunes nothing (canonical extraction)
	tg       *tightener          // a parallel worker's root test (nil: none)
	jb       *board[T]           // the current restart's help board (nil: none)
	helped   int64               // level-1 tests searched for another worker
	d0       []float64           // per level, the tightening already in its ub (-1: its ub is not the root's)
	lvBytes  []int64
	bytes    int64
	peak     int64
	evicted  int
	stop     bool
	gapDone  bool    // the root's search ended within the gap
	relax    float64 // the relative gap every branch below the root may stop within (0: exact branches)
	sb       searchBound
	irrRoot  float64 // the root's irreducible error
	cause    error   // why the search stopped itself (memory)
	reserved int64   // bytes reserved in cfg.Budget
	cacheRes int64   // of which for the cache
	d2skip   int64
	simPrune int64
	gapSet   int64     // branches settled within the gap
	sim      []simRing // per remaining depth (nil: the bound is off)
	nodes    int64
	d2calls  int64
	leaves   []*Tree
	all      []int32 // every test

	// per level scratch
	sets  [][]uint64
	act   [][]int32
	fcnt  [][]float64 // per active test, class counts of its true side
	fn    [][]int     // per active test, rows on its true side
	gain  [][]float64
	order [][]int32
	keyLo [][]byte
	keyHi [][]byte
	cntLo [][]float64
	cntHi [][]float64

	// depth-2 scratch
	pos     []int32
	cf      []uint64
	cc      []uint64
	pairs   []int32
	actMask []uint64
	sym     []int32
	diag    []int32

	// linked depth-2 steps (sibling.go)
	from     []link[T] // per level, the test of the parent that made it
	serial   int64
	ptab     pairTab
	stab     pairTab
	sibRows  []uint64
	d2linked int64 // steps whose counts came from the parent's and sibling's

	// irreducible-error scratch
	grp     []float64
	gstamp  []uint32
	stampN  uint32
	touched []int32
}

// Solve runs DL8.5 (rule NoRule) or CA-DL8.5 (any other rule: restarts
// with the rule relaxed after each, until the tree is proven optimal, the
// rule cannot be relaxed, or ctx is done). On ctx done it returns the best
// tree found with Optimal=false and a valid lower bound.
func Solve[T comparable](ctx context.Context, d *Data, cfg Config, rule Rule[T]) (Result, error) {
	if cfg.MaxDepth < 0 {
		return Result{}, errors.New("dl85: negative maximum depth")
	}
	if cfg.Depth2 && d.w != nil {
		cfg.Depth2 = false
	}
	cfg.RelGap = min(cfg.RelGap, 1)
	s := &search[T]{d: d, cfg: cfg, rule: rule, ctx: ctx, minsup: max(cfg.MinSupport, 1),
		cache: map[string]entry[T]{}, sb: searchBound{onBound: cfg.OnBound, bound: math.Inf(-1)}}
	if !cfg.RootGapOnly {
		s.relax = cfg.RelGap
	}
	if d.N < s.minsup {
		return Result{}, ErrInfeasible
	}
	if err := s.reserve(d.Bytes()+int64(d.nGroups)*int64(8*d.NC+4)+int64(d.M)*8, "dl85 data"); err != nil {
		return Result{}, err
	}
	defer func() { cfg.Budget.Release(s.reserved) }()
	if b := cfg.Budget; b.Limit() > 0 {
		// The cache may take half of what is left; it evicts beyond.
		capB := (b.Limit() - b.Used()) / 2
		if s.cfg.CacheBytes == 0 || s.cfg.CacheBytes > capB {
			s.cfg.CacheBytes = max(capB, 1<<20)
		}
	}
	s.alloc()
	s.lvBytes = make([]int64, cfg.MaxDepth+2)
	s.leaves = make([]*Tree, d.NC)
	for c := range s.leaves {
		s.leaves[c] = &Tree{Test: -1, Class: c}
	}
	if cfg.Workers > 1 && cfg.MaxDepth >= 2 {
		s.sh = newShared[T](s.cfg.CacheBytes, cfg.MaxDepth+2)
		s.cache = nil
		defer s.sh.release(cfg.Budget)
		// Workers see a cancelled ctx through one flag (ctx.Err takes a
		// lock every call).
		defer context.AfterFunc(ctx, func() { s.sh.stop.Store(true) })()
		defer s.releaseWorkers()
	}

	// Root.
	full := s.sets[0]
	for r := range d.N {
		full[r>>6] |= 1 << (uint(r) & 63)
	}
	rootCnt := make([]float64, d.NC)
	for r := range d.N {
		rootCnt[d.label[r]] += d.weight(r)
	}
	all := make([]int32, d.M)
	for t := range all {
		all[t] = int32(t)
	}
	s.all = all
	rootErr, rootCls := leafOf(rootCnt)
	irr := s.irreducible(full)
	s.irrRoot = irr
	s.sb.raise(irr)
	res := Result{Tree: s.leaves[rootCls], Err: rootErr, LB: irr}
	if cfg.OnIncumbent != nil {
		cfg.OnIncumbent(res.Tree, res.Err)
	}
	report := func(t *Tree, e float64) {
		if e < res.Err {
			res.Tree, res.Err = t, e
			if cfg.OnIncumbent != nil {
				cfg.OnIncumbent(t, e)
			}
		}
	}
	st := rule.InitialState(Context{Error: rootErr, Size: d.N})
	ub := math.Inf(1)
	if cfg.MaxDepth >= 3 && !cfg.NoDive {
		// A first complete tree before the search: DL8.5 improves its
		// tree only when a root test's two branches are searched through,
		// which at depth 6 on thousands of rows can take longer than the
		// time limit. The dive's depth-2 branches are solved exactly and
		// cached, so the search reuses them.
		if t, e := s.dive(0, rootCnt, d.N, nil, st, all); t != nil {
			report(t, e)
			if !s.gapped() {
				// Search for better trees only. (A gapped root sets its
				// own level from the trees it finds: the gap of a better
				// tree is smaller and takes longer to prove, so starting
				// from the dive's would only make the search longer.)
				ub = res.Err
			}
		}
	}
	// A tree with no more errors than the irreducible ones (rows equal on
	// every test with different classes) is optimal: the search is left
	// out. Such a tree from the dive is also the one the search would
	// return (see dive), so the parallel search's canonical tree is not
	// sought either.
	atFloor := res.Err <= irr
	res.Optimal = atFloor
	if cfg.BoundGap > 0 && !s.gapped() && !res.Optimal {
		s.boundPhase(&res, rootCnt, st, report)
		ub = res.Err
	}
	stuck := false
	for !res.Optimal {
		s.iter++
		r := s.node(0, rootCnt, d.N, nil, ub, ub, st, all, report)
		if r.tree != nil {
			report(r.tree, r.err)
			ub = res.Err
		}
		res.LB = max(res.LB, r.lb)
		res.Restarts = int(s.iter)
		if r.complete && (r.tree == nil || r.lb >= r.err) {
			res.Optimal = true
			break
		}
		if s.gapDone {
			break
		}
		if s.stop || ctx.Err() != nil {
			break
		}
		if cfg.MaxRestarts > 0 && int(s.iter) >= cfg.MaxRestarts {
			break
		}
		if !rule.Relax() {
			// A rule that cannot be relaxed any more should prune nothing,
			// so the next restart is complete; a rule that still prunes
			// then would loop for ever: stop after one such restart.
			if stuck {
				break
			}
			stuck = true
		}
	}
	if res.Optimal {
		res.LB = res.Err
		if s.sh != nil && !atFloor {
			// The tree the workers' timing picked among equally good
			// ones gives way to the canonical one (see the package doc).
			if t := s.canonicalRoot(rootCnt, res.Err); t != nil {
				res.Tree = t
			}
		}
	}
	res.LB = max(res.LB, s.sb.bound) // every bound reported is proven
	res.LB = min(res.LB, res.Err)
	if s.gapDone && res.LB >= res.Err {
		res.Optimal = true
	}
	res.Gap = s.gapDone && !res.Optimal
	s.sb.raise(res.LB)
	res.Nodes, res.Depth2Calls = s.nodes, s.d2calls
	res.Depth2Linked = s.d2linked
	res.CacheEntries, res.PeakCacheBytes, res.Evictions = len(s.cache), s.peak, s.evicted
	res.Depth2Skipped, res.Cause = s.d2skip, s.cause
	res.SimilarPruned, res.GapSettled = s.simPrune, s.gapSet
	if s.sh != nil {
		s.sh.stats(&res)
		res.Helped = s.helped
		for _, w := range s.workers {
			res.Nodes += w.nodes
			res.Depth2Calls += w.d2calls
			res.Depth2Skipped += w.d2skip
			res.Depth2Linked += w.d2linked
			res.SimilarPruned += w.simPrune
			res.GapSettled += w.gapSet
			res.Helped += w.helped
		}
	}
	return res, nil
}

// alloc makes the search's per-level and per-row scratch.
func (s *search[T]) alloc() {
	d := s.d
	L := s.cfg.MaxDepth + 2
	s.sets = make([][]uint64, L)
	s.act = make([][]int32, L)
	s.fcnt = make([][]float64, L)
	s.fn = make([][]int, L)
	s.gain = make([][]float64, L)
	s.order = make([][]int32, L)
	s.keyLo = make([][]byte, L)
	s.keyHi = make([][]byte, L)
	s.cntLo = make([][]float64, L)
	s.cntHi = make([][]float64, L)
	s.d0 = make([]float64, L)
	s.from = make([]link[T], L)
	s.sibRows = make([]uint64, d.words)
	for lv := range L {
		s.sets[lv] = make([]uint64, d.words)
		s.cntLo[lv] = make([]float64, d.NC)
		s.cntHi[lv] = make([]float64, d.NC)
	}
	s.pos = make([]int32, d.M)
	for i := range s.pos {
		s.pos[i] = -1
	}
	s.grp = make([]float64, d.nGroups*d.NC)
	s.gstamp = make([]uint32, d.nGroups)
	if s.similarOn() {
		s.sim = make([]simRing, s.cfg.MaxDepth+1)
	}
}

// leafOf returns the error and class (lowest index on ties) of a leaf on
// rows with class weights cnt.
func leafOf(cnt []float64) (float64, int) {
	c, e := model.Majority(cnt)
	return e, c
}

func entropy(cnt []float64) float64 {
	tot := 0.0
	for _, x := range cnt {
		tot += x
	}
	if tot <= 0 {
		return 0
	}
	h := 0.0
	for _, x := range cnt {
		if x > 0 {
			p := x / tot
			h -= p * math.Log2(p)
		}
	}
	return h
}

// reserve accounts n bytes in the budget (kept until Solve returns).
func (s *search[T]) reserve(n int64, what string) error {
	if err := s.cfg.Budget.Reserve(n, what); err != nil {
		return err
	}
	s.reserved += n
	return nil
}

// memoryStop stops the search (every worker) for lack of memory.
func (s *search[T]) memoryStop(err error) {
	if s.cause == nil {
		s.cause = err
	}
	s.stop = true
	if s.sh != nil {
		s.sh.memoryStop(err)
	}
}

func (s *search[T]) stopped() bool {
	if s.stop {
		return true
	}
	if s.sh != nil {
		s.stop = s.sh.stop.Load()
		return s.stop
	}
	if s.ctx.Err() != nil {
		s.stop = true
	}
	return s.stop
}

// irreducible is the error no tree avoids on rows: rows with the same
// test vector get the same class.
func (s *search[T]) irreducible(rows []uint64) float64 {
	d := s.d
	s.touched = s.touched[:0]
	s.stampN++
	for wi, x := range rows {
		for x != 0 {
			r := wi*64 + bits.TrailingZeros64(x)
			x &= x - 1
			g := d.group[r]
			if s.gstamp[g] != s.stampN {
				s.gstamp[g] = s.stampN
				s.touched = append(s.touched, g)
			}
			s.grp[int(g)*d.NC+int(d.label[r])] += d.weight(r)
		}
	}
	tot := 0.0
	for _, g := range s.touched {
		cnt := s.grp[int(g)*d.NC : int(g+1)*d.NC]
		e, _ := leafOf(cnt)
		tot += e
		clear(cnt)
	}
	return tot
}

func (s *search[T]) leafResult(cnt []float64, ub float64, complete bool, lb float64) result {
	e, c := leafOf(cnt)
	r := result{err: math.Inf(1), lb: lb, complete: complete}
	if e < ub {
		r.tree, r.err = s.leaves[c], e
	}
	if complete {
		r.lb = e
	}
	return r
}

// node searches the branch at level lv whose rows are s.sets[lv], class
// weights cnt, n rows and cache key key, for a tree with error < ub.
// need is the bound that satisfies the caller (see limit; with exact
// branches it is ub). parentAct lists the tests that may still split the
// branch.
func (s *search[T]) node(lv int, cnt []float64, n int, key []byte, ub, need float64, st T, parentAct []int32, report func(*Tree, float64)) result {
	s.nodes++
	base := -1.0 // ub is not made from the root's bound
	if s.tg != nil && s.d0[lv] >= 0 {
		// Apply what the root's incumbent dropped since ub was made.
		base = s.tg.delta()
		ub -= base - s.d0[lv]
	}
	rows := s.sets[lv]
	leafErr, leafCls := leafOf(cnt)
	rd := s.cfg.MaxDepth - lv
	if rd == 0 || leafErr == 0 || n < 2*s.minsup {
		return s.leafResult(cnt, ub, true, 0)
	}
	if s.stopped() || (!s.noPrune && s.rule.Prune(st)) {
		var e entry[T]
		var ok bool
		if s.sh == nil {
			e, ok = s.cache[string(key)]
		} else {
			e, ok = s.sh.get(key)
		}
		if ok && e.exact {
			if e.err < ub {
				return result{tree: e.tree, err: e.err, lb: e.lb, complete: true}
			}
			return result{err: math.Inf(1), lb: e.lb, complete: true}
		}
		lb := e.lb
		if s.stop {
			// Only a stopped search reports its bound: make it count.
			lb = max(lb, s.irreducible(rows))
		}
		if lb >= ub {
			return result{err: math.Inf(1), lb: lb, complete: true}
		}
		return s.leafResult(cnt, ub, false, lb)
	}
	var e entry[T]
	var cached bool
	if s.sh == nil { // the map inline: the sequential search's hot path
		e, cached = s.cache[string(key)]
	} else {
		e, cached = s.sh.get(key)
	}
	lb0 := 0.0
	if cached && s.cfg.NoCachedBounds && !e.exact {
		cached = false
	}
	if cached {
		if e.lb >= ub {
			return result{err: math.Inf(1), lb: e.lb, complete: true}
		}
		if e.exact {
			return result{tree: e.tree, err: e.err, lb: e.lb, complete: true}
		}
		if lv > 0 && s.relax > 0 && e.lb >= min(need, s.target(lv, min(ub, e.err))) {
			// Settled within the gap before (see relax).
			r := result{err: math.Inf(1), lb: e.lb, complete: true}
			if e.tree != nil && e.err < ub {
				r.tree, r.err = e.tree, e.err
			}
			return r
		}
		if e.iter == s.iter && e.state == st && ub <= e.ub && s.relax == 0 {
			// Pruned in this restart under as loose a bound: so it would
			// be again. (Within a gap, a branch settled for one caller's
			// need may be searched further for a lower one.)
			r := result{err: math.Inf(1), lb: e.lb}
			if e.err < ub {
				r.tree, r.err = e.tree, e.err
			}
			return r
		}
		lb0 = e.lb
	}
	if s.sim != nil && rd >= 2 {
		if b := s.similarLB(rd, rows, n, lb0); b > lb0 {
			if b >= s.limit(lv, ub, need) {
				s.simPrune++
				return result{err: math.Inf(1), lb: b, complete: true}
			}
			lb0 = b
		}
	}

	act, fn, fc := s.actives(lv, rows, n, parentAct)
	if len(act) == 0 {
		// No admissible split: the leaf is the answer.
		return s.leafResult(cnt, ub, true, 0)
	}
	if rd == 1 {
		r := s.depth1(cnt, n, act, fn, fc, ub)
		if !s.cfg.Depth2 || s.d2skip > 0 {
			// Restarts and other paths reuse it (with the depth-2 step
			// on, depth-1 branches are met only below depth-2 ones,
			// unless the step was skipped for want of memory).
			s.store(key, entry[T]{err: r.err, lb: r.lb, ub: ub, tree: r.tree, state: s.rule.TerminalState(st), iter: s.iter, exact: r.tree != nil})
		}
		return r
	}
	var r1 result
	if lv == 0 && rd >= 2 {
		// A first incumbent at the cost of the counts already made: the
		// best single split (the depth-2 step or the search may take long
		// on large data).
		if r1 = s.depth1(cnt, n, act, fn, fc, math.Inf(1)); r1.tree != nil {
			report(r1.tree, r1.err)
		}
	}
	if rd == 2 && s.cfg.Depth2 && s.depth2Fits(len(act), n) {
		t, err, ok := s.depth2(lv, cnt, n, act, fn, fc)
		if !ok {
			// Stopped inside the step: no tree proven for the branch.
			return s.leafResult(cnt, ub, false, s.irreducible(rows))
		}
		s.store(key, entry[T]{err: err, lb: err, ub: ub, tree: t, state: s.rule.TerminalState(st), iter: s.iter, exact: true})
		s.rememberSimilar(rd, rows, n, err)
		if err < ub {
			return result{tree: t, err: err, lb: err, complete: true}
		}
		return result{err: math.Inf(1), lb: err, complete: true}
	}

	nd := level[T]{lv: lv, cnt: cnt, n: n, rows: rows, key: key, st: st, act: act, fn: fn, fc: fc, childAct: act, need: need}
	if rd == 3 && s.cfg.Depth2 && s.d.NC == 2 {
		nd.serial = s.nextSerial()
	}
	if s.cfg.NoInheritTests {
		nd.childAct = s.all
	}
	ord := s.orderTests(&nd)
	if lv == 0 && s.sh != nil {
		return s.parallelRoot(&nd, ord, ub, lb0, r1, report)
	}

	childUB := ub
	var best *Tree
	bestErr := math.Inf(1)
	if leafErr < childUB {
		best, bestErr, childUB = s.leaves[leafCls], leafErr, leafErr
		if lv == 0 {
			report(best, bestErr)
		}
	}
	var rb *rootBound
	if lv == 0 {
		rb = s.newRootBound(ord, act, key, leafErr, lb0)
		if s.gapped() && r1.tree != nil && r1.err < childUB {
			best, bestErr, childUB = r1.tree, r1.err, r1.err
		}
	}
	// The tests' bounds are settled at lim: childUB, or below it within
	// the gap (see target).
	lim := s.limit(lv, childUB, need)
	complete := true
	lbMin := leafErr
	klo := s.keyLo[lv]
	khi := s.keyHi[lv]
	for i, k := range ord {
		f := act[k]
		klo = childKey(klo, key, uint32(2*f))
		khi = childKey(khi, key, uint32(2*f+1))
		s.keyLo[lv], s.keyHi[lv] = klo, khi
		lbLo, lbHi := s.cachedLB(klo), s.cachedLB(khi)
		if s.stop {
			complete = false
			lbMin = min(lbMin, lbLo+lbHi)
			continue
		}
		if rb != nil && i > 0 {
			rb.settle(&s.sb, bestErr)
		}
		if s.tg != nil {
			if lv == 1 && s.jb != nil && s.jb.idle.Load() > 0 && len(ord)-i > 1 {
				// A worker is idle: let it help with the rest of the tests.
				return s.shareRest(&nd, ord, i, ub, base, lb0, lbMin, complete, best, bestErr)
			}
			// The children's bounds follow the root's only while they are
			// made from ub, not from a tree found here.
			s.d0[lv+1] = -1
			if base >= 0 {
				if dn := s.tg.delta(); dn > base {
					ub -= dn - base
					childUB = min(childUB, ub)
					lim = s.limit(lv, childUB, need)
					base = dn
				}
				if childUB == ub {
					s.d0[lv+1] = base
				}
			}
		}
		if lbLo+lbHi >= lim {
			lbMin = min(lbMin, lbLo+lbHi)
			rb.set(i, lbLo+lbHi)
			continue
		}
		p := s.split(&nd, i, k, lbLo, lbHi, s.searchUB(lv, childUB), lim)
		if !p.complete {
			complete = false
		}
		lbMin = min(lbMin, p.lb)
		rb.set(i, p.lb)
		if p.lo == nil {
			continue
		}
		if e := p.loErr + p.hiErr; e < childUB {
			best, bestErr, childUB = &Tree{Test: int(f), Lo: p.lo, Hi: p.hi}, e, e
			lim = s.limit(lv, childUB, need)
			if lv == 0 {
				report(best, bestErr)
			}
			if e <= lb0 {
				// Meets a proven lower bound: optimal.
				lbMin = e
				complete = true
				break
			}
		}
	}
	if rb != nil {
		if !s.stop {
			rb.settle(&s.sb, bestErr)
		}
		if s.gapped() && !s.stop && complete {
			return s.gapRoot(lbMin, lb0, best, bestErr)
		}
	}
	if s.tg != nil && best != nil && bestErr >= ub {
		// The root's incumbent dropped below the best tree found here
		// (tests after it were searched under the lower bound, so it
		// is not proven optimal): it is of no use, and every test's
		// bound is now at least ub.
		best, bestErr = nil, math.Inf(1)
	}
	return s.settle(&nd, ub, lb0, lbMin, complete, best, bestErr)
}

// level is what the tests of one node share while they are tried.
type level[T comparable] struct {
	lv       int
	cnt      []float64
	n        int
	rows     []uint64
	key      []byte
	st       T
	act      []int32   // the tests that split the branch
	fn       []int     // per test, rows on its true side
	fc       []float64 // per test, class weights of its true side
	gains    []float64 // per test, information gain
	bestGain float64
	childAct []int32 // the tests the children may use
	need     float64 // the bound that satisfies the node's caller (see limit)
	serial   int64   // names a depth-3 branch for the linked depth-2 step (0: none)
}

// actives lists, in s.act[lv], the tests of parentAct that still split
// the branch (rows, n rows) with enough rows on both sides, with their
// true sides' sizes (s.fn[lv]) and class weights (s.fcnt[lv]); the
// others split none of its sub-branches either.
func (s *search[T]) actives(lv int, rows []uint64, n int, parentAct []int32) ([]int32, []int, []float64) {
	d := s.d
	act := s.act[lv][:0]
	fn := s.fn[lv][:0]
	fc := s.fcnt[lv][:0]
	nc := d.NC
	for _, t := range parentAct {
		col := d.cols[t]
		h := andCount(rows, col)
		if h < s.minsup || n-h < s.minsup {
			continue
		}
		act = append(act, t)
		fn = append(fn, h)
		if d.w == nil {
			last := float64(h)
			for c := 0; c < nc-1; c++ {
				x := float64(andCount3(rows, col, d.class[c]))
				fc = append(fc, x)
				last -= x
			}
			fc = append(fc, last)
		} else {
			fc = append(fc, make([]float64, nc)...)
		}
	}
	if d.w != nil && len(act) > 0 {
		s.weightedCounts(rows, act, fc)
	}
	s.act[lv], s.fn[lv], s.fcnt[lv] = act, fn, fc
	return act, fn, fc
}

// orderTests sets nd's gains and returns the order in which the node
// tries its tests (positions into nd.act, in s.order[nd.lv]).
func (s *search[T]) orderTests(nd *level[T]) []int32 {
	lv, cnt, nc, fc := nd.lv, nd.cnt, s.d.NC, nd.fc
	ord := s.order[lv][:0]
	gains := s.gain[lv][:0]
	h0 := entropy(cnt)
	tot := 0.0
	for _, x := range cnt {
		tot += x
	}
	lo := s.cntLo[lv]
	bestGain := math.Inf(-1)
	for k := range nd.act {
		hi := fc[k*nc : (k+1)*nc]
		th := 0.0
		for c := range nc {
			lo[c] = cnt[c] - hi[c]
			th += hi[c]
		}
		g := h0
		if tot > 0 {
			g -= th/tot*entropy(hi) + (tot-th)/tot*entropy(lo)
		}
		gains = append(gains, g)
		ord = append(ord, int32(k))
		bestGain = max(bestGain, g)
	}
	if s.cfg.Order == OrderGain {
		slices.SortStableFunc(ord, func(a, b int32) int {
			ga, gb := gains[a], gains[b]
			switch {
			case ga > gb+1e-12:
				return -1
			case gb > ga+1e-12:
				return 1
			}
			return 0
		})
	}
	s.order[lv], s.gain[lv] = ord, gains
	nd.gains, nd.bestGain = gains, bestGain
	return ord
}

// dive returns a tree of the branch at level lv (rows s.sets[lv], n
// rows, class weights cnt, cache key key, rule state st) and its error:
// at each level the test of highest information gain (the first the
// search tries), and the optimal tree of the last two levels, found by
// the search itself (with the depth-2 step, whose exact results are
// cached). It returns nil when the search stops meanwhile.
func (s *search[T]) dive(lv int, cnt []float64, n int, key []byte, st T, parentAct []int32) (*Tree, float64) {
	leafErr, leafCls := leafOf(cnt)
	if s.cfg.MaxDepth-lv <= 2 || leafErr == 0 || n < 2*s.minsup {
		r := s.node(lv, cnt, n, key, math.Inf(1), math.Inf(1), st, parentAct, nil)
		return r.tree, r.err
	}
	if s.stopped() {
		return nil, 0
	}
	rows := s.sets[lv]
	act, fn, fc := s.actives(lv, rows, n, parentAct)
	if len(act) == 0 {
		return s.leaves[leafCls], leafErr
	}
	nd := level[T]{lv: lv, cnt: cnt, n: n, rows: rows, key: key, st: st, act: act, fn: fn, fc: fc, childAct: act}
	if s.cfg.NoInheritTests {
		nd.childAct = s.all
	}
	k := s.orderTests(&nd)[0]
	f := act[k]
	d := s.d
	nc := d.NC
	hi := fc[int(k)*nc : (int(k)+1)*nc]
	cLo, cHi := make([]float64, nc), make([]float64, nc)
	for c := range nc {
		cHi[c] = hi[c]
		cLo[c] = cnt[c] - hi[c]
	}
	nHi := fn[k]
	nLo := n - nHi
	eLo, _ := leafOf(cLo)
	eHi, _ := leafOf(cHi)
	ctx := Context{Index: 0, Depth: lv, Gain: nd.gains[k], BestGain: nd.bestGain}
	next := s.sets[lv+1]
	s.keyLo[lv] = childKey(s.keyLo[lv], key, uint32(2*f))
	for wi, x := range rows {
		next[wi] = x &^ d.cols[f][wi]
	}
	ctx.Error, ctx.Size = eLo, nLo
	lt, le := s.dive(lv+1, cLo, nLo, s.keyLo[lv], s.rule.Update(st, ctx), nd.childAct)
	if lt == nil {
		return nil, 0
	}
	s.keyHi[lv] = childKey(s.keyHi[lv], key, uint32(2*f+1))
	for wi, x := range rows {
		next[wi] = x & d.cols[f][wi]
	}
	ctx.Error, ctx.Size = eHi, nHi
	ht, he := s.dive(lv+1, cHi, nHi, s.keyHi[lv], s.rule.Update(st, ctx), nd.childAct)
	if ht == nil {
		return nil, 0
	}
	if le+he >= leafErr {
		return s.leaves[leafCls], leafErr
	}
	if lv == 0 {
		// The search reports the best single split before any deeper
		// tree, and keeps it when nothing beats it: so must the dive,
		// for the search to return the same tree with it as without it
		// (and as the parallel search's canonical tree).
		if r1 := s.depth1(cnt, n, act, fn, fc, math.Inf(1)); r1.tree != nil && r1.err <= le+he {
			return r1.tree, r1.err
		}
	}
	return &Tree{Test: int(f), Lo: lt, Hi: ht}, le + he
}

// pair is what the search of one test's two branches established.
type pair struct {
	lo, hi       *Tree   // the branches' trees, when a pair with error < ub was found (else nil)
	loErr, hiErr float64 // their errors
	lb           float64 // a lower bound on the test's best pair of trees
	complete     bool    // the search was exhaustive (lb >= ub, or the pair is the test's best)
}

// split searches the two children of test nd.act[k], at position i of
// the node's order, for a pair of trees with total error < ub, the keys
// of its children in s.keyLo[lv], s.keyHi[lv] and lbLo, lbHi their
// cached bounds; a bound of at least lim settles the test (lim is ub,
// or less within a gap: see target). The branch whose leaf makes more errors is searched
// first, under ub less the other's bound: when it alone reaches ub, the
// other is not searched (DL8.5 takes the false side first; with a
// tight ub, as in a gapped search, the costlier side settles more tests
// alone). The extraction of the canonical tree (noPrune) keeps the false
// side first: it reads the true side's rows after the call.
func (s *search[T]) split(nd *level[T], i int, k int32, lbLo, lbHi, ub, lim float64) pair {
	d, lv, nc := s.d, nd.lv, s.d.NC
	f := nd.act[k]
	hi := nd.fc[int(k)*nc : (int(k)+1)*nc]
	cLo, cHi := s.cntLo[lv], s.cntHi[lv]
	for c := range nc {
		cHi[c] = hi[c]
		cLo[c] = nd.cnt[c] - hi[c]
	}
	nHi := nd.fn[k]
	nLo := nd.n - nHi
	eLo, _ := leafOf(cLo)
	eHi, _ := leafOf(cHi)
	next := s.sets[lv+1]
	search := func(trueSide bool, ub, need float64) result {
		if trueSide {
			st := s.rule.Update(nd.st, Context{Index: i, Depth: lv, Error: eHi, Size: nHi, Gain: nd.gains[k], BestGain: nd.bestGain})
			for wi, x := range nd.rows {
				next[wi] = x & d.cols[f][wi]
			}
			s.from[lv+1] = link[T]{nd: nd, k: k, hi: true}
			r := s.node(lv+1, cHi, nHi, s.keyHi[lv], ub, need, st, nd.childAct, nil)
			s.from[lv+1].nd = nil
			return r
		}
		st := s.rule.Update(nd.st, Context{Index: i, Depth: lv, Error: eLo, Size: nLo, Gain: nd.gains[k], BestGain: nd.bestGain})
		for wi, x := range nd.rows {
			next[wi] = x &^ d.cols[f][wi]
		}
		s.from[lv+1] = link[T]{nd: nd, k: k}
		r := s.node(lv+1, cLo, nLo, s.keyLo[lv], ub, need, st, nd.childAct, nil)
		s.from[lv+1].nd = nil
		return r
	}
	hiFirst := eHi > eLo && !s.noPrune && !s.cfg.FalseFirst
	lbSecond := lbHi
	if hiFirst {
		lbSecond = lbLo
	}
	a := search(hiFirst, ub-lbSecond, lim-lbSecond)
	if a.tree == nil || a.lb+lbSecond >= lim {
		// (With exact branches a.lb is a.err, below ub − lbSecond: only
		// a branch settled within the gap stops the test here.)
		return pair{lb: a.lb + lbSecond, complete: a.complete}
	}
	b := search(!hiFirst, ub-a.err, lim-a.lb)
	p := pair{lb: a.lb + max(b.lb, lbSecond), complete: a.complete && b.complete}
	if b.tree == nil {
		return p
	}
	if hiFirst {
		a, b = b, a
	}
	p.lo, p.loErr, p.hi, p.hiErr = a.tree, a.err, b.tree, b.err
	return p
}

// settle finishes a node searched under ub: its bound from the tests'
// bounds (lbMin), the cached bound lb0 and the irreducible error when the
// search was not complete, stored in the cache with its best tree.
func (s *search[T]) settle(nd *level[T], ub, lb0, lbMin float64, complete bool, best *Tree, bestErr float64) result {
	lb := max(lbMin, lb0)
	if complete && best != nil {
		// A complete search proves its tree optimal, except within a
		// gap: below the root when branches stop within it (relax), and
		// at a gapped root, whose tests were searched only for trees
		// better by the gap (it ends by gapRoot, unless the search was
		// stopped after its last test).
		exact := lb >= bestErr
		if nd.lv == 0 {
			exact = exact || !s.gapped()
		} else {
			exact = exact || s.relax == 0
		}
		if exact {
			lb = bestErr
		} else if nd.lv > 0 {
			s.gapSet++
		}
	}
	if !complete {
		lb = max(lb, s.irreducible(nd.rows))
		if best != nil {
			lb = min(lb, bestErr)
		}
	}
	ns := nd.st
	if complete {
		ns = s.rule.TerminalState(nd.st)
	}
	// The entry is exact when its bound meets its tree (merge decides):
	// a branch settled within the gap is complete but not exact.
	s.store(nd.key, entry[T]{err: bestErr, lb: lb, ub: ub, tree: best, state: ns, iter: s.iter})
	s.rememberSimilar(s.cfg.MaxDepth-nd.lv, nd.rows, nd.n, lb)
	r := result{err: math.Inf(1), lb: lb, complete: complete}
	if best != nil {
		r.tree, r.err = best, bestErr
	}
	return r
}

// weightedCounts fills fc[k*NC+c] with the weight of the rows of class c
// in rows on which test act[k] is true.
func (s *search[T]) weightedCounts(rows []uint64, act []int32, fc []float64) {
	d := s.d
	nc := d.NC
	for wi, x := range rows {
		for x != 0 {
			r := wi*64 + bits.TrailingZeros64(x)
			x &= x - 1
			w := d.w[r]
			rb := d.rowBits[r]
			l := int(d.label[r])
			for k, t := range act {
				if rb[t>>6]&(1<<(uint(t)&63)) != 0 {
					fc[k*nc+l] += w
				}
			}
		}
	}
}

// depth1 finds the best tree of depth at most 1 with error < ub.
func (s *search[T]) depth1(cnt []float64, n int, act []int32, fn []int, fc []float64, ub float64) result {
	nc := s.d.NC
	leafErr, leafCls := leafOf(cnt)
	bestErr, bestK := leafErr, -1
	for k := range act {
		e := 0.0
		m1, tot := 0.0, 0.0
		hi := fc[k*nc : (k+1)*nc]
		for c := range nc {
			x := hi[c]
			tot += x
			m1 = max(m1, x)
		}
		e += tot - m1
		m0, tot0 := 0.0, 0.0
		for c := range nc {
			x := cnt[c] - hi[c]
			tot0 += x
			m0 = max(m0, x)
		}
		e += tot0 - m0
		if e < bestErr {
			bestErr, bestK = e, k
		}
	}
	_ = n
	var t *Tree
	if bestK < 0 {
		t = s.leaves[leafCls]
	} else {
		hi := fc[bestK*nc : (bestK+1)*nc]
		lo := make([]float64, nc)
		for c := range nc {
			lo[c] = cnt[c] - hi[c]
		}
		_, ch := leafOf(hi)
		_, cl := leafOf(lo)
		t = &Tree{Test: int(act[bestK]), Lo: s.leaves[cl], Hi: s.leaves[ch]}
	}
	if bestErr < ub {
		return result{tree: t, err: bestErr, lb: bestErr, complete: true}
	}
	return result{err: math.Inf(1), lb: bestErr, complete: true}
}
