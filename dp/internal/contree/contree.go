// Package contree is the search engine behind dp.ConTree: optimal
// classification trees of bounded depth searched directly on numeric
// feature columns (Briţa, van der Linden & Demirović, AAAI 2025).
//
// A subproblem is a row set with a remaining depth. The row set is kept as
// one list of rows per feature, sorted by that feature's value; splitting
// a list keeps it sorted, so the data are sorted only once. For each
// feature the candidate thresholds (between consecutive distinct values
// of the row set) are searched as a set of index intervals, pruned by the
// similarity lower bound (neighbourhood pruning, interval shrinking with
// the zero-error extremes, sub-interval pruning). Subproblems of depth two
// are solved per root threshold by one pass over the rows sorted by each
// second feature. Solved subproblems are cached by row set and depth.
//
// Depth-two scans are capped: each side is searched only below the bound
// plus the distance to the interval's far end (a larger lower bound would
// prune nothing more), and a side is evaluated only at the boundaries where
// its error can have dropped below its best (the split errors mixing two
// classes change by at most one per row; the others are the leaf's and
// never beat it), so most rows cost one count increment. The computed neighbours of a
// threshold also give each of its sides a floor: a side's optimum never
// falls when rows join it and falls by at most one per row that leaves, so
// a side (a depth-two scan, or a subproblem's search) that reaches its
// floor stops, with the result it would have had. Two kinds of depth-two call
// skip the row scan and return exactly its result: when the features have
// few values against the rows, tables of class counts by (first feature's
// value, second feature's value) are read one row per second feature
// (d2table.go); bit sets over each second feature's order (one per class
// beyond two) count 64 rows per popcount (d2bits.go). Both are built for a (subproblem,
// first feature) only after its first depth-two calls. At depth 3 the root
// search starts from a probe: every feature's best depth-one threshold with
// optimal subtrees, so that every feature is searched with a good incumbent
// and fewer depth-two calls are made (figures for these three in
// docs/benchmarks.md, "Figures behind constants and defaults").
//
// At depth 3 and more the root is searched best-first (bestfirst.go;
// with several workers bestfirst_parallel.go): the open threshold
// intervals of every feature wait in one queue and the one with the least
// lower bound goes first, so that the root's lower bound, the least over
// its open alternatives, rises as the search runs (Config.OnBound), and a
// gap (Config.AbsGap, Config.RelGap; one worker) can end it early.
// Config.DepthFirstRoot keeps the feature-after-feature order, which the
// parallel search below then splits by feature.
//
// # Parallel search
//
// With Config.Workers > 1 (and MaxGap 0, depth >= 2) the root's
// thresholds are searched by that many goroutines; below the root every
// worker runs the sequential search above. Workers 1 is exactly the
// sequential search.
//
// Work split with the best-first root (depth 3 and more): the workers
// take the root's intervals from its one queue, least bound first (see
// bestfirst_parallel.go). With the depth-first root (and at depth 2):
// at depth 3 the first tasks are the probe's (see probe), one
// per feature: its split at the best depth-one threshold with optimal
// subtrees, so that the probe is not a serial part of the work. Then one
// task per root feature, in the sequential order (by depth-one error),
// handed out from a shared queue; a worker searches its feature's
// thresholds with the interval search, starting at the feature's best
// depth-one threshold (a cache hit after the probe). When a worker waits
// and the queue is empty, every busy worker gives away the newer half of
// its pending intervals, each with the computed neighbour thresholds (and
// their lower bounds) it refers to, so a given-away interval is pruned as
// it would have been at home. (Cutting the thresholds into fixed chunks
// instead loses that pruning at every chunk's ends.) The search ends when
// every worker waits.
//
// Shared: the sorted root columns (read only), the work queue, the
// incumbent (its errors, the key of its root split and its tree), published
// through an atomic pointer and replaced under a mutex, which also
// serialises the reports of improving trees (strictly fewer errors only),
// and the subproblem cache (cache.go: sharded maps under mutexes; a stored
// value is replaced, never changed, and a store keeps a solution already
// there or else the larger lower bound): with a cache per worker, a
// subproblem solved by one worker would be solved again by the other, the
// probe's too (figures in docs/benchmarks.md, "Figures behind constants and
// defaults"). Each worker has its own scratch (level buffers, split views,
// side marks).
//
// Determinism: the key of a root split is (the feature's position in
// the order, the threshold's index), above every key of a probe
// candidate, (1, position, index); the leaf or the greedy seed (depth 4
// and more, computed before the workers start) has key 0. The probe's
// keys being the lowest, its best tree bounds every feature's search
// with the incumbent's errors, not one more, as the sequential search's
// starting tree does. A candidate replaces the incumbent when it has
// fewer errors, or as many and a smaller key. An interval (or a probe)
// is searched with the bound "the incumbent's errors" when the
// incumbent's key is below the interval's smallest, and one more
// otherwise, so a candidate is never pruned by, or rejected for, an
// incumbent it would win the tie against. A bound tightened by another
// worker therefore prunes only candidates that lose to the final
// incumbent, and the returned root split is the one of smallest key
// among the optimal ones, whatever the timing, the cache's contents and
// the number of workers. (The zero-error-extremes rule can prune an
// equally good threshold below a computed one; a parallel search
// applies it only above.) The subtrees a worker built depend on the
// bounds and cache it had; once the search is done the winning split's
// two subtrees are solved again, each by a worker of its own (both at
// once) with an empty cache of its own and the bound one above its
// errors, a function of its row set alone. So: the same optimal objective for every worker count,
// and the same tree for every count above one; the sequential search (1
// worker) returns the first optimal tree in its own order, which can be
// a different, equally good tree (with the same root split when the
// probe finds the optimum). With MaxGap > 0 the search is sequential at
// any count.
//
// Memory: every worker reserves its split buffers in the shared Budget;
// a refusal stops every worker and the search returns its incumbent
// with Result.Cause wrapping model.ErrMemoryLimit. A stop (context or
// memory) reaches every worker at its next look at the context; all
// workers have returned before Solve does, and a stopped search reports
// the incumbent and the irreducible-error bound, as the sequential one.
package contree

import (
	"context"
	"math"
	"slices"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/cacheline"
	"github.com/odtkit/odtkit/model"
)

// Input is the data the engine works on: numeric columns (any real
// values), labels in 0..Classes-1.
type Input struct {
	Columns [][]float64
	Labels  []int
	Classes int
}

// Config tunes a search. The zero value searches depth 0 (a leaf).
type Config struct {
	MaxDepth int
	// MaxGap is the largest number of errors the returned tree may make
	// above the optimum (0 = exact). Half is spent at a node, the other
	// half is split evenly over its two subtrees.
	MaxGap int
	// EtaLongest takes the longer side of the interval as η in the right
	// upper bound (the paper's text); false takes the shorter (its
	// Algorithm 1). Both are sound.
	EtaLongest bool
	// NoCache disables the subproblem cache (for tests).
	NoCache bool
	// Experimental knobs.
	FIFO, EtaSum, LargerFirst, NoOrder, NoFirstCut bool
	// NoOrderRoot and NoOrderBelow are NoOrder at the root only and
	// below it only.
	NoOrderRoot, NoOrderBelow bool
	// NoProbe skips the probe of the root's first thresholds (see probe).
	NoProbe bool
	// NoTable keeps the depth-two splits on row scans (see d2table.go).
	NoTable bool
	// NoBits keeps the two-class depth-two splits on row scans (see
	// d2bits.go).
	NoBits bool
	// NoNest leaves out the floors from nested sides (see nest.go).
	NoNest bool
	// Budget, when set, accounts the engine's big structures (the sorted
	// columns and the split buffers of each level, of every worker)
	// against the solve's memory cap; when one does not fit the search
	// stops with its best tree and Result.Cause wrapping
	// model.ErrMemoryLimit.
	Budget *backend.Budget
	// DepthFirstRoot searches the root's features one after the other,
	// as below the root, instead of best-first (bestfirst.go,
	// bestfirst_parallel.go; depth 3 and more): its bound rises only once
	// every feature is done.
	DepthFirstRoot bool
	// BoundProbes, at depth 4 and more with the sequential best-first
	// root, runs the bound phase first (boundphase.go): BoundProbes ×
	// (root features) probes, each side searched for a lower bound with
	// at most about BoundWork depth-two calls. 0: no bound phase.
	BoundProbes int
	BoundWork   int64
	// AbsGap and RelGap (a fraction of the incumbent's errors, at most 1)
	// stop the root's best-first search once the incumbent is within the
	// larger of them of the root's lower bound (0, 0: exact).
	AbsGap, RelGap float64
	// OnBound, when set, receives each rise of the root's lower bound in
	// the best-first search (called by one worker at a time).
	OnBound func(lb int)
	// Workers is the number of goroutines of the root search (0 or 1:
	// the sequential search). More than one searches the root's
	// thresholds in parallel when MaxGap is 0 and MaxDepth >= 2 (see the
	// package doc); otherwise the search is sequential.
	Workers int
	// knownErrors, when > 0, starts the one-worker best-first root search
	// as if a tree of that many errors were known: it measures how much of
	// a search's work a good first tree saves (TestExperiment's
	// CONTREE_UPPER). The search proves the same bound; when it finds no
	// tree below knownErrors, the returned tree is a placeholder leaf.
	knownErrors int
}

// Node is a tree node. Internal nodes send rows with
// Columns[Feature] <= Threshold to Low, the others to High.
type Node struct {
	Leaf      bool
	Class     int
	Feature   int
	Threshold float64
	Low, High *Node
	// Errors is the number of misclassified rows of the subproblem the
	// node was built for.
	Errors int
}

// Stats count the work of a search.
type Stats struct {
	Nodes       int64 // subproblems entered (depth >= 2)
	D2Calls     int64 // depth-two subroutine calls
	CacheHits   int64
	CacheStored int64
	SplitsTried int64 // thresholds evaluated in Branch
	BoundProbes int64 // thresholds probed by the bound phase
	BoundCut    int64 // sides of those probes whose search the phase's work cut short
	Tables      int64 // value tables built for depth-two splits (d2table.go)
	D2ByTable   int64 // depth-two calls answered from them
	D2ByBits    int64 // depth-two calls by bit sets (d2bits.go)
	AtFloor     int64 // subproblems settled by their neighbours' floor (see solve)
	NestCut     int64 // thresholds settled by nested sides' bounds, unsearched (nest.go)
}

// Result is the outcome of Solve.
type Result struct {
	Tree       *Node
	Errors     int
	LowerBound int
	Optimal    bool
	Stopped    bool // the context ended the search early
	// Gap is set when the search stopped with Tree within the gap
	// (Config.AbsGap, Config.RelGap) of LowerBound, not proven optimal.
	Gap   bool
	Stats Stats
	// Cause is nil, or why the search stopped itself: an error wrapping
	// model.ErrMemoryLimit when the Budget refused memory.
	Cause error
}

// entry is one row in a feature-sorted list: its rank among the
// feature's distinct values, and its row id and label packed in 32 bits
// (8 bytes an entry keeps the scans light on memory).
type entry struct {
	rank int32
	rl   uint32 // row<<labelBits | label
}

const (
	labelBits = 8
	// MaxClasses and MaxRows are the engine's limits.
	MaxClasses = 1 << labelBits
	MaxRows    = 1 << (32 - labelBits)
)

func (e entry) row() int32   { return int32(e.rl >> labelBits) }
func (e entry) label() int32 { return int32(e.rl & (MaxClasses - 1)) }

// view is a row set: one sorted list per feature plus class counts and
// a hash of the row set.
type view struct {
	n      int
	cols   [][]entry
	counts []int
	h1, h2 uint64
}

type cacheKey struct {
	h1, h2 uint64
	n      int32
	depth  int32
}

type cacheVal struct {
	lb   int
	sol  *Node // a solution found below the bound asked for (within the gap), or nil
	good bool
}

// interval is a range of candidate threshold indices [i..j] with the
// indices (into the computed list) of the nearest computed thresholds
// left (u) and right (v) of it, -1 when none.
type interval struct {
	i, j int32
	u, v int32
}

type computed struct {
	t        int32
	lbL, lbR int
}

// levelScratch is the per-recursion-level working memory of Branch.
type levelScratch struct {
	cum   []int32 // cum[t] = rows with rank <= t-th distinct value
	stack []interval
	comp  []computed
	order []int
	first []int
	ferr  []int
	left  view
	right view
	tab   d2tab
	bits  d2bits
	nest  *nestStore // the bounds recorded in this level's node's sides (nest.go)
}

type solver struct {
	_      cacheline.Pad // a worker's counters and flags share no line with another worker's
	ctx    context.Context
	cfg    Config
	p, k   int
	n      int
	vals   [][]float64
	rowH1  []uint64
	rowH2  []uint64
	gdist  []int32 // distinct values of each feature at the root
	lr     []int32 // row -> value index, scratch of buildTab
	side   []uint8
	levels []*levelScratch
	cache  map[cacheKey]*cacheVal // the sequential search's cache
	shc    *sharedCache           // or a parallel search's, shared by its workers
	stop   bool
	tick   int
	work   int // entries scanned since the context was last looked at
	cause  error
	held   int64 // bytes reserved in cfg.Budget
	stats  Stats
	onImpr func(*Node)
	seed   *Node // the root search's starting tree (nil: the leaf)
	best   *Node // the best tree of the root so far
	cl, cr []int
	cnt    []int
	fql    []int
	fqr    []int
	rel    [2][]int // each side's relevant classes in a k-class scan (see d2scan.relevant)
	d2hint [2]int   // the second features of d2split's last best trees (left, right)
	// d2floor holds lower bounds on the optimum of each side (left,
	// right) of the next depth-two call: a side whose best reaches its
	// floor is settled and scanned no further (see neighbourFloors).
	d2floor [2]int
	par     *shared // the parallel root search this worker takes part in, or nil
	// nestRun is set when the search records the bounds of nodes'
	// sides for the later sides that contain them (nest.go).
	nestRun bool
	// phaseEnd is the depth-two call count at which the bound phase's
	// search of one side ends (0: not in the bound phase); phaseOut is
	// set once it has.
	phaseEnd int64
	phaseOut bool
	_        cacheline.Pad
}

// Solve searches an optimal tree (within cfg.MaxGap) of depth at most
// cfg.MaxDepth. onImprove, when not nil, receives each improving tree of
// the root search. When ctx ends, the best tree so far is returned with
// Optimal=false and Stopped=true.
func Solve(ctx context.Context, in Input, cfg Config, onImprove func(*Node)) Result {
	n := len(in.Labels)
	s := &solver{ctx: ctx, cfg: cfg, p: len(in.Columns), k: in.Classes, n: n, vals: in.Columns, onImpr: onImprove}
	s.side = make([]uint8, n)
	s.hashRows()
	if !cfg.NoCache {
		s.cache = map[cacheKey]*cacheVal{}
	}
	s.cl = make([]int, s.k)
	s.cr = make([]int, s.k)
	s.fql = make([]int, s.k)
	s.fqr = make([]int, s.k)
	s.rel = [2][]int{make([]int, 0, s.k), make([]int, 0, s.k)}
	defer func() { cfg.Budget.Release(s.held) }()
	root := s.rootView(in)
	if cfg.MaxDepth < 0 {
		cfg.MaxDepth = 0
	}
	leaf := s.leaf(root)
	s.best = leaf
	if onImprove != nil {
		onImprove(leaf)
	}
	if s.stop {
		return Result{Tree: leaf, Errors: leaf.Errors, Stopped: true, Cause: s.cause, Stats: s.stats}
	}
	if cfg.MaxDepth >= greedyDepth && leaf.Errors > 0 {
		// A first tree for deep searches, whose first root threshold
		// alone may take long: it is reported and the root search
		// starts from it.
		if g := s.greedy(root, cfg.MaxDepth, 0); g != nil && g.Errors < leaf.Errors {
			s.seed, s.best = g, g
			if onImprove != nil {
				onImprove(g)
			}
		}
	}
	s.nestRun = !cfg.NoNest && cfg.MaxDepth >= 3
	parallel := cfg.Workers > 1 && cfg.MaxGap == 0 && cfg.MaxDepth >= 2 && cfg.AbsGap == 0 && cfg.RelGap == 0
	if s.probing() && !parallel && leaf.Errors > 0 && !s.stop {
		if t := s.probe(root, cfg.MaxDepth); t != nil && t.Errors < s.best.Errors {
			s.seed, s.best = t, t
			if onImprove != nil {
				onImprove(t)
			}
		}
	}
	if parallel && leaf.Errors > 0 && !s.stop {
		if s.bestFirst() && s.reserveRoot() {
			return s.parallelBestFirst(in, root, leaf, s.best)
		}
		return s.parallel(in, root, leaf)
	}
	if s.bestFirst() && leaf.Errors > 0 && !s.stop && s.reserveRoot() {
		start := leaf
		if s.seed != nil {
			start = s.seed
		}
		if cfg.knownErrors > 0 && cfg.knownErrors < start.Errors {
			// Not a tree: returned only when none better is found.
			start = &Node{Leaf: true, Errors: cfg.knownErrors}
		}
		o := s.rootSearch(root, cfg.MaxDepth, start)
		res := Result{Tree: o.best, Errors: o.best.Errors, LowerBound: min(o.lb, o.best.Errors), Stats: s.stats, Cause: s.cause}
		if s.stop {
			res.Stopped = true
			res.LowerBound = min(max(res.LowerBound, s.irreducible(in, root)), o.best.Errors)
			return res
		}
		res.Optimal = res.LowerBound >= res.Errors
		res.Gap = !res.Optimal && o.gap
		return res
	}
	lb, sol := s.solve(root, cfg.MaxDepth, leaf.Errors+1, 0, cfg.MaxGap, 0, true)
	res := Result{Stats: s.stats}
	if s.stop {
		// The best tree so far; the lower bound of an unfinished
		// search is the trivial one.
		res.Tree, res.Errors = s.best, s.best.Errors
		res.Stopped = true
		res.LowerBound = min(s.irreducible(in, root), s.best.Errors)
		res.Cause = s.cause
		return res
	}
	if sol == nil || sol.Errors > s.best.Errors {
		sol = s.best
	}
	res.Tree, res.Errors = sol, sol.Errors
	res.LowerBound = min(lb, sol.Errors)
	res.Optimal = sol.Errors == res.LowerBound
	return res
}

// irreducibleCells bounds the work of irreducible (rows × columns): a
// bound computed after a stop must not delay it much.
const irreducibleCells = 1 << 22

// irreducible is the error no tree avoids: rows equal on every column
// fall in the same leaf, so all but the largest class among them are
// misclassified. Rows are grouped by a hash of their value ranks and
// compared value by value (a collision only splits a group, which keeps
// the bound valid). It returns 0 above irreducibleCells or when the
// sorted columns were not built.
func (s *solver) irreducible(in Input, root *view) int {
	if s.n*s.p > irreducibleCells || s.n == 0 || len(root.cols) == 0 || root.cols[0] == nil {
		return 0
	}
	h := make([]uint64, s.n)
	for f, col := range root.cols {
		for _, e := range col {
			x := uint64(f)<<32 ^ uint64(e.rank)
			h[e.row()] += splitmix(&x)
		}
	}
	same := func(a, b int) bool {
		for _, c := range in.Columns {
			if c[a] != c[b] {
				return false
			}
		}
		return true
	}
	first := make(map[uint64]int32, s.n)
	group := make([]int32, s.n) // the first row of each row's group
	for r := range s.n {
		group[r] = int32(r)
		if o, ok := first[h[r]]; ok {
			if same(int(o), r) {
				group[r] = o
			}
			continue
		}
		first[h[r]] = int32(r)
	}
	// Class counts per group, keyed by its first row.
	cnt := map[int64]int{}
	size := map[int32]int{}
	for r, g := range group {
		size[g]++
		cnt[int64(g)*int64(s.k)+int64(in.Labels[r])]++
	}
	irr := 0
	for g, n := range size {
		if n < 2 {
			continue
		}
		top := 0
		for c := range s.k {
			top = max(top, cnt[int64(g)*int64(s.k)+int64(c)])
		}
		irr += n - top
	}
	return irr
}

// hashRows gives every row its two random hashes; a view's h1 and h2
// are the sums of its rows', and identify its row set (the cache's key,
// and the depth-two bit sets' reuse).
func (s *solver) hashRows() {
	s.rowH1 = make([]uint64, s.n)
	s.rowH2 = make([]uint64, s.n)
	x := uint64(0x9e3779b97f4a7c15)
	for r := range s.n {
		s.rowH1[r] = splitmix(&x)
		s.rowH2[r] = splitmix(&x)
	}
}

func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// rootView sorts every column once.
// When ctx ends or the columns do not fit the budget it stops the solver
// and returns the view with its counts only.
func (s *solver) rootView(in Input) *view {
	v := &view{n: s.n, cols: make([][]entry, s.p), counts: make([]int, s.k)}
	for r, l := range in.Labels {
		v.counts[l]++
		v.h1 += s.rowH1[r]
		v.h2 += s.rowH2[r]
	}
	if err := s.reserve(int64(s.p)*int64(s.n)*8+int64(s.n)*(4+1+16), "contree sorted columns"); err != nil {
		return v
	}
	idx := make([]int32, s.n)
	s.gdist = make([]int32, s.p)
	for f := range s.p {
		if s.ctx.Err() != nil {
			s.stop = true
			return v
		}
		col := in.Columns[f]
		for r := range idx {
			idx[r] = int32(r)
		}
		sortByValue(idx, col)
		es := make([]entry, s.n)
		rank := int32(0)
		for i, r := range idx {
			if i > 0 && col[r] != col[idx[i-1]] {
				rank++
			}
			es[i] = entry{rank: rank, rl: uint32(r)<<labelBits | uint32(in.Labels[r])}
		}
		v.cols[f] = es
		s.gdist[f] = rank + 1
	}
	return v
}

// level returns the scratch of recursion level l, allocating it once
// (its split views on the first split, see splitViews).
func (s *solver) level(l int) *levelScratch {
	for len(s.levels) <= l {
		ls := &levelScratch{}
		mk := func() view {
			return view{cols: make([][]entry, s.p), counts: make([]int, s.k)}
		}
		ls.left, ls.right = mk(), mk()
		s.levels = append(s.levels, ls)
	}
	return s.levels[l]
}

// splitViews makes room in ls's split views for splitting a view of n
// rows (each side needs n entries per column while it is written). It
// stops the solver and returns false when the budget refuses them.
func (s *solver) splitViews(ls *levelScratch, n int) bool {
	if have := cap(ls.left.cols[0]); have >= n {
		return true
	}
	have := int64(cap(ls.left.cols[0]))
	if err := s.reserve(2*int64(s.p)*(int64(n)-have)*8, "contree split buffers"); err != nil {
		return false
	}
	for f := range s.p {
		ls.left.cols[f] = make([]entry, 0, n)
		ls.right.cols[f] = make([]entry, 0, n)
	}
	return true
}

// reserve accounts n bytes in the budget until Solve returns; when it
// does not fit it stops the solver with the budget's error as the cause.
func (s *solver) reserve(n int64, what string) error {
	if err := s.cfg.Budget.Reserve(n, what); err != nil {
		s.stop, s.cause = true, err
		return err
	}
	s.held += n
	return nil
}

// checkWork is the number of scanned entries (about a millisecond of
// work) after which check looks at the context.
const checkWork = 1 << 18

// check looks at the context every 256 calls or after checkWork entries
// of scanning, whichever comes first.
func (s *solver) check() bool {
	s.tick++
	if s.tick&255 == 0 || s.work >= checkWork {
		s.work = 0
		if s.ctx.Err() != nil || (s.par != nil && s.par.halted.Load()) {
			s.stop = true
		}
	}
	return s.stop
}

func argmax(c []int) (int, int) {
	b := 0
	for y := 1; y < len(c); y++ {
		if c[y] > c[b] {
			b = y
		}
	}
	return b, c[b]
}

func (s *solver) leaf(v *view) *Node {
	c, m := argmax(v.counts)
	return &Node{Leaf: true, Class: c, Feature: -1, Errors: v.n - m}
}

// solve returns a lower bound on the fewest errors of a tree of depth d on
// v and a tree; when the tree's errors are below ub it is within gap of
// the optimum. A nil tree or one with ub errors or more means no tree
// below ub was found; the lower bound is then valid all the same.
//
// floor is a lower bound on that optimum known to the caller (0 when
// none): the search ends as soon as it has a tree that good. Since a
// search keeps its first tree of the least errors, the tree is the one it
// returns without the floor.
func (s *solver) solve(v *view, d, ub, floor, gap, lvl int, isRoot bool) (int, *Node) {
	leaf := s.leaf(v)
	if d == 0 || leaf.Errors == 0 {
		return leaf.Errors, leaf
	}
	if leaf.Errors <= floor {
		s.stats.AtFloor++
		return leaf.Errors, leaf
	}
	if ub <= floor {
		if floor > 0 {
			s.stats.AtFloor++
		}
		return floor, nil
	}
	if d == 1 {
		t := s.depthOne(v)
		return t.Errors, t
	}
	if s.check() {
		return 0, nil
	}
	s.stats.Nodes++
	var key cacheKey
	var ce *cacheVal
	caching := s.cacheOn() && !isRoot
	if caching {
		key = cacheKey{h1: v.h1, h2: v.h2, n: int32(v.n), depth: int32(d)}
		if e := s.cacheGet(key); e != nil {
			if e.good || e.lb >= ub {
				s.stats.CacheHits++
				return e.lb, e.sol
			}
			ce = e
			floor = max(floor, e.lb)
		}
	}
	lb, sol := s.search(v, d, ub, floor, gap, lvl, isRoot, leaf)
	if s.stop {
		return 0, nil
	}
	if ce != nil {
		lb = max(lb, ce.lb)
	}
	if caching {
		// A search the bound phase cut short proves its bound only.
		good := sol != nil && sol.Errors < ub && !s.phaseOut
		e := &cacheVal{lb: lb, good: good}
		if good {
			e.sol = sol
		}
		s.cachePut(key, e)
	}
	return lb, sol
}

// branchState is the running best of one subproblem's search.
type branchState struct {
	ub       int   // exclusive bound asked for by the caller
	best     *Node // best tree so far (starts as the leaf)
	floor    int   // a lower bound on the optimum: a tree this good ends the search
	gapHere  int
	gapChild int
	lvl      int
	isRoot   bool
	done     bool // a tree at the floor was found
	// tight solves a threshold's sides under the prune level (bound
	// minus gapHere) instead of the bound: the root's best-first search
	// with a gap seeks only trees that improve by more than the gap.
	tight bool
	// par is the shared incumbent of a parallel root search (nil in a
	// sequential one) and q the position of the searched feature in its
	// order: the root's bound then comes from par (see shared.bound).
	par *shared
	q   int
}

// bound is the exclusive bound that a split must beat to improve. In a
// parallel root search it is the bound for the thresholds from index i
// on (see shared.bound).
func (b *branchState) bound(i int32) int {
	if b.par != nil {
		return b.par.bound(key(b.q, i))
	}
	return min(b.ub, b.best.Errors)
}

func (s *solver) search(v *view, d, ub, floor, gap, lvl int, isRoot bool, leaf *Node) (int, *Node) {
	gc := gap / 4
	st := &branchState{ub: ub, best: leaf, floor: floor, gapHere: gap - 2*gc, gapChild: gc, lvl: lvl, isRoot: isRoot}
	if isRoot && s.seed != nil {
		st.best = s.seed
	}
	if d >= 3 && !isRoot && s.phaseEnd > 0 {
		// In the bound phase subproblems are searched best-first, whose
		// bound is valid when the phase's work runs out.
		o := s.bestFirstSearch(v, d, ub, lvl, false, leaf)
		if s.stop {
			return 0, nil
		}
		return o.lb, o.best
	}
	if d == 2 {
		// d2split's scan hint starts afresh in every depth-two search, so
		// the trees it returns depend on that search alone (the
		// parallel search's determinism needs that).
		s.d2hint = [2]int{-1, -1}
	}
	ls := s.level(lvl)
	if s.nestRun && d >= 3 {
		s.nestReset(lvl)
	}
	s.featureOrder(v, ls, s.natural(isRoot))
	for _, f := range ls.order {
		if st.done || s.stop {
			break
		}
		s.branch(v, d, f, ls.first[f], st, nil)
	}
	if s.stop {
		return 0, nil
	}
	if st.best.Errors < ub {
		return max(0, st.best.Errors-gap), st.best
	}
	return max(0, ub-gap), st.best
}

// natural tells whether the features of a subproblem (the root or one
// below it) are searched in their natural order, each from the middle of
// its thresholds.
func (s *solver) natural(isRoot bool) bool {
	return s.cfg.NoOrder || (isRoot && s.cfg.NoOrderRoot) || (!isRoot && s.cfg.NoOrderBelow)
}

// featureOrder fills ls.order with v's features in search order (by the
// errors of their best depth-one split, ls.ferr, unless natural) and
// ls.first with the number of rows going low in that split (0 when
// natural: the search starts in the middle).
func (s *solver) featureOrder(v *view, ls *levelScratch, natural bool) {
	ls.order = ls.order[:0]
	ls.first = ls.first[:0]
	ls.ferr = ls.ferr[:0]
	for f := range s.p {
		e, cut := 0, 0
		if !natural {
			e, cut = s.bestCut(v.cols[f], v.counts)
		}
		ls.order = append(ls.order, f)
		ls.first = append(ls.first, cut)
		ls.ferr = append(ls.ferr, e)
	}
	if !natural {
		slices.SortStableFunc(ls.order, func(a, b int) int { return ls.ferr[a] - ls.ferr[b] })
	}
}

// thresholds fills the cum array for feature f of v and returns the
// number of candidate thresholds m (cum[0..m-1]).
func thresholds(col []entry, cum []int32) ([]int32, int) {
	cum = cum[:0]
	for i := 1; i < len(col); i++ {
		if col[i].rank != col[i-1].rank {
			cum = append(cum, int32(i))
		}
	}
	return cum, len(cum)
}

// firstAtLeast is the first t in [lo, hi] with cum[t] >= x, or hi+1.
func firstAtLeast(cum []int32, lo, hi int32, x int64) int32 {
	for lo <= hi {
		mid := int32(uint32(lo+hi) >> 1)
		if int64(cum[mid]) >= x {
			hi = mid - 1
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// lastAtMost is the last t in [lo, hi] with cum[t] <= x, or lo-1.
func lastAtMost(cum []int32, lo, hi int32, x int64) int32 {
	for lo <= hi {
		mid := int32(uint32(lo+hi) >> 1)
		if int64(cum[mid]) <= x {
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return hi
}

// branch searches the thresholds of feature f (Algorithm 1), or in a
// parallel root search those of the task given (see parallel.go).
func (s *solver) branch(v *view, d, f, firstCut int, st *branchState, tk *task) {
	ls := s.level(st.lvl)
	col := v.cols[f]
	var m int
	ls.cum, m = thresholds(col, ls.cum)
	if m == 0 {
		return
	}
	ls.tab.reset(f)
	ls.bits.reset()
	fs := &featSearch{f: f, col: col, cum: ls.cum, m: m, ml: 0, mr: int32(m - 1), firstCut: firstCut}
	if tk != nil && tk.ivs != nil {
		ls.stack = append(ls.stack[:0], tk.ivs...)
		fs.comp = append(ls.comp[:0], tk.comp...)
		fs.mr = tk.mr
	} else {
		ls.stack = append(ls.stack[:0], interval{i: 0, j: int32(m - 1), u: -1, v: -1})
		fs.comp = ls.comp[:0]
	}
	push := func(iv interval) { ls.stack = append(ls.stack, iv) }
	qh := 0
	for len(ls.stack) > qh && !st.done {
		if s.stop {
			break
		}
		if st.par != nil && len(ls.stack)-qh >= 2 && st.par.hungry.Load() {
			ls.comp = fs.comp
			st.par.donate(st.q, f, ls, qh, fs.mr)
		}
		var iv interval
		if s.cfg.FIFO {
			iv = ls.stack[qh]
			qh++
			if qh == len(ls.stack) {
				ls.stack, qh = ls.stack[:0], 0
			}
		} else {
			iv = ls.stack[len(ls.stack)-1]
			ls.stack = ls.stack[:len(ls.stack)-1]
		}
		s.step(v, d, fs, iv, st, ls, push)
	}
	ls.comp = fs.comp
}

// featSearch is the state of the search of one feature's thresholds at
// a node: the thresholds (cum), those computed with their sides' lower
// bounds, the range left by the zero-error extremes (ml..mr) and the
// threshold to start at (firstCut rows low; 0: the middle).
type featSearch struct {
	f        int
	col      []entry
	cum      []int32
	comp     []computed
	m        int
	ml, mr   int32
	firstCut int
}

// stepOut is what one step of a threshold search established: pruned
// when every threshold of the interval (or all that were left out of
// it) has a lower bound of at least the prune level it returns in
// prune; computed when a threshold was evaluated, with its lower bound
// lb (the sum of its sides' bounds).
type stepOut struct {
	pruned   bool
	prune    int
	computed bool
	lb       int
}

// step searches the interval iv of a feature (one turn of Algorithm 1's
// loop): shrinks and prunes it against the bound, evaluates its middle
// (or first) threshold, improves st.best, and hands the two remaining
// halves to push.
func (s *solver) step(v *view, d int, fs *featSearch, iv interval, st *branchState, ls *levelScratch, push func(interval)) stepOut {
	var out stepOut
	cum, col, f, m := fs.cum, fs.col, fs.f, fs.m
	bound := st.bound(iv.i)
	prune := bound - st.gapHere // a split with lower bound >= prune cannot improve enough
	out.prune = prune
	i, j := max(iv.i, fs.ml), min(iv.j, fs.mr)
	lbLu, lbRv := 0, 0
	// Interval shrinking (eq. 11, upper end corrected to use v).
	if iv.u >= 0 {
		c := fs.comp[iv.u]
		lbLu = c.lbL
		if delta := c.lbL + c.lbR - prune + 1; delta > 1 {
			i = max(i, firstAtLeast(cum, i, j, int64(cum[c.t])+int64(delta)))
			out.pruned = true
		}
	}
	if iv.v >= 0 {
		c := fs.comp[iv.v]
		lbRv = c.lbR
		if delta := c.lbL + c.lbR - prune + 1; delta > 1 {
			j = min(j, lastAtMost(cum, i, j, int64(cum[c.t])-int64(delta)))
			out.pruned = true
		}
	}
	if i > j {
		return out
	}
	// Sub-interval pruning (eq. 12).
	if lbLu+lbRv >= prune {
		out.pruned = true
		return out
	}
	w := (i + j) / 2
	if fs.firstCut > 0 && !s.cfg.NoFirstCut {
		// Start at the best depth-one threshold: a good first bound.
		if w0 := firstAtLeast(cum, 0, int32(m-1), int64(fs.firstCut)); w0 >= i && w0 <= j {
			w = w0
		}
		fs.firstCut = 0
	}
	s.stats.SplitsTried++
	var lbL, lbR int
	var solL, solR *Node
	var zeroL, zeroR bool // a side has a tree of no error
	if d == 2 {
		// A serial search builds the trees only when they improve
		// on its incumbent.
		keep := math.MaxInt
		if st.par == nil {
			keep = st.best.Errors
		}
		// Each side is capped one above the bound plus the rows to
		// the interval's far end: a lower bound that large already
		// prunes the whole interval around w (interval shrinking
		// and sub-interval pruning), so the cap loses no pruning.
		span := max(int(cum[w]-cum[i]), int(cum[j]-cum[w]))
		// A side that reaches its floor cannot improve: its scans
		// stop, with the same result.
		fl, fr := s.neighbourFloors(fs, iv, cum[w])
		ps := s.parentNest(st.lvl)
		var gr int32
		if ps != nil {
			gr = col[cum[w]-1].rank
			nl, nr := nestFloors(ps, f, gr)
			fl, fr = max(fl, nl), max(fr, nr)
			if fl+fr >= prune {
				s.nestCut(ps, fs, iv, i, j, w, gr, fl, fr, push, &out)
				return out
			}
		}
		s.d2floor = [2]int{fl, fr}
		// A side is capped at that less the other side's floor: a
		// bound at its cap makes the sum that large already.
		limit := bound + span + 1
		lim := [2]int{max(1, limit-fr), max(1, limit-fl)}
		if s.tabDue(v, &ls.tab, f) {
			lbL, lbR, solL, solR = s.d2splitTab(v, &ls.tab, int(w), lim, keep)
		} else if s.bitsDue(v, &ls.bits, f) {
			lbL, lbR, solL, solR = s.d2splitBits(v, &ls.bits, f, int(cum[w]), lim, keep)
		} else {
			lbL, lbR, solL, solR = s.d2split(v, f, int(cum[w]), lim, keep)
		}
		s.d2floor = [2]int{}
		if s.stop {
			return out
		}
		// The cap is at least 1, so a bound of 0 is a side's optimum.
		zeroL, zeroR = lbL == 0, lbR == 0
		if ps != nil {
			// A capped side's floor may be the stronger bound (an
			// optimum below the cap is at least its floor).
			lbL, lbR = max(lbL, fl), max(lbR, fr)
			s.nestRecord(ps, f, gr, lbL, lbR)
		}
	} else {
		ub := bound
		if st.tight {
			// Only trees that beat the prune level are sought: a
			// threshold is settled by a bound at that level.
			ub = prune
		}
		fl1, fl2 := s.neighbourFloors(fs, iv, cum[w])
		// When v is a side being searched in its parent's store, its
		// threshold's parts take floors from the sides it contains.
		ps := s.parentNest(st.lvl)
		gr := col[cum[w]-1].rank // the threshold's value rank
		if ps != nil {
			nl, nr := nestFloors(ps, f, gr)
			fl1, fl2 = max(fl1, nl), max(fl2, nr)
			if fl1+fl2 >= prune {
				s.nestCut(ps, fs, iv, i, j, w, gr, fl1, fl2, push, &out)
				return out
			}
		}
		left, right := s.splitView(v, f, int(cum[w]), st.lvl)
		if left == nil {
			return out
		}
		var eta int
		zi, zj, zw := int(cum[i]), int(cum[j]), int(cum[w])
		if s.cfg.EtaLongest {
			eta = max(zw-zi, zj-zw)
		} else {
			eta = min(zw-zi, zj-zw)
		}
		// The larger side is solved first with the bound; the other
		// side's bound is what remains plus η, so that its solution
		// is more often exact and prunes more neighbours.
		largerLeft := !s.cfg.LargerFirst || left.n >= right.n
		first, second := left, right
		if !largerLeft {
			first, second = right, left
		}
		if !largerLeft {
			fl1, fl2 = fl2, fl1
		}
		// Each side's search records its bounds in the node's store.
		// (Not at a parallel root, whose thresholds the workers share
		// out as it happens: its sides' bounds would depend on that.)
		var own *nestStore
		if s.nestRun && (st.par == nil || !st.isRoot) {
			own = ls.nest
		}
		if own != nil {
			s.nestBegin(own, f, gr, !largerLeft)
		}
		ub1 := ub
		if s.cfg.EtaSum {
			// The first side is capped as the second will be: at the
			// bound less the second's floor, plus η.
			ub1 = min(ub, ub-fl2+eta)
		}
		lb1, sol1 := s.solve(first, d-1, ub1, fl1, st.gapChild, st.lvl+1, false)
		if own != nil {
			own.cur = nil
		}
		if s.stop {
			return out
		}
		ub2 := max(ub-lb1, eta)
		if s.cfg.EtaSum {
			ub2 = ub - lb1 + eta
		}
		var lb2 int
		var sol2 *Node
		if ub2 > 0 { // otherwise the second side keeps the trivial bound 0 and no tree
			if own != nil {
				s.nestBegin(own, f, gr, largerLeft)
			}
			lb2, sol2 = s.solve(second, d-1, ub2, fl2, st.gapChild, st.lvl+1, false)
			if own != nil {
				own.cur = nil
			}
			if s.stop {
				return out
			}
		}
		if sol1 != nil && sol1.Errors >= ub {
			sol1 = nil
		}
		if sol2 != nil && sol2.Errors >= ub2 {
			sol2 = nil
		}
		if largerLeft {
			lbL, solL, lbR, solR = lb1, sol1, lb2, sol2
		} else {
			lbL, solL, lbR, solR = lb2, sol2, lb1, sol1
		}
		zeroL = solL != nil && solL.Errors == 0
		zeroR = solR != nil && solR.Errors == 0
		if ps != nil {
			s.nestRecord(ps, f, gr, lbL, lbR)
		}
	}
	out.computed, out.lb = true, lbL+lbR
	if st.par != nil {
		if solL != nil && solR != nil {
			st.par.offer(solL.Errors+solR.Errors, key(st.q, w), func() *Node {
				return s.splitNode(col, f, int(cum[w]), solL, solR)
			})
		}
	} else if solL != nil && solR != nil && solL.Errors+solR.Errors < st.best.Errors {
		st.best = s.splitNode(col, f, int(cum[w]), solL, solR)
		if st.isRoot {
			s.best = st.best
			if s.onImpr != nil {
				s.onImpr(st.best)
			}
		}
		if st.best.Errors <= st.floor {
			if st.floor > 0 {
				s.stats.AtFloor++
			}
			st.done = true
			return out
		}
	}
	// Zero-error extremes (Theorem 2). A zero-error left side at w
	// leaves the thresholds below w no better than w, but possibly as
	// good: a parallel root search, whose ties go to the lowest
	// threshold, keeps them.
	if zeroL && st.par == nil {
		fs.ml = max(fs.ml, w+1)
	}
	if zeroR {
		fs.mr = min(fs.mr, w-1)
	}
	fs.computedAt(iv, i, j, w, lbL, lbR, push)
	return out
}

// computedAt records threshold w of the interval iv (shrunk to i..j) as
// computed with its sides' bounds lbL and lbR, and hands the two
// remaining halves to push. Neighbourhood pruning happens when they are
// popped (interval shrinking from w with the then current bound
// subsumes it).
func (fs *featSearch) computedAt(iv interval, i, j, w int32, lbL, lbR int, push func(interval)) {
	ci := int32(len(fs.comp))
	fs.comp = append(fs.comp, computed{t: w, lbL: lbL, lbR: lbR})
	if w+1 <= j {
		push(interval{i: w + 1, j: j, u: ci, v: iv.v})
	}
	if i <= w-1 {
		push(interval{i: i, j: w - 1, u: iv.u, v: ci})
	}
}

// neighbourFloors is lower bounds on the optima of the two sides (left,
// right) of the threshold leaving cut rows left, from the computed
// neighbours of its interval iv. A side's optimum never falls when rows
// join it and falls by at most one per row taken away, so a neighbour
// whose left side is a subset of this one's bounds the left side by its
// own bound, and one whose left side is larger bounds it by its bound
// less the rows between (the right side mirrored).
func (s *solver) neighbourFloors(fs *featSearch, iv interval, cut int32) (fl, fr int) {
	for _, ci := range [2]int32{iv.u, iv.v} {
		if ci < 0 {
			continue
		}
		c := fs.comp[ci]
		t := fs.cum[c.t]
		if t <= cut {
			fl = max(fl, c.lbL)
			fr = max(fr, c.lbR-int(cut-t))
		} else {
			fl = max(fl, c.lbL-int(t-cut))
			fr = max(fr, c.lbR)
		}
	}
	return fl, fr
}

// splitNode is the tree that splits col's rows into the first cut
// (threshold midway between the values of rows cut-1 and cut) and the
// rest, with subtrees lo and hi.
func (s *solver) splitNode(col []entry, f, cut int, lo, hi *Node) *Node {
	a, b := col[cut-1].row(), col[cut].row()
	t := midpoint(s.vals[f][a], s.vals[f][b])
	return &Node{Feature: f, Threshold: t, Low: lo, High: hi, Errors: lo.Errors + hi.Errors}
}

// midpoint returns a threshold t with a <= t < b near the middle.
func midpoint(a, b float64) float64 { return model.Midpoint(a, b) }

// probeDepth is the depth at which Solve probes the root (see probe).
const probeDepth = 3

// probing tells whether the root search starts with a probe (a parallel
// one probes each feature in a task of its own).
func (s *solver) probing() bool {
	return s.cfg.MaxDepth == probeDepth && s.cfg.MaxGap == 0 && !s.cfg.NoProbe
}

// probe returns the best tree among the splits of v at each feature's best
// depth-one threshold, with optimal subtrees of depth d-1, or nil (none
// better than a leaf, or stopped). The root search starts from it: every
// feature is then searched with the best incumbent that these cheap
// candidates give, instead of only those of the features before it (when
// the best root feature comes late in the depth-one order, the features
// before it would be searched with a weak bound; figures in
// docs/benchmarks.md, "Figures behind constants and defaults"). The
// subtrees it solves are cached, so the root search finds them again at no
// cost when it evaluates the same thresholds first.
func (s *solver) probe(v *view, d int) *Node {
	ls := s.level(0)
	s.featureOrder(v, ls, false)
	var best *Node
	for _, f := range ls.order {
		cut := ls.first[f]
		if cut == 0 {
			continue
		}
		ub := s.best.Errors
		if best != nil {
			ub = best.Errors
		}
		lo, hi := s.probeCut(v, d, f, cut, ub)
		if s.stop {
			return nil
		}
		if lo != nil {
			best = s.splitNode(v.cols[f], f, cut, lo, hi)
		}
	}
	return best
}

// probeCut solves the two subtrees of depth d-1 of the split of v into
// the first cut rows of feature f and the rest, the larger side first;
// it returns them when their errors sum below ub, nil otherwise (or
// when stopped).
func (s *solver) probeCut(v *view, d, f, cut, ub int) (lo, hi *Node) {
	left, right := s.splitView(v, f, cut, 0)
	if left == nil || s.stop {
		return nil, nil
	}
	first, second := left, right
	if right.n > left.n {
		first, second = right, left
	}
	_, sol1 := s.solve(first, d-1, ub, 0, 0, 1, false)
	if s.stop || sol1 == nil || sol1.Errors >= ub {
		return nil, nil
	}
	_, sol2 := s.solve(second, d-1, ub-sol1.Errors, 0, 0, 1, false)
	if s.stop || sol2 == nil || sol1.Errors+sol2.Errors >= ub {
		return nil, nil
	}
	if first != left {
		return sol2, sol1
	}
	return sol1, sol2
}

// greedyDepth is the least depth for which Solve builds a greedy first
// tree. At depth 3 the first root threshold (the best depth-one cut with
// both depth-two subtrees solved exactly) already gives as good a tree.
const greedyDepth = 4

// greedy returns a tree of depth at most d on v: the optimal depth-two
// tree when d <= 2; otherwise the root split of the optimal depth-two
// tree with greedy subtrees of depth d-1 below it. Its errors are at
// most the depth-two optimum of v. It returns nil when the search was
// stopped.
func (s *solver) greedy(v *view, d, lvl int) *Node {
	_, t := s.solve(v, min(d, 2), v.n+1, 0, 0, lvl, false)
	if s.stop || t == nil {
		return nil
	}
	if d <= 2 || t.Leaf {
		return t
	}
	cut := 0
	vals := s.vals[t.Feature]
	for _, e := range v.cols[t.Feature] {
		if vals[e.row()] <= t.Threshold {
			cut++
		}
	}
	left, right := s.splitView(v, t.Feature, cut, lvl)
	if left == nil {
		return nil
	}
	lo := s.greedy(left, d-1, lvl+1)
	if lo == nil {
		return nil
	}
	hi := s.greedy(right, d-1, lvl+1)
	if hi == nil {
		return nil
	}
	return &Node{Feature: t.Feature, Threshold: t.Threshold, Low: lo, High: hi, Errors: lo.Errors + hi.Errors}
}
