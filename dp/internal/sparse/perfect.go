package sparse

import (
	"cmp"
	"context"
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// PerfectConfig is a consistent-tree problem on a binary view: the least
// depth of a tree with no training error (the min-depth objective) and,
// with Size, the fewest leaves among the trees of that depth (min-size);
// with Nodes, the fewest leaves at any depth (min-nodes).
type PerfectConfig struct {
	// Size asks for the fewest nodes at the least depth.
	Size bool
	// Nodes asks for the fewest nodes at any depth within MaxDepth (see
	// SolvePerfect's last phase).
	Nodes bool
	// MaxDepth, when positive, is the largest depth tried (DepthCap):
	// no consistent tree within it is Infeasible.
	MaxDepth int
	// LeafOnly caps the depth at 0: only a single leaf is tried.
	LeafOnly bool
	// MaxNodes, when positive, admits only trees of at most that many
	// internal nodes at every depth tried.
	MaxNodes int
	// MinSupport is the least number of rows (of Keep) in a leaf.
	MinSupport int
	// Keep holds the rows the tree must classify (nil: all rows).
	Keep model.Bitset
	// Budget accounts the caches (nil: no cap).
	Budget *backend.Budget
	// Report, when set, receives each improving tree.
	Report func(g *model.Graph)
}

// PerfectResult is the outcome of SolvePerfect.
type PerfectResult struct {
	// Tree is the best consistent tree found (nil when none); Optimal
	// says whether it is proven optimal for the objective.
	Tree    *model.Graph
	Optimal bool
	// Infeasible: no consistent tree within MaxDepth, MaxNodes and
	// MinSupport exists (proven).
	Infeasible bool
	// DepthLB is a proven lower bound on the depth of a consistent tree
	// (within MaxNodes): every depth below it was refuted. LeavesLB is
	// one on the leaves of a consistent tree of the least depth (0 when
	// the size phase did not start); with Nodes, one on the leaves of a
	// consistent tree of any depth.
	DepthLB, LeavesLB int
	// Branches counts the cached branches of both searches.
	Branches int
	// MemoryStop, when not nil, is why the search stopped early: the
	// caches reached the budget (it wraps model.ErrMemoryLimit).
	MemoryStop error
}

// noTree is the leaf count of a branch without a consistent tree.
const noTree = 1 << 30

// node is what the searches know of a row set. The depth search: no
// consistent tree of depth below lb; one of depth ub splitting first on
// test (ub = noTree: none known). The size search: sizes[d] for depth d.
type node struct {
	lb, ub, test int32
	sizes        []sizeRec
}

// sizeRec is what the size search knows of a row set at a depth: exact,
// the fewest leaves of a consistent tree, whose root splits on test;
// else a lower bound on them (0: nothing known).
type sizeRec struct {
	leaves int32
	test   int32
	exact  bool
}

// nodeBytes is the memory of a node beside its key; sizeRecBytes that of
// one size record.
const (
	nodeBytes    = 48
	sizeRecBytes = 12
)

// perfect is the state of one SolvePerfect.
type perfect struct {
	ctx   context.Context
	v     *model.BinaryView
	cfg   PerfectConfig
	tests []int // the view's tests less duplicates, complements, constants
	// groups partitions tests: the thresholds of one numeric column in
	// increasing order, each other test alone.
	groups [][]int
	nodes  map[string]*node
	key    []byte
	// scratch bitsets per remaining depth: the depth search's and the
	// size search's (a size branch at depth d asks the depth search about
	// its children at d−1 while it holds them).
	dscratch, sscratch [][2]model.Bitset
	// improved is the best tree the size search has found at the root
	// (nil: none yet), reported as found.
	improved       *model.Graph
	steps          int
	stopped        bool
	memErr         error
	reserved, used int64
}

// SolvePerfect finds the least depth of a tree with no error on the kept
// rows (iterative deepening: each depth is refuted or met by an exact
// search of the trees of that depth), and with cfg.Size the fewest leaves
// at that depth (branch and bound). Both searches cache their branches by
// row set; a branch whose rows hold c classes needs ⌈log2 c⌉ levels and c
// leaves. When ctx ends or the caches reach the budget it returns the
// best tree found and the bounds proven so far.
func SolvePerfect(ctx context.Context, v *model.BinaryView, cfg PerfectConfig) *PerfectResult {
	cfg.MinSupport = max(1, cfg.MinSupport)
	if cfg.Keep == nil {
		cfg.Keep = model.FullBitset(v.N)
	}
	s := &perfect{ctx: ctx, v: v, cfg: cfg, nodes: map[string]*node{}}
	defer func() { cfg.Budget.Release(s.reserved) }()
	res := &PerfectResult{}
	tests, err := v.KeptTests(ctx)
	if err != nil {
		return res // stopped before any search: nothing proven
	}
	s.tests = tests
	s.groups = groupTests(v, s.tests)
	root := cfg.Keep
	_, nc, n := s.classes(root)
	if n == 0 {
		// No row to classify: a single leaf of any class.
		b := model.NewBuilder(v.Data, model.KindTree)
		res.Tree, res.Optimal, res.LeavesLB = b.Graph(b.Leaf(0)), true, 1
		return res
	}
	res.DepthLB = ceilLog2(nc)
	// A path never repeats a test (its second branch would be empty), and
	// every split sends rows both ways: beyond these depths nothing new.
	last := min(len(s.tests), n-1)
	if cfg.MaxNodes > 0 {
		last = min(last, cfg.MaxNodes)
	}
	if cfg.MaxDepth > 0 {
		last = min(last, cfg.MaxDepth)
	}
	if cfg.LeafOnly {
		last = 0
	}
	found := -1 // the least depth
	leaves := 0 // with MaxNodes: the fewest leaves at that depth
	for d := res.DepthLB; d <= last; d++ {
		ok := s.feasible(root, d)
		if ok && cfg.MaxNodes > 0 {
			l := s.minLeaves(root, d, cfg.MaxNodes+2)
			ok, leaves = l <= cfg.MaxNodes+1, l
		}
		if s.stopped {
			break
		}
		if ok {
			found = d
			break
		}
		res.DepthLB = d + 1
	}
	res.Branches = len(s.nodes)
	res.MemoryStop = s.memErr
	if found < 0 {
		res.Infeasible = !s.stopped
		return res
	}
	if cfg.MaxNodes > 0 {
		// The node-limited search has the fewest leaves at this depth (and
		// reported its tree).
		res.Tree = s.improved
		if res.Tree == nil { // a single leaf
			res.Tree = s.buildDepth(root, found)
			s.report(res.Tree)
		}
		res.LeavesLB, res.Optimal = leaves, true
		if cfg.Nodes {
			s.fewestAtAnyDepth(res, root, found, last)
		}
		return res
	}
	res.Tree = s.buildDepth(root, found)
	s.report(res.Tree)
	if !cfg.Size && !cfg.Nodes {
		res.Optimal = true
		return res
	}
	_, nc, _ = s.classes(root)
	res.LeavesLB = max(nc, min(found, 1)+1)
	best := res.Tree.Leaves()
	l := s.minLeaves(root, found, best)
	res.Branches = len(s.nodes)
	res.MemoryStop = s.memErr
	if s.improved != nil {
		res.Tree = s.improved
	}
	if s.stopped {
		if cfg.Nodes {
			// The fewest leaves at the least depth bound nothing deeper.
			res.LeavesLB = max(nc, found+1)
		}
		return res
	}
	res.Optimal = true
	res.LeavesLB = min(l, best)
	if cfg.Nodes {
		s.fewestAtAnyDepth(res, root, found, last)
	}
	return res
}

// fewestAtAnyDepth turns res, the fewest leaves L of a consistent tree at
// the least depth found (res.Tree, optimal), into the fewest leaves at any
// depth up to last, the depth cap (the problem's MaxDepth, MaxNodes, and
// the useful depth: no path repeats a test, every split sends rows both
// ways).
//
// Why one search at depth min(L−2, last) with bound L is exact: a tree
// with L' leaves has L'−1 internal nodes, and a root-to-leaf path passes
// through internal nodes only once each, so its depth is at most L'−1. A
// consistent tree with fewer leaves than L (L' ≤ L−1) thus has depth at
// most L−2, and at most last by the cap. minLeaves at that depth returns
// the fewest leaves of the trees within it when that is below L, else a
// bound of at least L: either way the fewest leaves at any depth, and the
// tree it reports is optimal. Deeper trees than found with L leaves or
// more cannot beat res.Tree.
func (s *perfect) fewestAtAnyDepth(res *PerfectResult, root model.Bitset, found, last int) {
	best := res.Tree.Leaves()
	d := min(best-2, last)
	_, nc, _ := s.classes(root)
	res.LeavesLB = max(nc, found+1)
	res.Optimal = false
	if d > found {
		s.improved = nil
		l := s.minLeaves(root, d, best)
		res.Branches = len(s.nodes)
		res.MemoryStop = s.memErr
		if s.stopped {
			if s.improved != nil {
				res.Tree = s.improved
			}
			return
		}
		if l < best {
			// minLeaves builds and reports every better tree it finds at
			// the root; without it nothing is proven.
			if s.improved == nil || s.improved.Leaves() != l {
				return
			}
			res.Tree, best = s.improved, l
		}
	}
	res.LeavesLB, res.Optimal = best, true
}

func (s *perfect) report(g *model.Graph) {
	if s.cfg.Report != nil {
		s.cfg.Report(g)
	}
}

// ceilLog2 is the least depth of a tree with c leaves.
func ceilLog2(c int) int {
	if c <= 1 {
		return 0
	}
	return bits.Len(uint(c - 1))
}

// classes returns the class of rows' first class present, the number of
// classes present and the number of rows.
func (s *perfect) classes(rows model.Bitset) (class, nc, n int) {
	class = -1
	for c, cls := range s.v.Class {
		if k := model.AndCount(rows, cls); k > 0 {
			if class < 0 {
				class = c
			}
			nc++
			n += k
		}
	}
	return max(class, 0), nc, n
}

// leaf reports whether rows may be a leaf: one class, and at least the
// minimum support. Otherwise lb is the least depth of a consistent tree
// on them (noTree when none can split) and nc their number of classes.
func (s *perfect) leaf(rows model.Bitset) (class int, ok bool, lb, nc int) {
	class, nc, n := s.classes(rows)
	if nc <= 1 {
		if n >= s.cfg.MinSupport {
			return class, true, 0, nc
		}
		return class, false, noTree, nc // too few rows for a leaf, too few to split
	}
	if n < 2*s.cfg.MinSupport {
		return class, false, noTree, nc
	}
	return class, false, ceilLog2(nc), nc
}

func (s *perfect) scratch(list *[][2]model.Bitset, d int) (lo, hi model.Bitset) {
	for len(*list) <= d {
		*list = append(*list, [2]model.Bitset{model.NewBitset(s.v.N), model.NewBitset(s.v.N)})
	}
	p := (*list)[d]
	return p[0], p[1]
}

// split sets lo and hi to the rows of rows failing and passing test t
// and reports whether both hold at least the minimum support (and so are
// not empty).
func (s *perfect) split(rows model.Bitset, t int, lo, hi model.Bitset) bool {
	hi.And(rows, s.v.True[t])
	lo.AndNot(rows, s.v.True[t])
	nh, nl := hi.Count(), lo.Count()
	return nh >= s.cfg.MinSupport && nl >= s.cfg.MinSupport
}

func (s *perfect) rowsKey(rows model.Bitset) []byte {
	s.key = s.key[:0]
	for _, w := range rows {
		s.key = binary.LittleEndian.AppendUint64(s.key, w)
	}
	return s.key
}

// branch is a row set as the searches see it: a leaf, or its class
// count, least depth by its classes, and node (nil: none yet).
type branch struct {
	rows   model.Bitset
	root   bool // the size search reports the trees it finds here
	leaf   bool
	class  int
	lb, nc int
	n      *node
}

// look looks rows up: one leaf test and at most one cache look-up.
func (s *perfect) look(rows model.Bitset) branch {
	class, ok, lb, nc := s.leaf(rows)
	b := branch{rows: rows, leaf: ok, class: class, lb: lb, nc: nc}
	if !ok && lb < noTree {
		b.n = s.nodes[string(s.rowsKey(rows))]
	}
	return b
}

// feasible reports whether a consistent tree of depth at most d exists
// on rows.
func (s *perfect) feasible(rows model.Bitset, d int) bool {
	b := s.look(rows)
	return s.feasibleAt(&b, d)
}

// feasibleAt reports whether a consistent tree of depth at most d exists
// on b's rows, giving b a node when it searches. After a stop its false
// means nothing, and nothing false is cached.
func (s *perfect) feasibleAt(b *branch, d int) bool {
	if b.leaf {
		return true
	}
	if d < b.lb {
		return false
	}
	if n := b.n; n != nil {
		if d >= int(n.ub) {
			return true
		}
		if d < int(n.lb) {
			return false
		}
	}
	if s.stop() {
		return false
	}
	if b.n == nil {
		b.n = &node{lb: int32(b.lb), ub: noTree, test: -1}
		key := string(s.rowsKey(b.rows))
		s.nodes[key] = b.n
		s.account(entryBytes(len(key)) + nodeBytes)
	}
	rows := b.rows
	lo, hi := s.scratch(&s.dscratch, d)
	found := -1
	if d == 1 {
		// Both children must be leaves: cheaper than the cache.
		for _, t := range s.tests {
			if !s.split(rows, t, lo, hi) {
				continue
			}
			if _, okl, _, _ := s.leaf(lo); !okl {
				continue
			}
			if _, okh, _, _ := s.leaf(hi); okh {
				found = t
				break
			}
		}
	} else {
		for _, g := range s.groups {
			if k, _ := s.feasibleSplits(rows, g, d-1, lo, hi, false); k >= 0 {
				// Its children's trees may be known by a subset argument
				// only: search them, for the tree to build from the cache.
				s.split(rows, g[k], lo, hi)
				if s.feasible(lo, d-1) && s.feasible(hi, d-1) {
					found = g[k]
					break
				}
			}
			if s.stopped {
				return false
			}
		}
	}
	if found >= 0 {
		b.n.ub, b.n.test = int32(d), int32(found)
		return true
	}
	if !s.stopped {
		b.n.lb = int32(d + 1)
	}
	return false
}

// groupTests partitions tests: the thresholds of each numeric column in
// increasing order (in the order of the column's first test), every
// other test alone.
func groupTests(v *model.BinaryView, tests []int) [][]int {
	var groups [][]int
	col := map[int]int{} // numeric column -> its group
	for _, t := range tests {
		tt := v.Tests[t]
		if tt.Categorical {
			groups = append(groups, []int{t})
			continue
		}
		i, ok := col[tt.Feature]
		if !ok {
			i = len(groups)
			col[tt.Feature] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], t)
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b int) int { return cmp.Compare(v.Tests[a].Threshold, v.Tests[b].Threshold) })
	}
	return groups
}

// feasibleSplits finds the splits of rows by the tests of group g (one
// numeric column's thresholds, increasing) whose two children both have
// a consistent tree of depth at most d: the positions a..z of g (a < 0:
// none). Without all it returns one such position (a = z).
//
// With a minimum support of one row, a subset of a row set with a
// consistent tree of depth d has one too (the same tree, an emptied
// branch replaced by its sibling). The low sides of increasing
// thresholds grow and the high sides shrink, so the splits with a
// feasible low side are a prefix of g and those with a feasible high
// side a suffix: binary searches find both ends with a few searches
// of children instead of one per threshold.
func (s *perfect) feasibleSplits(rows model.Bitset, g []int, d int, lo, hi model.Bitset, all bool) (a, z int) {
	m := len(g)
	both := func(k int) bool {
		return s.split(rows, g[k], lo, hi) && s.feasible(lo, d) && s.feasible(hi, d)
	}
	if s.cfg.MinSupport > 1 || m <= 2 {
		a, z = -1, -2
		for k := range m {
			if s.stopped {
				return -1, -2
			}
			if both(k) {
				if !all {
					return k, k
				}
				if a < 0 {
					a = k
				}
				z = k
			}
		}
		if a < 0 {
			return -1, -2
		}
		return a, z
	}
	// The splits with both sides non-empty: from the first threshold with
	// a low row to the last with a high row.
	first := sort.Search(m, func(k int) bool { return model.AndNotCount(rows, s.v.True[g[k]]) > 0 })
	last := sort.Search(m, func(k int) bool { return model.AndCount(rows, s.v.True[g[k]]) == 0 }) - 1
	if first > last {
		return -1, -2
	}
	// z: the last split whose low side is feasible.
	z = first - 1 + sort.Search(last-first+1, func(i int) bool {
		if s.stopped {
			return true
		}
		s.split(rows, g[first+i], lo, hi)
		return !s.feasible(lo, d)
	})
	if s.stopped || z < first {
		return -1, -2
	}
	// a: the first split whose high side is feasible.
	a = first + sort.Search(z-first+1, func(i int) bool {
		if s.stopped {
			return false
		}
		s.split(rows, g[first+i], lo, hi)
		return s.feasible(hi, d)
	})
	if s.stopped || a > z {
		return -1, -2
	}
	if !all {
		z = a
	}
	return a, z
}

// leavesLB is a lower bound on the leaves of a consistent tree of depth
// at most d on b's rows: 1 for a leaf; else its classes, 2, one more than
// its least depth, and what the size search proved.
func (s *perfect) leavesLB(b *branch, d int) int {
	if b.leaf {
		return 1
	}
	lb := max(b.nc, 2, b.lb+1)
	if n := b.n; n != nil {
		lb = max(lb, int(n.lb)+1)
		if d < len(n.sizes) {
			lb = max(lb, int(n.sizes[d].leaves))
		}
	}
	return lb
}

// minLeaves returns the fewest leaves of a consistent tree of depth at
// most d on rows when that is below ub; otherwise a lower bound on them
// that is at least ub (noTree: no such tree). Each better tree it finds
// on rows is reported and kept in s.improved.
func (s *perfect) minLeaves(rows model.Bitset, d, ub int) int {
	b := s.look(rows)
	b.root = true
	return s.minLeavesAt(&b, d, ub)
}

// minLeavesAt is minLeaves for a branch looked up. After a stop its
// answer means nothing, and nothing it learnt then is cached.
func (s *perfect) minLeavesAt(b *branch, d, ub int) int {
	if b.leaf {
		return 1
	}
	// Only trees of fewer than ub leaves answer the call, and such a tree
	// has depth at most ub−2 (L leaves: L−1 internal nodes, each at most
	// once on a path): the search never needs to go deeper. Records stay
	// "at depth at most d" whichever depth they are searched at.
	if d > ub-2 {
		d = max(ub-2, 0)
	}
	if !s.feasibleAt(b, d) {
		return noTree
	}
	n := b.n // feasibleAt gave it one
	for len(n.sizes) <= d {
		c := cap(n.sizes)
		n.sizes = append(n.sizes, sizeRec{test: -1})
		if grown := cap(n.sizes) - c; grown > 0 {
			s.account(int64(grown) * sizeRecBytes)
		}
	}
	e := n.sizes[d]
	if e.exact || int(e.leaves) >= ub {
		return int(e.leaves)
	}
	lb := s.leavesLB(b, d)
	if lb >= ub || s.stop() {
		return lb
	}
	rows := b.rows
	lo, hi := s.scratch(&s.sscratch, d)
	best, bestTest := ub, -1
groups:
	for _, g := range s.groups {
		// The splits of a column's thresholds whose children both have a
		// consistent tree of depth d−1; a lone test is tried as it is (its
		// children's bounds first, their feasibility in minLeavesAt).
		a, z := 0, 0
		if len(g) > 1 {
			a, z = s.feasibleSplits(rows, g, d-1, lo, hi, true)
			if s.stopped {
				return lb
			}
		}
		for k := a; k >= 0 && k <= z; k++ {
			t := g[k]
			if !s.split(rows, t, lo, hi) {
				continue
			}
			bl, bh := s.look(lo), s.look(hi)
			hlb := s.leavesLB(&bh, d-1)
			if s.leavesLB(&bl, d-1)+hlb >= best {
				continue
			}
			l := s.minLeavesAt(&bl, d-1, best-hlb)
			if l+hlb >= best {
				continue
			}
			h := s.minLeavesAt(&bh, d-1, best-l)
			if s.stopped {
				return lb
			}
			if l+h < best {
				best, bestTest = l+h, t
				if b.root {
					// Both children's records are exact: the tree is known.
					if g := s.buildSplit(rows, t, d); g != nil {
						s.improved = g
						s.report(g)
					}
				}
				if best == lb {
					break groups
				}
			}
		}
	}
	if s.stopped {
		return lb
	}
	if bestTest >= 0 {
		n.sizes[d] = sizeRec{leaves: int32(best), test: int32(bestTest), exact: true}
	} else {
		n.sizes[d] = sizeRec{leaves: int32(ub), test: -1}
	}
	return int(n.sizes[d].leaves)
}

// buildDepth builds the consistent tree of depth at most d the depth
// search found on rows.
func (s *perfect) buildDepth(rows model.Bitset, d int) *model.Graph {
	b := model.NewBuilder(s.v.Data, model.KindTree)
	var rec func(rows model.Bitset) int
	rec = func(rows model.Bitset) int {
		class, ok, _, _ := s.leaf(rows)
		if ok {
			return b.Leaf(class)
		}
		t := int(s.nodes[string(s.rowsKey(rows))].test)
		lo, hi := model.NewBitset(s.v.N), model.NewBitset(s.v.N)
		s.split(rows, t, lo, hi)
		l := rec(lo)
		return b.Split(s.v.Tests[t], l, rec(hi))
	}
	return b.Graph(rec(rows))
}

// buildSplit builds the tree that splits rows on test t (nil if a record
// it needs is missing, which the search never leaves), then follows
// the size search's exact records below: for each child, the exact record
// of fewest leaves among depths up to d−1. The search answered the child
// at one of those depths (minLeavesAt may search shallower than asked),
// and no exact record within them has fewer leaves than that answer (it
// would have been a smaller tree the search did not see), so the tree has
// the leaves the search counted, at depth at most d.
func (s *perfect) buildSplit(rows model.Bitset, t, d int) *model.Graph {
	b := model.NewBuilder(s.v.Data, model.KindTree)
	missing := false
	var rec func(rows model.Bitset, t, d int) int
	rec = func(rows model.Bitset, t, d int) int {
		lo, hi := model.NewBitset(s.v.N), model.NewBitset(s.v.N)
		s.split(rows, t, lo, hi)
		child := func(rows model.Bitset) int {
			class, ok, _, _ := s.leaf(rows)
			if ok {
				return b.Leaf(class)
			}
			sizes, k := s.nodes[string(s.rowsKey(rows))].sizes, -1
			for j := range min(d, len(sizes)) {
				if sizes[j].exact && (k < 0 || sizes[j].leaves < sizes[k].leaves) {
					k = j
				}
			}
			if k < 0 {
				missing = true // not reached: the search left an exact record
				return b.Leaf(class)
			}
			return rec(rows, int(sizes[k].test), k)
		}
		l := child(lo)
		return b.Split(s.v.Tests[t], l, child(hi))
	}
	root := rec(rows, t, d)
	if missing {
		return nil
	}
	return b.Graph(root)
}

// account counts n more bytes of cache, reserving another chunk of the
// budget when the reservation is full; a chunk that does not fit stops
// the search.
func (s *perfect) account(n int64) {
	s.used += n
	if s.used <= s.reserved || s.stopped {
		return
	}
	if err := s.cfg.Budget.Reserve(memoChunk, "the consistent-tree search's cache"); err != nil {
		s.memErr, s.stopped = err, true
		return
	}
	s.reserved += memoChunk
}

// stop polls ctx every few hundred branches.
func (s *perfect) stop() bool {
	if s.stopped {
		return true
	}
	if s.steps++; s.steps%256 == 0 && s.ctx.Err() != nil {
		s.stopped = true
	}
	return s.stopped
}
