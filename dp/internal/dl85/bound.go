package dl85

import "math"

// rootBound follows the root's lower bound while the sequential search
// tries the root's tests. The optimum is the least of the leaf's error
// and, over the root's tests, the sum of the optima of the test's two
// branches. Every test has at each moment a proven lower bound on that
// sum: before it is searched, the sum of the bounds cached for its
// branches (0 for a branch never met); once searched, the bound the
// search established (its branches' bounds, each proven under the upper
// bound it was searched with: a branch searched in vain has a bound at
// least that upper bound, one solved has its optimum). The least of
// these, of the leaf's error and of the best tree's error (no better than
// the optimum) is a lower bound on the optimum; so is the root's
// irreducible error, and any bound proven before (a cached bound of the
// root, an earlier restart's). The larger of the two rises as tests are
// searched and is reported through Config.OnBound.
type rootBound struct {
	tb      []float64 // per position in the root's order, the test's bound
	leafErr float64
	floor   float64 // bounds proven otherwise (irreducible, cached)
}

// newRootBound starts the root's bound for the tests act tried in the
// order ord, or returns nil when nobody asks for it (no OnBound, no gap)
// or the search is parallel (see parBound).
func (s *search[T]) newRootBound(ord, act []int32, key []byte, leafErr, lb0 float64) *rootBound {
	if s.sh != nil || s.tg != nil || (s.cfg.OnBound == nil && !s.gapped()) {
		return nil
	}
	return s.rootBoundOf(ord, act, key, leafErr, lb0)
}

// rootBoundOf is the root's bound before any of its tests is searched:
// each test's from the bounds cached for its branches.
func (s *search[T]) rootBoundOf(ord, act []int32, key []byte, leafErr, lb0 float64) *rootBound {
	rb := &rootBound{tb: make([]float64, len(ord)), leafErr: leafErr, floor: max(lb0, s.irrRoot)}
	var klo, khi []byte
	for i, k := range ord {
		f := act[k]
		klo = childKey(klo, key, uint32(2*f))
		khi = childKey(khi, key, uint32(2*f+1))
		rb.tb[i] = s.cachedLB(klo) + s.cachedLB(khi)
	}
	return rb
}

// set records what the search of the test at position i established.
func (rb *rootBound) set(i int, lb float64) {
	if rb != nil {
		rb.tb[i] = lb
	}
}

// settle reports the root's bound when it rose, bestErr being the error
// of the best tree found by the root's search (+Inf: none).
func (rb *rootBound) settle(s *searchBound, bestErr float64) {
	if rb == nil {
		return
	}
	lb := min(rb.leafErr, bestErr)
	for _, x := range rb.tb {
		lb = min(lb, x)
	}
	s.raise(max(lb, rb.floor))
}

// searchBound is the part of a search that reports its bound.
type searchBound struct {
	onBound func(float64)
	bound   float64 // the highest bound reported (-Inf: none yet)
}

// raise reports lb when it is above every bound reported before.
func (b *searchBound) raise(lb float64) {
	if lb > b.bound && !math.IsInf(lb, 0) && !math.IsNaN(lb) {
		b.bound = lb
		if b.onBound != nil {
			b.onBound(lb)
		}
	}
}

// gapRoot ends a gapped root whose every test was searched, only for
// trees better than the incumbent by more than the gap: its bound is what
// the tests established (lbMin) or the root's cached bound lb0, not the
// error of its best tree (best, bestErr; nil and +Inf when none).
func (s *search[T]) gapRoot(lbMin, lb0 float64, best *Tree, bestErr float64) result {
	s.gapDone = true
	lb := min(max(lbMin, lb0), bestErr)
	if best == nil {
		return result{err: math.Inf(1), lb: lb}
	}
	return result{tree: best, err: bestErr, lb: lb}
}

// gapped tells whether the search may stop within a gap.
func (s *search[T]) gapped() bool { return s.cfg.AbsGap > 0 || s.cfg.RelGap > 0 }

// allowance is how far above the root's bound a tree of error inc may
// stay: the larger of the absolute gap and the relative one times inc.
// inc − allowance(inc) never falls as inc rises (RelGap is at most 1),
// so a test settled against an earlier, larger incumbent stays settled.
func (s *search[T]) allowance(inc float64) float64 {
	return max(s.cfg.AbsGap, s.cfg.RelGap*inc)
}

// relax, target and searchUB let a gapped search stop every branch, not
// only the root, within the gap. With a relative gap g (and not
// Config.RootGapOnly), a branch searched under ub returns either a tree
// of error e < ub with a bound of at least (1−g)·e, or no tree and a
// bound of at least (1−g)·ub: each test of the branch is settled once its
// bound reaches (1−g) times the branch's best error so far (or ub). This
// composes: when a test's two branches return trees of errors e1, e2
// with bounds at least (1−g)·e1 and (1−g)·e2, the test's bound is at
// least (1−g)·(e1+e2); when the first returns e1 and the second, searched
// under ub − e1, no tree, it is at least (1−g)·e1 + (1−g)·(ub − e1) =
// (1−g)·ub; and the least over the tests is then at least (1−g) times the
// best of their errors. So the root's bound ends within the gap of its
// tree, as with an exact search of its branches, while each branch stops
// as soon as its own tree is close enough. An absolute gap does not compose (it would add up over the
// branches): it applies at the root only, as RootGapOnly does.

// target is the bound that settles a test at level lv of a branch whose
// best error so far (or upper bound) is x.
func (s *search[T]) target(lv int, x float64) float64 {
	if math.IsInf(x, 0) {
		return x
	}
	if lv == 0 {
		if s.gapped() {
			return x - s.allowance(x)
		}
		return x
	}
	return x - s.relax*x
}

// limit is the bound that settles a test at level lv of a branch
// searched under ub whose best error so far (or ub) is x, need being the
// bound that satisfies the branch's caller: with exact branches x;
// within the gap the lower of need and target(lv, x). A branch below the
// root thus returns a bound of at least need, or one of at least
// (1−g)·e with its tree of error e, or one of at least (1−g)·ub without
// a tree; its caller, a test whose pair must reach lim, asks the first
// branch searched for lim less the other's cached bound, and the second
// for lim less the first's bound, and each of the three outcomes keeps
// the composition above (a pair that reaches lim settles the test).
func (s *search[T]) limit(lv int, x, need float64) float64 {
	if lv == 0 || s.relax == 0 {
		return s.target(lv, x)
	}
	return min(need, s.target(lv, x))
}

// searchUB is the upper bound under which the root (lv 0) searches its
// tests' branches when its best error so far is x: with exact branches
// and a gap, only trees better by more than the gap are sought.
func (s *search[T]) searchUB(lv int, x float64) float64 {
	if lv == 0 && s.relax == 0 {
		return s.target(0, x)
	}
	return x
}

// boundPhase searches the root within the relative gap Config.BoundGap
// (see Config.BoundGap) and records its tree and bound in res; the
// search is then exact again. The phase's entries stay in the cache: its
// bounds are proven and its trees real, and an entry is exact only when
// its bound meets its tree.
func (s *search[T]) boundPhase(res *Result, rootCnt []float64, st T, report func(*Tree, float64)) {
	s.setGap(min(s.cfg.BoundGap, 1))
	defer s.setGap(0)
	s.iter++
	r := s.node(0, rootCnt, s.d.N, nil, math.Inf(1), math.Inf(1), st, s.all, report)
	if r.tree != nil {
		report(r.tree, r.err)
	}
	if s.gapDone {
		res.LB = max(res.LB, min(r.lb, res.Err))
		s.sb.raise(res.LB)
	}
	s.gapDone = false
	if res.LB >= res.Err {
		res.Optimal = true
	}
}

// setGap sets the relative gap of the search and of its workers.
func (s *search[T]) setGap(g float64) {
	for _, w := range append([]*search[T]{s}, s.workers...) {
		w.cfg.RelGap, w.relax = g, 0
		if !w.cfg.RootGapOnly {
			w.relax = g
		}
	}
}
