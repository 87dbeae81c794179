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
// or the search is parallel.
func (s *search[T]) newRootBound(ord, act []int32, key []byte, leafErr, lb0 float64) *rootBound {
	if s.sh != nil || s.tg != nil || (s.cfg.OnBound == nil && !s.gapped()) {
		return nil
	}
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
