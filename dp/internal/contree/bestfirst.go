package contree

import (
	"container/heap"
	"math"
)

// The root's best-first search (Config.DepthFirstRoot false, depth 3 and
// more, one worker). The root's alternatives are the leaf and every
// threshold of every feature. Each feature's thresholds are searched as
// in Algorithm 1 (intervals, each evaluated at one threshold and split
// in two around it), but the open intervals of all features wait in one
// queue, and the interval with the least lower bound is searched first.
//
// The bound of an interval [i..j] of a feature comes from the computed
// thresholds u < i and v > j around it. For a threshold x in [i..j] the
// left side L(x) contains L(u) and the right side R(x) is R(u) less the
// cum[x]-cum[u] rows between them; the right side R(x) contains R(v) and
// L(x) is L(v) less cum[v]-cum[x] rows. A tree's error cannot grow when
// rows are removed, and each removed row lowers it by at most one, so
// with lbL, lbR the proven bounds of the computed sides
//
//	OPT(L(x)) >= max(lbL(u), lbL(v) - (cum[v]-cum[x])) >= max(lbL(u), lbL(v) - (cum[v]-cum[i]))
//	OPT(R(x)) >= max(lbR(v), lbR(u) - (cum[x]-cum[u])) >= max(lbR(v), lbR(u) - (cum[j]-cum[u]))
//
// and the sum of the right-hand sides bounds every threshold of the
// interval (ivLB). A feature not started yet has the bound 0.
//
// The root's lower bound is then the least of: the incumbent's errors
// (the leaf and every tree found are no better), the bound of every open
// interval (the queue's least), and floor, the least bound of what was
// settled: a computed threshold's lbL+lbR, and the prune level of every
// interval (or part of one) pruned, each of whose thresholds has a bound
// at least that level (that is why it was pruned: sub-interval pruning
// and interval shrinking are the inequalities above with one side). The
// thresholds the zero-error extremes drop are no better than the
// computed threshold that dropped them, already in floor. Every root
// alternative is in one of these sets at every moment, so the least is a
// lower bound on the optimum, and it is reported each time it rises.
//
// A gap A (Config.AbsGap, Config.RelGap) prunes at the level incumbent −
// A instead of the incumbent, and the sides of a threshold are solved
// under that level: only trees better by more than A are sought. The
// search stops as soon as the incumbent is within A of the root's bound.
// A pruned interval's thresholds have bounds at least the incumbent − A
// of the moment; that level never rises as the incumbent falls (A is
// whole and changes by at most one when the incumbent does, as the
// relative gap is capped at 1), so the final bound is at least the final
// incumbent − A: the tree returned is proven within the gap.

// rootItem is an open interval of a root feature's thresholds, with a
// lower bound on every threshold in it.
type rootItem struct {
	lb  int
	seq int64 // order of insertion: earlier first on equal bounds
	fi  int32 // the feature's index in the search's list
	iv  interval
}

type rootQueue []rootItem

func (q rootQueue) Len() int { return len(q) }
func (q rootQueue) Less(a, b int) bool {
	if q[a].lb != q[b].lb {
		return q[a].lb < q[b].lb
	}
	return q[a].seq < q[b].seq
}
func (q rootQueue) Swap(a, b int) { q[a], q[b] = q[b], q[a] }
func (q *rootQueue) Push(x any)   { *q = append(*q, x.(rootItem)) }
func (q *rootQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// noBound marks an interval left empty by the zero-error extremes.
const noBound = math.MaxInt

// ivLB is the lower bound on every threshold of iv that the computed
// thresholds around it give (see the comment above), or noBound when
// the zero-error extremes left none of its thresholds.
func (fs *featSearch) ivLB(iv interval) int {
	i, j := max(iv.i, fs.ml), min(iv.j, fs.mr)
	if i > j {
		return noBound
	}
	a, b := 0, 0
	if iv.u >= 0 {
		c := fs.comp[iv.u]
		a = max(a, c.lbL)
		b = max(b, c.lbR-int(fs.cum[j]-fs.cum[c.t]))
	}
	if iv.v >= 0 {
		c := fs.comp[iv.v]
		b = max(b, c.lbR)
		a = max(a, c.lbL-int(fs.cum[c.t]-fs.cum[i]))
	}
	return a + b
}

// allowance is the gap, in errors, the search may leave above the
// root's bound when the incumbent has inc errors.
func (s *solver) allowance(inc int) int {
	rel := min(s.cfg.RelGap, 1)
	a := max(s.cfg.AbsGap, rel*float64(inc))
	return int(math.Floor(a + 1e-9))
}

// bestFirst reports whether the root is searched best-first.
func (s *solver) bestFirst() bool {
	return !s.cfg.DepthFirstRoot && s.cfg.MaxDepth >= 3 && s.cfg.MaxGap == 0
}

// reserveRoot accounts the root's threshold lists (one per feature,
// kept while the features' searches interleave) in the budget, and
// reports whether they fit; when they do not, the root is searched depth
// first (one list at a time). The computed thresholds and the queue grow
// by an entry or two per threshold evaluated, each of which costs two
// subtree searches: they are not accounted.
func (s *solver) reserveRoot() bool {
	var n int64
	for _, g := range s.gdist {
		n += 4 * int64(g)
	}
	if err := s.cfg.Budget.Reserve(n, "contree root thresholds"); err != nil {
		return false
	}
	s.held += n
	return true
}

// rootOutcome is what the root's best-first search established.
type rootOutcome struct {
	best  *Node
	lb    int  // a lower bound on the optimum
	gap   bool // stopped with best within the gap of lb, not proven optimal
	items int  // intervals searched
}

// rootSearch searches the root v (depth d >= 3) best-first, starting
// from the incumbent start (the leaf or a seed). It returns the best tree
// and a lower bound on the optimum, valid also when the search stopped.
func (s *solver) rootSearch(v *view, d int, start *Node) rootOutcome {
	return s.bestFirstSearch(v, d, s.leaf(v).Errors+1, 0, true, start)
}

// bestFirstSearch is rootSearch at any node: v at recursion level lvl,
// depth d >= 3, trees sought below ub. Below the root it runs only in
// the bound phase (boundphase.go), where it also ends when the phase's
// work for the current side is spent, with the bound it has reached.
func (s *solver) bestFirstSearch(v *view, d, ub, lvl int, isRoot bool, start *Node) rootOutcome {
	st := &branchState{ub: ub, best: start, isRoot: isRoot, tight: true, lvl: lvl}
	ls := s.level(lvl)
	if s.nestRun {
		s.nestReset(lvl)
	}
	s.featureOrder(v, ls, s.natural(isRoot))
	var feats []*featSearch
	q := &rootQueue{}
	var seq int64
	add := func(fi int32, iv interval, lb int) {
		seq++
		heap.Push(q, rootItem{lb: lb, seq: seq, fi: fi, iv: iv})
	}
	for _, f := range ls.order {
		col := v.cols[f]
		cum, m := thresholds(col, nil)
		if m == 0 {
			continue
		}
		fs := &featSearch{f: f, col: col, cum: cum, m: m, mr: int32(m - 1), firstCut: ls.first[f]}
		feats = append(feats, fs)
	}
	last := -1
	if isRoot && s.cfg.BoundProbes > 0 && d >= 4 {
		// The bound phase leaves each feature's thresholds as pieces
		// around its probed ones, each with its bound.
		s.boundPhase(v, d, st, feats, &last, add)
	} else {
		for fi, fs := range feats {
			add(int32(fi), interval{i: 0, j: int32(fs.m - 1), u: -1, v: -1}, 0)
		}
	}
	floor := noBound
	out := rootOutcome{}
	bound := func() int {
		lb := min(st.best.Errors, floor)
		if q.Len() > 0 {
			lb = min(lb, (*q)[0].lb)
		}
		return lb
	}
	for q.Len() > 0 && !st.done && !s.stop {
		a := 0
		if isRoot {
			a = s.allowance(st.best.Errors)
		} else if s.phaseSpent() {
			break
		}
		st.gapHere = a
		lb := bound()
		if lb >= st.ub {
			break // no tree below ub (below the root)
		}
		if lb > last && isRoot {
			last = lb
			if s.cfg.OnBound != nil {
				s.cfg.OnBound(lb)
			}
		}
		if st.best.Errors-lb <= a {
			break // within the gap (or optimal when a is 0)
		}
		it := heap.Pop(q).(rootItem)
		fs := feats[it.fi]
		if lb := fs.ivLB(it.iv); lb == noBound {
			continue
		} else if lb > it.lb {
			// The zero-error extremes or newer neighbours raised it.
			add(it.fi, it.iv, lb)
			continue
		}
		if s.check() {
			heap.Push(q, it) // still open
			break
		}
		out.items++
		// Whatever lies in the interval keeps its bound it.lb: the
		// halves and the computed threshold, so the root's bound never
		// falls.
		o := s.step(v, d, fs, it.iv, st, ls, func(iv interval) {
			if lb := fs.ivLB(iv); lb != noBound {
				add(it.fi, iv, max(lb, it.lb))
			}
		})
		if s.stop {
			heap.Push(q, it) // not settled
			break
		}
		if o.pruned {
			floor = min(floor, max(o.prune, it.lb))
		}
		if o.computed {
			floor = min(floor, max(o.lb, it.lb))
		}
	}
	out.best = st.best
	if st.done {
		out.lb = 0
		return out
	}
	out.lb = bound()
	if out.lb > last && isRoot && s.cfg.OnBound != nil {
		s.cfg.OnBound(out.lb)
	}
	out.gap = out.lb < st.best.Errors && !s.stop
	return out
}
