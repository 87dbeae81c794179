package contree

import "container/heap"

// The bound phase (Config.BoundProbes) raises the root's lower bound
// before the exact search, where the root's first thresholds alone would
// take long. The best-first root's bound rises only once every feature
// has a threshold whose two sides were searched through, and at depth 4
// and more one side can take minutes (bean, 13,611 rows: over 100 s for
// one depth-3 side). The phase instead probes a few thresholds of every
// feature and searches each side only for a lower bound, best-first, for
// at most Config.BoundWork depth-two calls; what it has proven then is
// the side's bound, a valid one whether or not that side's search ended.
//
// A probed threshold w becomes a computed threshold of its feature with
// those bounds, and the feature's thresholds become pieces around the
// probed ones: [.., w-1], [w, w] and [w+1, ..]. The pieces' bounds are
// ivLB's (the inequalities at the top of bestfirst.go hold for any lower
// bounds of the sides, not only optimal ones); the piece [w, w] has the
// bound lbL(w) + lbR(w). Every threshold stays in a piece that the exact
// search that follows takes from the queue, so the phase changes what is
// searched first, never what is found: the result stays exact.
//
// The pieces wait in a queue by bound, every feature's whole range
// first (bound 0), and the phase probes the piece of least bound at its
// middle by rows: the root's bound is the least over the pieces (and the
// incumbent), so it rises only where the phase works. A piece of a single
// threshold is probed again with twice the work. The bound is reported
// each time it rises. The sides' trees are real trees: a probe whose two
// trees beat the incumbent improves it.

// phaseSpent reports whether the bound phase's work for the current side
// is spent; once it is, every search of that side ends with its bound.
func (s *solver) phaseSpent() bool {
	if s.phaseEnd > 0 && s.stats.D2Calls >= s.phaseEnd {
		s.phaseOut = true
	}
	return s.phaseOut
}

// boundPhase runs the bound phase at the root v (depth d >= 4) over the
// features feats (none started), reporting rises of the bound above
// *last, and hands the pieces of every feature's thresholds, with their
// bounds, to add.
func (s *solver) boundPhase(v *view, d int, st *branchState, feats []*featSearch, last *int, add func(int32, interval, int)) {
	q := &rootQueue{}
	var seq int64
	push := func(fi int32, iv interval, lb int) {
		seq++
		heap.Push(q, rootItem{lb: lb, seq: seq, fi: fi, iv: iv})
	}
	for fi, fs := range feats {
		push(int32(fi), interval{i: 0, j: int32(fs.m - 1), u: -1, v: -1}, 0)
	}
	// piece pushes a piece of the probed item it with the better of its
	// own bound and it.lb (which holds for every threshold of it).
	piece := func(it rootItem, iv interval) {
		if iv.i > iv.j {
			return
		}
		if b := feats[it.fi].ivLB(iv); b != noBound {
			push(it.fi, iv, max(b, it.lb))
		}
	}
	times := map[[2]int32]int{} // probes of a threshold so far
	for budget := s.cfg.BoundProbes * len(feats); budget > 0 && q.Len() > 0 && !st.done; budget-- {
		if lb := min(st.best.Errors, (*q)[0].lb); lb > *last {
			*last = lb
			if s.cfg.OnBound != nil {
				s.cfg.OnBound(lb)
			}
		}
		if (*q)[0].lb >= st.best.Errors {
			break // every threshold is bounded by the incumbent: optimal
		}
		it := heap.Pop(q).(rootItem)
		fs := feats[it.fi]
		iv := it.iv
		// The piece's middle by rows; a single threshold is probed
		// again with twice the work of its last probe.
		w := min(firstAtLeast(fs.cum, iv.i, iv.j, (int64(fs.cum[iv.i])+int64(fs.cum[iv.j])+1)/2), iv.j)
		k := [2]int32{it.fi, w}
		lbL, lbR, ok := s.boundProbe(v, d, fs, w, st, s.cfg.BoundWork<<min(times[k], 20))
		if !ok {
			heap.Push(q, it) // not probed
			break
		}
		times[k]++
		c := int32(len(fs.comp))
		if iv.u >= 0 && iv.u == iv.v {
			// A probed threshold: the earlier probe's bounds stand; the new ones may be
			// higher.
			lbL, lbR = max(lbL, fs.comp[iv.u].lbL), max(lbR, fs.comp[iv.u].lbR)
		}
		fs.comp = append(fs.comp, computed{t: w, lbL: lbL, lbR: lbR})
		piece(it, interval{i: iv.i, j: w - 1, u: iv.u, v: c})
		piece(it, interval{i: w, j: w, u: c, v: c})
		piece(it, interval{i: w + 1, j: iv.j, u: c, v: iv.v})
	}
	for _, it := range *q {
		add(it.fi, it.iv, it.lb)
	}
}

// boundProbe searches the two sides of threshold w of fs for lower
// bounds, each with the phase's work; ok is false when the search was
// stopped. Trees below the incumbent are sought (a side's bound that
// reaches it prunes the threshold all the same); when both sides' trees
// together beat the incumbent it is improved.
func (s *solver) boundProbe(v *view, d int, fs *featSearch, w int32, st *branchState, work int64) (lbL, lbR int, ok bool) {
	left, right := s.splitView(v, fs.f, int(fs.cum[w]), st.lvl)
	if left == nil {
		return 0, 0, false
	}
	side := func(sv *view) (int, *Node) {
		s.phaseEnd, s.phaseOut = s.stats.D2Calls+max(work, 1), false
		lb, sol := s.solve(sv, d-1, st.best.Errors, 0, 0, st.lvl+1, false)
		if s.phaseOut {
			s.stats.BoundCut++
		}
		s.phaseEnd, s.phaseOut = 0, false
		return lb, sol
	}
	s.stats.BoundProbes++
	lbL, solL := side(left)
	if s.stop {
		return 0, 0, false
	}
	lbR, solR := side(right)
	if s.stop {
		return 0, 0, false
	}
	if solL != nil && solR != nil && solL.Errors+solR.Errors < st.best.Errors {
		st.best = s.splitNode(fs.col, fs.f, int(fs.cum[w]), solL, solR)
		s.best = st.best
		if s.onImpr != nil {
			s.onImpr(st.best)
		}
		if st.best.Errors == 0 {
			st.done = true
		}
	}
	return lbL, lbR, true
}
