package dl85

// The depth-2 step of a branch counts, for every pair of its tests, the
// rows of each class on which both are true: K² popcounts over n/64
// words. Both children of a test t of a depth-3 branch usually need it,
// and the pair counts of the two add up to those of their parent. So
// depth2Linked counts the pairs of the smaller child only, over its
// parent's tests, and takes the larger child's as the parent's less the
// smaller's. The parent's counts are made once per depth-3 branch, when
// a larger child first needs them; the smaller child's are kept for its
// own step.

// link records the test (position k in nd.act, side hi) that made the
// branch of the next level; split sets it around its call of node.
type link[T comparable] struct {
	nd *level[T]
	k  int32
	hi bool
}

// pairTab is a branch's pair counts over its parent's tests: p0 and p1
// are K×K class-0 and class-1 counts (see depth2Binary). serial names the
// parent branch; k and hi the child (unused for the parent's own table).
type pairTab struct {
	serial int64
	k      int32
	hi     bool
	buf    []int32
}

func (t *pairTab) tables(K int) ([]int32, []int32) {
	if need := 2 * K * K; cap(t.buf) < need {
		t.buf = make([]int32, need)
	}
	return t.buf[:K*K], t.buf[K*K : 2*K*K]
}

// nextSerial names a depth-3 branch for the tables; it is unique in the
// search, across workers.
func (s *search[T]) nextSerial() int64 {
	if s.sh != nil {
		return s.sh.serial.Add(1)
	}
	s.serial++
	return s.serial
}

// depth2Linked solves the two-class depth-2 branch at level lv from its
// parent's and its sibling's pair counts when split made it (done=false
// otherwise, or when the tables do not fit).
func (s *search[T]) depth2Linked(lv int, cnt []float64, n int) (t *Tree, err float64, ok, done bool) {
	if s.cfg.NoLinkedDepth2 || lv == 0 || s.from[lv].nd == nil {
		return nil, 0, false, false
	}
	l := s.from[lv]
	nd := l.nd
	K := len(nd.act)
	if nd.serial == 0 || !s.linkFits(K, nd.n) {
		return nil, 0, false, false
	}
	f := nd.act[l.k]
	sib := nd.n - n
	var p0, p1 []int32
	switch {
	case s.stab.serial == nd.serial && s.stab.k == l.k && s.stab.hi == l.hi:
		// Counted as the sibling of a larger child.
		p0, p1 = s.stab.tables(K)
		s.d2linked++
	case n > sib:
		if s.ptab.serial != nd.serial {
			q0, q1 := s.ptab.tables(K)
			s.ptab.serial = 0
			if !s.pairTable(nd.rows, nd.n, nd.act, q0, q1) {
				return nil, 0, false, true
			}
			s.ptab.serial = nd.serial
		}
		if !(s.stab.serial == nd.serial && s.stab.k == l.k && s.stab.hi != l.hi) {
			rows := s.sibRows[:len(nd.rows)]
			col := s.d.cols[f]
			if l.hi {
				for wi, x := range nd.rows {
					rows[wi] = x &^ col[wi]
				}
			} else {
				for wi, x := range nd.rows {
					rows[wi] = x & col[wi]
				}
			}
			if !s.countSibling(rows, sib, nd, l.k, !l.hi) {
				return nil, 0, false, true
			}
		}
		q0, q1 := s.ptab.tables(K)
		c0, c1 := s.stab.tables(K)
		if need := 2 * K * K; cap(s.sym) < need {
			s.sym = make([]int32, need)
		}
		p0, p1 = s.sym[:K*K], s.sym[K*K:2*K*K]
		for i := range p0 {
			p0[i] = q0[i] - c0[i]
			p1[i] = q1[i] - c1[i]
		}
		s.d2linked++
	default:
		if !s.countSibling(s.sets[lv], n, nd, l.k, l.hi) {
			return nil, 0, false, true
		}
		p0, p1 = s.stab.tables(K)
	}
	t, err, ok = s.depth2Binary(nd.act, cnt, n, K, p0, p1)
	return t, err, ok, true
}

// countSibling counts the pairs of the child (k, hi) of nd, whose rows
// are rows (n of them), over nd's tests into s.stab.
func (s *search[T]) countSibling(rows []uint64, n int, nd *level[T], k int32, hi bool) bool {
	s.stab.serial = 0
	q0, q1 := s.stab.tables(len(nd.act))
	if !s.pairTable(rows, n, nd.act, q0, q1) {
		return false
	}
	s.stab.serial, s.stab.k, s.stab.hi = nd.serial, k, hi
	return true
}

// linkFits reports whether the linked step's tables for K tests and a
// parent of n rows fit (see depth2Fits): the parent's, the sibling's and
// the derived counts.
func (s *search[T]) linkFits(K, n int) bool {
	if !s.depth2Fits(K, n) {
		return false
	}
	need := int64(2 * K * K)
	if s.cfg.Budget == nil {
		return 3*need*4+int64(K)*int64((n+63)/64)*8 <= maxDepth2Bytes
	}
	more := max(0, need-int64(cap(s.ptab.buf)))*4 + max(0, need-int64(cap(s.stab.buf)))*4
	if more == 0 {
		return true
	}
	if err := s.reserve(more, "dl85 depth-2 tables"); err != nil {
		return false
	}
	return true
}
