// Package sparse is the exact dynamic program that the DP backends (dl85,
// cadl85, blossom, contree) run for the two constraints their own engines
// do not model: a cost per leaf (Problem.LeafCost, the sparse error
// objective) and a bound on the number of internal nodes
// (Problem.MaxNodes). It also holds the exact search for trees with no
// training error that dl85 and cadl85 run for the min-depth and min-size
// objectives (SolvePerfect, SolvePerfectJob; see perfect.go).
//
// It searches over (branch, depth, node budget) as MurTree does: a branch
// with budget k either is a leaf or splits on a test and shares k−1
// internal nodes between its two children. A leaf costs its weighted
// error plus λ·W (W the total weight), so a split is kept only when it
// lowers the cost. Solved branches are cached by their row set, depth and
// budget. Two bounds prune: a branch whose best leaf costs at most 2λ·W
// (the least cost of any two leaves) is a leaf; and the first child of a
// split is searched only while its cost can still beat the best so far
// minus the second child's least cost (λ·W).
//
// The cache is accounted in the job's memory budget (Config.Budget), in
// chunks: when the next chunk does not fit, the search stops as for a
// deadline and returns the best tree found, with Result.MemoryStop set.
//
// With several workers (Config.Workers, from Job.Workers) the root's
// candidate splits — (test, budget of the low child) pairs, in the
// sequential order — are handed out from a shared counter. Each worker
// has its own scratch and its own chunks of the budget; all share the
// cache, split into 64 maps under their own locks, and the root's best
// candidate, under one lock. A cached entry is the exact optimum of its
// branch whoever computes it (the search below the root has no outside
// bound), two workers may at worst compute one branch twice. Among
// candidates of equal cost the lowest position wins, as in the sequential
// search, so the tree is the same for every worker count. One worker runs
// the sequential search, with a cache of one map and no locks.
package sparse

import (
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Config is what to solve on a binary view.
type Config struct {
	MaxDepth   int
	MinSupport int
	// MaxNodes bounds the internal nodes (0: no bound).
	MaxNodes int
	// LeafCost is λ: each leaf costs λ × the total weight.
	LeafCost float64
	// Budget accounts the cache (nil: no cap).
	Budget *backend.Budget
	// Workers is the number of goroutines that search (≤ 1: one, the
	// sequential search).
	Workers int
}

// Result is an optimal tree for the config, or the best tree found before
// ctx ended (Optimal false). Tree is nil when no tree satisfies the
// minimum support.
type Result struct {
	Tree    *model.Graph
	Optimal bool
	// Cost is the tree's weighted error + λ·W·leaves.
	Cost float64
	// Branches counts the cached (branch, depth, budget) entries.
	Branches int
	// MemoryStop, when not nil, is why the search stopped early: the cache
	// reached the budget (it wraps model.ErrMemoryLimit).
	MemoryStop error
}

// memoChunk is how many bytes of cache a worker reserves at a time.
const memoChunk = 256 << 10

// entryBytes estimates the memory of one cache entry with a key of n
// bytes: the key's bytes, its string header and the entry in the map's
// slot, and the map's spare slots.
func entryBytes(n int) int64 { return int64(n+7)/8*8 + 16 + 32 + 16 }

type entry struct {
	cost  float64 // +Inf: no tree
	test  int     // -1: leaf
	left  int     // budget given to the low child
	class int
}

// state is what every worker of one Solve sees: the problem, the cache
// and the stop.
type state struct {
	ctx   context.Context
	v     *model.BinaryView
	cfg   Config
	leafW float64 // λ·W
	total float64 // W
	memo  *memo
	// stopped ends the search (deadline, cancel or memory); memErr is the
	// budget's refusal, kept once.
	stopped atomic.Bool
	memMu   sync.Mutex
	memErr  error
}

func (sh *state) refuse(err error) {
	sh.memMu.Lock()
	if sh.memErr == nil {
		sh.memErr = err
	}
	sh.memMu.Unlock()
	sh.stopped.Store(true)
}

// solver is one worker: its scratch and its share of the cache's
// reservation.
type solver struct {
	*state
	weights []float64
	key     []byte
	counts  []float64
	steps   int
	// reserved is this worker's reservation in the budget; used the part
	// its cache entries fill.
	reserved, used int64
}

func (sh *state) newSolver() *solver {
	return &solver{state: sh, weights: sh.v.Data.Weights, counts: make([]float64, len(sh.v.Class))}
}

// Solve runs the dynamic program on v with cfg.Workers goroutines.
func Solve(ctx context.Context, v *model.BinaryView, cfg Config) *Result {
	d := v.Data
	cfg.MinSupport = max(1, cfg.MinSupport)
	cfg.Workers = max(1, cfg.Workers)
	sh := &state{ctx: ctx, v: v, cfg: cfg, leafW: cfg.LeafCost * d.TotalWeight(), total: d.TotalWeight(), memo: newMemo(cfg.Workers > 1)}
	k := cfg.MaxNodes
	if k <= 0 {
		k = math.MaxInt
	}
	all := model.FullBitset(v.N)
	s := sh.newSolver()
	defer func() { cfg.Budget.Release(s.reserved) }()
	depth, k, e := s.grow(all, max(cfg.MaxDepth, 0), k)
	res := &Result{Optimal: !sh.stopped.Load(), Cost: e.cost, Branches: sh.memo.len(), MemoryStop: sh.memErr}
	if !math.IsInf(e.cost, 1) {
		b := model.NewBuilder(d, model.KindTree)
		res.Tree = b.Graph(s.build(b, all, depth, k))
	}
	return res
}

// grow solves the root of depth at most depth and at most k internal
// nodes and returns the depth and budget whose cache entry holds the
// answer. With a leaf cost it grows the budget one node at a time
// instead: the optimum c_j with at most j internal nodes bounds the
// optimum with more, whose tree then has fewer than c_j/λW leaves; once
// that leaves no room for more than j internal nodes, c_j is the
// optimum for k too (up to the 1e-9 relative tolerance within which
// odtkit's verification calls two objectives equal). A few small
// budgets are far cheaper than one large one (iris at depth 5 with
// λ = 0.01: the optimum has 3 internal nodes, the budget 31).
func (s *solver) grow(all model.Bitset, depth, k int) (int, int, entry) {
	_, cost := s.leaf(all)
	n := all.Count()
	// root solves the root at a shape (the one under which build finds
	// it: solveRoot, unlike solve, does not shape its branch itself).
	root := func(depth, k int) (int, int, entry) {
		depth, k = s.shape(n, cost, depth, k)
		if s.cfg.Workers > 1 {
			return depth, k, s.solveRoot(all, depth, k)
		}
		return depth, k, s.solve(all, depth, k)
	}
	if s.leafW <= 0 {
		return root(depth, k)
	}
	depth, k = s.shape(n, cost, depth, k)
	var best entry
	bd, bk := 0, 0
	for j := 1; ; j++ {
		dj, kj, e := root(min(depth, j), j)
		if j == 1 || e.cost < best.cost {
			best, bd, bk = e, dj, kj
		}
		if j >= k || s.stopped.Load() {
			return bd, bk, best
		}
		// A tree of L leaves costs at least L·λW: one that beats best by
		// more than the tolerance within which odtkit calls objectives
		// equal (1e-9 relative, as Verify) has L·λW < best − tol. When no
		// such L exceeds j+1, no tree with more internal nodes does.
		tol := 1e-9 * max(s.total, best.cost)
		if float64(j+2)*s.leafW >= best.cost-tol {
			return bd, bk, best
		}
	}
}

// full is the number of internal nodes of a complete tree of that depth
// (math.MaxInt when that does not fit an int).
func full(depth int) int {
	if depth >= bits.UintSize-2 {
		return math.MaxInt
	}
	return 1<<depth - 1
}

// shape lowers the depth and node budget of a branch of n rows whose
// best leaf costs cost to the least ones with the same optimum: a tree
// with k internal nodes is at most k deep and has at most full(depth) of
// them; its k+1 leaves hold at least MinSupport rows each (k+1 ≤
// ⌊n/MinSupport⌋); and with a leaf cost, a tree of k+1 leaves costs at
// least (k+1)·λW, so one that beats the leaf (error e = cost − λW) has
// k ≤ ⌊e/λW⌋. Branches that differ only above these bounds then share
// one cache entry, and no count overflows whatever depth is asked.
func (s *solver) shape(n int, cost float64, depth, k int) (int, int) {
	k = min(k, full(depth), n/s.cfg.MinSupport-1)
	if s.leafW > 0 && !math.IsInf(cost, 1) {
		// Rounded up by a hair: floating point must never lose a tie.
		if x := (cost-s.leafW)/s.leafW*(1+1e-12) + 1e-9; x < float64(k) {
			k = int(x)
		}
	}
	k = max(k, 0)
	return min(depth, k), k
}

// leaf is the best leaf on rows: its class and cost (+Inf below the
// minimum support).
func (s *solver) leaf(rows model.Bitset) (int, float64) {
	n := rows.Count()
	if n == 0 || n < s.cfg.MinSupport {
		return 0, math.Inf(1)
	}
	for c, cls := range s.v.Class {
		if s.weights == nil {
			s.counts[c] = float64(model.AndCount(rows, cls))
			continue
		}
		t := 0.0
		for w, x := range rows {
			for m := x & cls[w]; m != 0; m &= m - 1 {
				t += s.weights[w*64+bits.TrailingZeros64(m)]
			}
		}
		s.counts[c] = t
	}
	c, e := model.Majority(s.counts)
	return c, e + s.leafW
}

// memoKey is the cache key of a branch, in the worker's scratch (valid
// until its next call).
func (s *solver) memoKey(rows model.Bitset, depth, k int) []byte {
	s.key = s.key[:0]
	s.key = binary.AppendUvarint(s.key, uint64(depth))
	s.key = binary.AppendUvarint(s.key, uint64(k))
	for _, w := range rows {
		s.key = binary.LittleEndian.AppendUint64(s.key, w)
	}
	return s.key
}

// solve returns the best tree on rows of depth at most depth with at most
// k internal nodes (both lowered by shape first).
func (s *solver) solve(rows model.Bitset, depth, k int) entry {
	class, cost := s.leaf(rows)
	n := rows.Count()
	if depth, k = s.shape(n, cost, depth, k); depth == 0 || k == 0 {
		// A leaf: counting is cheaper than the cache.
		return entry{cost: cost, test: -1, class: class}
	}
	kb := s.memoKey(rows, depth, k)
	if e, ok := s.memo.get(kb); ok {
		return e
	}
	key := string(kb) // a miss: copied before the children reuse the scratch
	best := entry{cost: cost, test: -1, class: class}
	if s.splittable(depth, k, cost) && !s.stop() {
		lo, hi := model.NewBitset(s.v.N), model.NewBitset(s.v.N)
		sub := full(depth - 1)
		for t := range s.v.Tests {
			if !s.children(rows, n, t, lo, hi) {
				continue
			}
			for kl := max(0, k-1-sub); kl <= min(k-1, sub) && !s.stopped.Load(); kl++ {
				kr := k - 1 - kl
				l := s.solve(lo, depth-1, kl)
				if l.cost+s.leafW >= best.cost || math.IsInf(l.cost, 1) {
					continue
				}
				r := s.solve(hi, depth-1, kr)
				if c := l.cost + r.cost; c < best.cost {
					best = entry{cost: c, test: t, left: kl, class: class}
				}
			}
			if s.stopped.Load() {
				break
			}
		}
	}
	s.account(len(key))
	s.memo.put(key, best) // after a stop: the best found, for build
	return best
}

// splittable reports whether a branch of that depth and budget, whose
// best leaf costs cost, may gain from a split. A split has at least two
// leaves: it costs at least 2λW, and nothing beats an error-free leaf.
// Below the minimum support no child can have a leaf either.
func (s *solver) splittable(depth, k int, cost float64) bool {
	return depth > 0 && k > 0 && !math.IsInf(cost, 1) && cost-s.leafW > 0 && cost > 2*s.leafW
}

// children sets lo and hi to the rows of rows (n of them) failing and
// passing test t and reports whether both hold at least the minimum
// support.
func (s *solver) children(rows model.Bitset, n, t int, lo, hi model.Bitset) bool {
	hi.And(rows, s.v.True[t])
	lo.AndNot(rows, s.v.True[t])
	nh := hi.Count()
	return nh != 0 && nh != n && nh >= s.cfg.MinSupport && n-nh >= s.cfg.MinSupport
}

// account counts a new cache entry with a key of n bytes, reserving
// another chunk when the worker's reservation is full; a chunk that does
// not fit stops the search. The entries stored while the search unwinds
// after a stop (a few per level, which build needs) are not refused.
func (s *solver) account(n int) {
	s.used += entryBytes(n)
	if s.used <= s.reserved || s.stopped.Load() {
		return
	}
	if err := s.cfg.Budget.Reserve(memoChunk, "the sparse program's cache"); err != nil {
		s.refuse(err)
		return
	}
	s.reserved += memoChunk
}

// stop polls ctx every few hundred branches.
func (s *solver) stop() bool {
	if s.stopped.Load() {
		return true
	}
	if s.steps++; s.steps%256 == 0 && s.ctx.Err() != nil {
		s.stopped.Store(true)
	}
	return s.stopped.Load()
}

// build adds the tree of a solved branch to b and returns its root.
func (s *solver) build(b *model.Builder, rows model.Bitset, depth, k int) int {
	c, cost := s.leaf(rows)
	depth, k = s.shape(rows.Count(), cost, depth, k)
	if depth == 0 || k == 0 {
		return b.Leaf(c)
	}
	e, ok := s.memo.get(s.memoKey(rows, depth, k))
	if !ok { // not cached (the search stopped): the best leaf
		return b.Leaf(c)
	}
	if e.test < 0 {
		return b.Leaf(e.class)
	}
	lo, hi := model.NewBitset(s.v.N), model.NewBitset(s.v.N)
	hi.And(rows, s.v.True[e.test])
	lo.AndNot(rows, s.v.True[e.test])
	l := s.build(b, lo, depth-1, e.left)
	h := s.build(b, hi, depth-1, k-1-e.left)
	return b.Split(s.v.Tests[e.test], l, h)
}
