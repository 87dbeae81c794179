package dl85

import (
	"math/bits"

	"github.com/odtkit/odtkit/model"
)

// depth2 returns an optimal tree of depth at most 2 for the branch at
// level lv (unweighted rows), from pairwise counts: the rows of the
// branch are renumbered 0..n-1, every active test becomes a compact
// bitset over them, and one AND-popcount pass per pair of tests gives the
// class counts of every depth-2 leaf.
//
// It reports ok=false when ctx ended during the step (checked once per
// test of the pair loops, each a pass over the branch's words).
func (s *search[T]) depth2(lv int, cnt []float64, n int, act []int32, fn []int, fc []float64) (*Tree, float64, bool) {
	s.d2calls++
	d := s.d
	nc := d.NC
	K := len(act)
	if nc == 2 {
		if t, e, ok, done := s.depth2Linked(lv, cnt, n); done {
			return t, e, ok
		}
		// Full symmetric matrices of the class-0 and class-1 counts of
		// the rows where both tests of a pair are true, written at once,
		// so that depth2Binary reads each test's row in order.
		if need := 2 * K * K; cap(s.sym) < need {
			s.sym = make([]int32, need)
		}
		p0, p1 := s.sym[:K*K], s.sym[K*K:2*K*K]
		if !s.pairTable(s.sets[lv], n, act, p0, p1) {
			return nil, 0, false
		}
		return s.depth2Binary(act, cnt, n, K, p0, p1)
	}
	cf, cc, nw := s.compactBranch(s.sets[lv], n, act)

	// pairs[(i*K+j)*nc + 0] = rows with both tests true, then the counts
	// of classes 0..nc-2 among them (i < j).
	if need := K * K * nc; cap(s.pairs) < need {
		s.pairs = make([]int32, need)
	}
	pairs := s.pairs[:K*K*nc]
	for i := range K {
		if s.ctx.Err() != nil {
			return nil, 0, false
		}
		fi := cf[i*nw : (i+1)*nw]
		for j := i + 1; j < K; j++ {
			fj := cf[j*nw : (j+1)*nw]
			b := (i*K + j) * nc
			pairs[b] = int32(andCount(fi, fj))
			for c := 0; c < nc-1; c++ {
				pairs[b+1+c] = int32(andCount3(fi, fj, cc[c*nw:(c+1)*nw]))
			}
		}
	}

	minsup := s.minsup
	// Integer class counts of the branch and of each test's true side.
	var bufA, bufB, bufC, bufD [16]int
	tot := make([]int, nc)
	for c := range nc {
		tot[c] = int(cnt[c])
	}
	hiOf := func(k int, out []int) {
		for c := range nc {
			out[c] = int(fc[k*nc+c])
		}
	}
	// both(i, j, out): class counts of rows where tests i and j are true.
	both := func(i, j int, out []int) int {
		if i > j {
			i, j = j, i
		}
		b := (i*K + j) * nc
		t := int(pairs[b])
		last := t
		for c := 0; c < nc-1; c++ {
			out[c] = int(pairs[b+1+c])
			last -= out[c]
		}
		out[nc-1] = last
		return t
	}
	leafErr := func(x []int) int {
		m, t := 0, 0
		for _, v := range x {
			t += v
			m = max(m, v)
		}
		return t - m
	}
	var big []int
	if nc > 16 {
		big = make([]int, 4*nc)
	}
	sl := func(b *[16]int, i int) []int {
		if big != nil {
			return big[i*nc : (i+1)*nc]
		}
		return b[:nc]
	}
	side := sl(&bufA, 0)
	sub := sl(&bufB, 1)
	rest := sl(&bufC, 2)
	hj := sl(&bufD, 3)

	// best subtree of depth <= 1 of a side (counts sc, size sn) of test i;
	// hiSide tells which side.
	bestSide := func(i int, sc []int, sn int, hiSide bool) (int, int) {
		be, bj := leafErr(sc), -1
		if be == 0 || sn < 2*minsup {
			return be, bj
		}
		for j := range K {
			if j == i {
				continue
			}
			var m int
			if hiSide {
				m = both(i, j, sub)
			} else {
				// rows where i is false and j true = (j true) - (both true)
				t := both(i, j, sub)
				hiOf(j, hj)
				m = fn[j] - t
				for c := range nc {
					sub[c] = hj[c] - sub[c]
				}
			}
			if m < minsup || sn-m < minsup {
				continue
			}
			for c := range nc {
				rest[c] = sc[c] - sub[c]
			}
			if e := leafErr(sub) + leafErr(rest); e < be {
				be, bj = e, j
				if e == 0 {
					break
				}
			}
		}
		return be, bj
	}

	bestErr := leafErr(tot)
	bi, bjLo, bjHi := -1, -1, -1
	for i := range K {
		if i&255 == 255 && s.ctx.Err() != nil {
			return nil, 0, false
		}
		hiOf(i, side)
		eh, jh := bestSide(i, side, fn[i], true)
		if eh >= bestErr {
			continue
		}
		for c := range nc {
			side[c] = tot[c] - side[c]
		}
		el, jl := bestSide(i, side, n-fn[i], false)
		if e := eh + el; e < bestErr {
			bestErr, bi, bjLo, bjHi = e, i, jl, jh
			if e == 0 {
				break
			}
		}
	}
	if bi < 0 {
		_, c := leafOf(cnt)
		return s.leaves[c], float64(bestErr), true
	}
	// Build the tree from the counts.
	mk := func(sc []int, j int, hiSide bool) *Tree {
		if j < 0 {
			return s.leaves[argmax(sc)]
		}
		if hiSide {
			both(bi, j, sub)
		} else {
			both(bi, j, sub)
			hiOf(j, hj)
			for c := range nc {
				sub[c] = hj[c] - sub[c]
			}
		}
		for c := range nc {
			rest[c] = sc[c] - sub[c]
		}
		return &Tree{Test: int(act[j]), Lo: s.leaves[argmax(rest)], Hi: s.leaves[argmax(sub)]}
	}
	hiOf(bi, side)
	hiT := mk(side, bjHi, true)
	for c := range nc {
		side[c] = tot[c] - side[c]
	}
	loT := mk(side, bjLo, false)
	return &Tree{Test: int(act[bi]), Lo: loT, Hi: hiT}, float64(bestErr), true
}

func argmax(x []int) int {
	b := 0
	for i, v := range x {
		if v > x[b] {
			b = i
		}
	}
	return b
}

// pairTable writes the pair counts (class 0 into p0, class 1 into p1, K×K
// with the tests' own counts on the diagonal) of the rows rows (n of
// them) over the tests act. It reports false when ctx ended.
func (s *search[T]) pairTable(rows []uint64, n int, act []int32, p0, p1 []int32) bool {
	K := len(act)
	cf, cc, nw := s.compactBranch(rows, n, act)
	c0 := cc[:nw]
	for i := range K {
		if s.ctx.Err() != nil {
			return false
		}
		t, z := 0, 0
		for w, x := range cf[i*nw : (i+1)*nw] {
			t += bits.OnesCount64(x)
			z += bits.OnesCount64(x & c0[w])
		}
		p0[i*K+i], p1[i*K+i] = int32(z), int32(t-z)
		pairCounts(cf, c0, i, K, nw, p0, p1)
	}
	return true
}

// compactBranch renumbers the branch's rows (n of them) 0..n-1 and
// returns, nw words each, the compact bitset of each test of act (cf,
// test k at k*nw) and of each class (cc), in the search's scratch.
func (s *search[T]) compactBranch(rows []uint64, n int, act []int32) (cf, cc []uint64, nw int) {
	K, nc := len(act), s.d.NC
	nw = (n + 63) / 64
	if need := K * nw; cap(s.cf) < need {
		s.cf = make([]uint64, need)
	}
	cf = s.cf[:K*nw]
	clear(cf)
	if need := nc * nw; cap(s.cc) < need {
		s.cc = make([]uint64, need)
	}
	cc = s.cc[:nc*nw]
	clear(cc)
	for k, t := range act {
		s.pos[t] = int32(k)
	}
	s.compact(rows, act, nw, cf, cc)
	for _, t := range act {
		s.pos[t] = -1
	}
	return cf, cc, nw
}

// pairCounts writes, for test i and every later test j, the class-0 and
// class-1 counts of the rows where both are true into p0 and p1 (both
// halves of the symmetric matrices), from the compact test bitsets cf
// (nw words per test) and the class-0 bitset c0. Branches of at most two
// and four words, the most frequent below the root, get unrolled loops.
func pairCounts(cf, c0 []uint64, i, K, nw int, p0, p1 []int32) {
	fi := cf[i*nw : (i+1)*nw]
	switch nw {
	case 1:
		a, m := fi[0], c0[0]
		for j := i + 1; j < K; j++ {
			x := a & cf[j]
			t := bits.OnesCount64(x)
			z := bits.OnesCount64(x & m)
			p0[i*K+j], p0[j*K+i] = int32(z), int32(z)
			p1[i*K+j], p1[j*K+i] = int32(t-z), int32(t-z)
		}
	case 2:
		a0, a1, m0, m1 := fi[0], fi[1], c0[0], c0[1]
		for j := i + 1; j < K; j++ {
			fj := cf[j*2 : j*2+2]
			x0, x1 := a0&fj[0], a1&fj[1]
			t := bits.OnesCount64(x0) + bits.OnesCount64(x1)
			z := bits.OnesCount64(x0&m0) + bits.OnesCount64(x1&m1)
			p0[i*K+j], p0[j*K+i] = int32(z), int32(z)
			p1[i*K+j], p1[j*K+i] = int32(t-z), int32(t-z)
		}
	case 4:
		a0, a1, a2, a3 := fi[0], fi[1], fi[2], fi[3]
		m0, m1, m2, m3 := a0&c0[0], a1&c0[1], a2&c0[2], a3&c0[3]
		for j := i + 1; j < K; j++ {
			fj := cf[j*4 : j*4+4]
			x0, x1, x2, x3 := fj[0], fj[1], fj[2], fj[3]
			t := bits.OnesCount64(a0&x0) + bits.OnesCount64(a1&x1) + bits.OnesCount64(a2&x2) + bits.OnesCount64(a3&x3)
			z := bits.OnesCount64(m0&x0) + bits.OnesCount64(m1&x1) + bits.OnesCount64(m2&x2) + bits.OnesCount64(m3&x3)
			p0[i*K+j], p0[j*K+i] = int32(z), int32(z)
			p1[i*K+j], p1[j*K+i] = int32(t-z), int32(t-z)
		}
	default:
		// fi and its class-0 part, then four words per step.
		var buf [2 * 64]uint64
		mi := buf[:0]
		if nw > 64 {
			mi = make([]uint64, 0, nw)
		}
		for w, x := range fi {
			mi = append(mi, x&c0[w])
		}
		q := nw &^ 3
		for j := i + 1; j < K; j++ {
			fj := cf[j*nw : (j+1)*nw]
			fj = fj[:len(fi)]
			mj := mi[:len(fi)]
			t, z := 0, 0
			w := 0
			for ; w < q; w += 4 {
				x := fj[w : w+4 : w+4]
				a, m := fi[w:w+4:w+4], mj[w:w+4:w+4]
				t += bits.OnesCount64(a[0]&x[0]) + bits.OnesCount64(a[1]&x[1]) + bits.OnesCount64(a[2]&x[2]) + bits.OnesCount64(a[3]&x[3])
				z += bits.OnesCount64(m[0]&x[0]) + bits.OnesCount64(m[1]&x[1]) + bits.OnesCount64(m[2]&x[2]) + bits.OnesCount64(m[3]&x[3])
			}
			for ; w < len(fj); w++ {
				t += bits.OnesCount64(fi[w] & fj[w])
				z += bits.OnesCount64(mj[w] & fj[w])
			}
			p0[i*K+j], p0[j*K+i] = int32(z), int32(z)
			p1[i*K+j], p1[j*K+i] = int32(t-z), int32(t-z)
		}
	}
}

// depth2Binary evaluates every depth-2 tree from the pair counts of a
// two-class branch: for each root test i, the best subtree of depth <= 1
// on each side, with plain integer arithmetic. p0 and p1 hold the class
// counts of the rows where both tests of a pair are true, and their
// diagonals those of each test's true side. act may hold tests that do
// not split the branch (its parent's, see depth2Linked): they are skipped
// as root tests, and as second tests they never give a strictly better
// subtree.
//
// With a minimum support of 1 the scans need no support check: a test j
// that leaves one side empty gives that side's leaf error, which never
// improves on it strictly.
func (s *search[T]) depth2Binary(act []int32, cnt []float64, n int, K int, p0, p1 []int32) (*Tree, float64, bool) {
	ms := int32(s.minsup)
	if cap(s.diag) < 2*K {
		s.diag = make([]int32, 2*K)
	}
	f0, f1 := s.diag[:K], s.diag[K:2*K]
	for i := range K {
		f0[i], f1[i] = p0[i*K+i], p1[i*K+i]
	}
	t0 := int32(cnt[0])
	t1 := int32(n) - t0
	bestErr := min(t0, t1)
	bi, bjLo, bjHi := -1, -1, -1
	for i := range K {
		if i&255 == 255 && s.ctx.Err() != nil {
			return nil, 0, false
		}
		h0, h1 := f0[i], f1[i]
		l0, l1 := t0-h0, t1-h1
		if h0+h1 < ms || l0+l1 < ms {
			// Not a test of the branch (see depth2Linked).
			continue
		}
		r0, r1 := p0[i*K:(i+1)*K], p1[i*K:(i+1)*K]
		r1 = r1[:len(r0)]
		// High side: rows where test i is true.
		eh, jh := min(h0, h1), -1
		if eh > 0 && h0+h1 >= 2*ms {
			if ms <= 1 {
				for j, b0 := range r0 {
					b1 := r1[j]
					if e := min(b0, b1) + min(h0-b0, h1-b1); e < eh {
						eh, jh = e, j
					}
				}
			} else {
				hn := h0 + h1
				for j, b0 := range r0 {
					b1 := r1[j]
					if bn := b0 + b1; bn < ms || hn-bn < ms {
						continue
					}
					if e := min(b0, b1) + min(h0-b0, h1-b1); e < eh {
						eh, jh = e, j
					}
				}
			}
		}
		if eh >= bestErr {
			continue
		}
		// Low side: rows where test i is false; test j's true side there
		// is j's true side less the pair's.
		el, jl := min(l0, l1), -1
		if el > 0 && l0+l1 >= 2*ms {
			g0, g1 := f0[:len(r0)], f1[:len(r0)]
			if ms <= 1 {
				for j, b0 := range r0 {
					j0, j1 := g0[j]-b0, g1[j]-r1[j]
					if e := min(j0, j1) + min(l0-j0, l1-j1); e < el {
						el, jl = e, j
					}
				}
			} else {
				ln := l0 + l1
				for j, b0 := range r0 {
					j0, j1 := g0[j]-b0, g1[j]-r1[j]
					if jn := j0 + j1; jn < ms || ln-jn < ms {
						continue
					}
					if e := min(j0, j1) + min(l0-j0, l1-j1); e < el {
						el, jl = e, j
					}
				}
			}
		}
		if e := eh + el; e < bestErr {
			bestErr, bi, bjLo, bjHi = e, i, jl, jh
			if e == 0 {
				break
			}
		}
	}
	cls := func(c0, c1 int32) int {
		if c1 > c0 {
			return 1
		}
		return 0
	}
	if bi < 0 {
		return s.leaves[cls(t0, t1)], float64(bestErr), true
	}
	h0, h1 := f0[bi], f1[bi]
	l0, l1 := t0-h0, t1-h1
	hiT := s.leaves[cls(h0, h1)]
	if jh := bjHi; jh >= 0 {
		b0, b1 := p0[bi*K+jh], p1[bi*K+jh]
		hiT = &Tree{Test: int(act[jh]), Lo: s.leaves[cls(h0-b0, h1-b1)], Hi: s.leaves[cls(b0, b1)]}
	}
	loT := s.leaves[cls(l0, l1)]
	if jl := bjLo; jl >= 0 {
		j0, j1 := f0[jl]-p0[bi*K+jl], f1[jl]-p1[bi*K+jl]
		loT = &Tree{Test: int(act[jl]), Lo: s.leaves[cls(l0-j0, l1-j1)], Hi: s.leaves[cls(j0, j1)]}
	}
	return &Tree{Test: int(act[bi]), Lo: loT, Hi: hiT}, float64(bestErr), true
}

// depth2Fits reports whether the depth-2 tables for K tests on n rows
// fit: under the Budget when one is set (their growth is reserved), else
// under maxDepth2Bytes. When they do not, the branch is searched the
// ordinary way.
func (s *search[T]) depth2Fits(K, n int) bool {
	nc := int64(s.d.NC)
	k, nw := int64(K), int64((n+63)/64)
	grow := func(have int, need, size int64) int64 {
		return max(0, need-int64(have)) * size
	}
	// Two classes: the two symmetric matrices only; else the pair table.
	sym, pairs := int64(0), k*k*nc
	if nc == 2 {
		sym, pairs = 2*k*k, 0
	}
	total := k*nw*8 + nc*nw*8 + pairs*4 + sym*4
	if s.cfg.Budget == nil {
		if total > maxDepth2Bytes {
			s.d2skip++
			return false
		}
		return true
	}
	more := grow(cap(s.cf), k*nw, 8) + grow(cap(s.cc), nc*nw, 8) + grow(cap(s.pairs), pairs, 4) + grow(cap(s.sym), sym, 4)
	if more == 0 {
		return true
	}
	if err := s.reserve(more, "dl85 depth-2 tables"); err != nil {
		s.d2skip++
		return false
	}
	return true
}

// compact renumbers the rows of the branch 0..n-1 and writes, for each
// active test k, the compact bitset of the rows where it is true into
// cf[k*nw:], and the class bitsets into cc. Rows are taken 64 at a time:
// their 64-test words form a 64×64 bit matrix, whose transpose holds one
// compact word per test.
func (s *search[T]) compact(rows []uint64, act []int32, nw int, cf, cc []uint64) {
	d := s.d
	mw := (d.M + 63) / 64
	if cap(s.actMask) < mw {
		s.actMask = make([]uint64, mw)
	}
	mask := s.actMask[:mw]
	clear(mask)
	for _, t := range act {
		mask[t>>6] |= 1 << (uint(t) & 63)
	}
	var blk [64]int32
	var m [64]uint64
	nb := 0
	p := 0
	flush := func() {
		pw := p >> 6
		for j, am := range mask {
			if am == 0 {
				continue
			}
			for q := range nb {
				m[q] = d.rowBits[blk[q]][j]
			}
			for q := nb; q < 64; q++ {
				m[q] = 0
			}
			model.Transpose64(&m)
			for am != 0 {
				b := bits.TrailingZeros64(am)
				am &= am - 1
				cf[int(s.pos[j*64+b])*nw+pw] = m[b]
			}
		}
		for q := range nb {
			cc[int(d.label[blk[q]])*nw+pw] |= 1 << uint(q)
		}
		p += 64
		nb = 0
	}
	for wi, x := range rows {
		for x != 0 {
			blk[nb] = int32(wi*64 + bits.TrailingZeros64(x))
			x &= x - 1
			nb++
			if nb == 64 {
				flush()
			}
		}
	}
	if nb > 0 {
		flush()
	}
}
