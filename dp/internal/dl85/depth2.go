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
	rows := s.sets[lv]
	nw := (n + 63) / 64

	if need := K * nw; cap(s.cf) < need {
		s.cf = make([]uint64, need)
	}
	cf := s.cf[:K*nw]
	clear(cf)
	if need := nc * nw; cap(s.cc) < need {
		s.cc = make([]uint64, need)
	}
	cc := s.cc[:nc*nw]
	clear(cc)
	for k, t := range act {
		s.pos[t] = int32(k)
	}
	s.compact(rows, act, nw, cf, cc)
	for _, t := range act {
		s.pos[t] = -1
	}

	if nc == 2 {
		// Two classes: full symmetric matrices of pair counts, pt (rows
		// with both tests true) and p0 (of which class 0), written at
		// once, so that the scan below reads each test's row in order.
		if need := 2 * K * K; cap(s.sym) < need {
			s.sym = make([]int32, need)
		}
		pt := s.sym[:K*K]
		p0 := s.sym[K*K : 2*K*K]
		c0 := cc[:nw]
		for i := range K {
			if s.ctx.Err() != nil {
				return nil, 0, false
			}
			fi := cf[i*nw : (i+1)*nw]
			pt[i*K+i], p0[i*K+i] = int32(fn[i]), int32(fc[2*i])
			for j := i + 1; j < K; j++ {
				fj := cf[j*nw : (j+1)*nw]
				fj = fj[:len(fi)]
				c0 := c0[:len(fi)]
				t, z := 0, 0
				for w, a := range fi {
					x := a & fj[w]
					t += bits.OnesCount64(x)
					z += bits.OnesCount64(x & c0[w])
				}
				pt[i*K+j], pt[j*K+i] = int32(t), int32(t)
				p0[i*K+j], p0[j*K+i] = int32(z), int32(z)
			}
		}
		return s.depth2Binary(act, cnt, n, fn, fc, K, pt, p0)
	}

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

// depth2Binary evaluates every depth-2 tree from the pair counts of a
// two-class branch: for each root test i, the best subtree of depth <= 1
// on each side, with plain integer arithmetic.
func (s *search[T]) depth2Binary(act []int32, cnt []float64, n int, fn []int, fc []float64, K int, pt, p0 []int32) (*Tree, float64, bool) {
	minsup := s.minsup
	f0 := make([]int32, K)
	fnn := make([]int32, K)
	for i := range K {
		f0[i] = int32(fc[2*i])
		fnn[i] = int32(fn[i])
	}
	ms := int32(minsup)
	t0, tn := int32(cnt[0]), int32(n)
	bestErr := min(t0, tn-t0)
	bi, bjLo, bjHi := -1, -1, -1
	for i := range K {
		if i&255 == 255 && s.ctx.Err() != nil {
			return nil, 0, false
		}
		h0, hn := f0[i], fnn[i]
		l0, ln := t0-h0, tn-hn
		ptr, p0r := pt[i*K:(i+1)*K], p0[i*K:(i+1)*K]
		// High side: rows where test i is true.
		eh, jh := min(h0, hn-h0), -1
		if eh > 0 && hn >= 2*ms {
			for j := range K {
				bn, b0 := ptr[j], p0r[j]
				if bn < ms || hn-bn < ms {
					continue
				}
				if e := min(b0, bn-b0) + min(h0-b0, hn-h0-bn+b0); e < eh {
					eh, jh = e, j
				}
			}
		}
		if eh >= bestErr {
			continue
		}
		el, jl := min(l0, ln-l0), -1
		if el > 0 && ln >= 2*ms {
			for j := range K {
				jn, j0 := fnn[j]-ptr[j], f0[j]-p0r[j]
				if jn < ms || ln-jn < ms {
					continue
				}
				if e := min(j0, jn-j0) + min(l0-j0, ln-jn-l0+j0); e < el {
					el, jl = e, j
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
	cls := func(c0, cn int32) int {
		if cn-c0 > c0 {
			return 1
		}
		return 0
	}
	if bi < 0 {
		return s.leaves[cls(t0, tn)], float64(bestErr), true
	}
	h0, hn := f0[bi], fnn[bi]
	l0, ln := t0-h0, tn-hn
	hiT := s.leaves[cls(h0, hn)]
	if jh := bjHi; jh >= 0 {
		bn, b0 := pt[bi*K+jh], p0[bi*K+jh]
		hiT = &Tree{Test: int(act[jh]), Lo: s.leaves[cls(h0-b0, hn-bn)], Hi: s.leaves[cls(b0, bn)]}
	}
	loT := s.leaves[cls(l0, ln)]
	if jl := bjLo; jl >= 0 {
		jn, j0 := fnn[jl]-pt[bi*K+jl], f0[jl]-p0[bi*K+jl]
		loT = &Tree{Test: int(act[jl]), Lo: s.leaves[cls(l0-j0, ln-jn)], Hi: s.leaves[cls(j0, jn)]}
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
