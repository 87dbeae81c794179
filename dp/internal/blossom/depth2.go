package blossom

import "math/bits"

// solveDepth2 gives x its best tree of depth at most two, from the class
// counts of every candidate feature and every pair of them (see counts).
//
// When the sibling of x is a bud with two levels left as well, both are
// solved at once: the counts of the parent are kept (for the last parent
// that tried at least two tests), the counts of the smaller sibling are
// computed, and those of the larger one are the difference.
func (s *search) solveDepth2(id int32) {
	x := &s.nodes[id]
	C := s.d.C
	if p := x.parent; p >= 0 {
		P := &s.nodes[p]
		sib := P.kids[0]
		if sib == id {
			sib = P.kids[1]
		}
		Y := &s.nodes[sib]
		if !Y.done && Y.depth == x.depth && (s.cacheInst == P.inst || P.next >= 2) {
			feats := P.dom
			m := len(feats)
			if s.cacheInst != P.inst {
				s.cacheSingle = growI(s.cacheSingle, m*C)
				s.cachePair = growI(s.cachePair, m*m*C)
				s.cacheInst = -1
				if !s.counts(P, feats, s.cacheSingle, s.cachePair) {
					return
				}
				s.cacheInst = P.inst
				s.stats.ParentCounts++
			}
			small, large := id, sib
			if Y.total < x.total {
				small, large = sib, id
			}
			s.single = growI(s.single, m*C)
			s.pair = growI(s.pair, m*m*C)
			if !s.counts(&s.nodes[small], feats, s.single, s.pair) {
				return
			}
			s.evaluate(small, feats, P.feat, s.single, s.pair)
			for i, v := range s.cacheSingle {
				s.single[i] = v - s.single[i]
			}
			for i, v := range s.cachePair {
				s.pair[i] = v - s.pair[i]
			}
			s.evaluate(large, feats, P.feat, s.single, s.pair)
			s.propagate(id)
			return
		}
	}
	feats := s.candidates(x)
	m := len(feats)
	s.single = growI(s.single, m*C)
	s.pair = growI(s.pair, m*m*C)
	if !s.counts(x, feats, s.single, s.pair) {
		return
	}
	s.evaluate(id, feats, -1, s.single, s.pair)
	s.propagate(id)
}

// counts fills single[k*C+c] with the weighted count of the rows of x of
// class c on which feats[k] is true, and pair[(k*m+l)*C+c] with those on
// which feats[k] and feats[l] are both true. The rows of x are packed
// first (each column restricted to x's rows, so that a bitset is as long
// as x is large, see layout). It returns false, the counts unfinished,
// when the context ended (looked at every 16 features while packing and
// once per feature while counting).
func (s *search) counts(x *node, feats []int32, single, pair []int64) bool {
	C := s.d.C
	w2 := s.layout(x)
	m := len(feats)
	s.proj = grow(s.proj, m*w2)
	for k, f := range feats {
		// Packing the root of a million rows takes seconds over thousands
		// of features: look at the context as the pair counts do.
		if k&15 == 15 && s.looked() {
			return false
		}
		s.pack(s.proj[k*w2:(k+1)*w2], x, s.d.Cols[f])
	}
	for k := range m {
		if s.looked() {
			return false
		}
		ck := s.proj[k*w2 : (k+1)*w2]
		sg := single[k*C : (k+1)*C]
		for _, g := range s.psegs {
			n := 0
			for _, v := range ck[g.a:g.b] {
				n += bits.OnesCount64(v)
			}
			sg[g.class] += int64(n) * g.weight
		}
		for l := k + 1; l < m; l++ {
			cl := s.proj[l*w2 : (l+1)*w2]
			pr := pair[(k*m+l)*C : (k*m+l+1)*C]
			for _, g := range s.psegs {
				n := 0
				a, b := ck[g.a:g.b], cl[g.a:g.b]
				for i, v := range a {
					n += bits.OnesCount64(v & b[i])
				}
				pr[g.class] += int64(n) * g.weight
			}
			copy(pair[(l*m+k)*C:(l*m+k+1)*C], pr)
		}
	}
	return true
}

// depth2Fits reports whether the tables of the two-level rule for branch
// id fit (their growth is reserved in the budget; without a budget they
// must stay under maxDepth2Bytes). When they do not, the branch is
// searched feature by feature.
//
// Each table is accounted at the largest size it was given room for
// (tableRoom): a table is only ever replaced by a larger one, whose
// predecessor is then garbage, so what the tables hold at any time is at
// most that. A branch whose tables fit within the room already reserved
// reserves nothing more, however often the search comes back to it.
func (s *search) depth2Fits(id int32) bool {
	x := &s.nodes[id]
	C := int64(s.d.C)
	m := int64(len(s.candidates(x)))
	if x.parent >= 0 {
		m++ // the sibling rule counts on the parent's whole domain
	}
	w2 := int64(0)
	for _, w := range x.nzw {
		w2 += int64(bits.OnesCount64(x.rows[w]))
	}
	w2 = w2/64 + int64(s.d.C) + 1 // packed words, with padding per segment
	if p := x.parent; p >= 0 {
		w2 = max(w2, int64(len(s.nodes[p].nzw))) // the parent's counts, for two siblings
	}
	// single and pair, for the branch and its parent's cache, and the
	// packed columns, in elements of 8 bytes.
	need := [len(s.tableRoom)]int64{m * C, m * m * C, m * C, m * m * C, m * w2}
	total, more := int64(0), int64(0)
	for i, n := range need {
		total += 8 * n
		more += 8 * max(0, n-s.tableRoom[i])
	}
	if s.budget == nil {
		if total > maxDepth2Bytes {
			s.stats.Depth2Skipped++
			return false
		}
	} else if s.reserve(more, "blossom pair tables") != nil {
		s.stats.Depth2Skipped++
		return false
	}
	for i, n := range need {
		s.tableRoom[i] = max(s.tableRoom[i], n)
	}
	return true
}

// evaluate sets x's best tree of depth at most two from the counts of
// feats on its rows; feature skip and (unless switched off) the features
// that take one value on all rows of x are not tested.
func (s *search) evaluate(id int32, feats []int32, skip int32, single, pair []int64) {
	x := &s.nodes[id]
	x.done = true
	s.stats.Depth2++
	C := s.d.C
	m := len(feats)
	keep := s.keep[:0]
	for k, f := range feats {
		if f == skip {
			continue
		}
		if !s.o.NoDropUninformative {
			var n int64
			for _, v := range single[k*C : (k+1)*C] {
				n += v
			}
			if n == 0 || n == x.total {
				continue
			}
		}
		keep = append(keep, k)
	}
	s.keep = keep

	best := x.leafErr
	bk, bh, bl := -1, -1, -1
	hc, lc, tc := s.hc, s.lc, s.tc
	if C == 2 {
		t0, t1 := x.cls[0], x.cls[1]
		for _, k := range keep {
			h0, h1 := single[2*k], single[2*k+1]
			l0, l1 := t0-h0, t1-h1
			eh, el := min(h0, h1), min(l0, l1)
			fh, fl := -1, -1
			for _, l := range keep {
				if l == k {
					continue
				}
				pr := pair[(k*m+l)*2:]
				p0, p1 := pr[0], pr[1]
				if e := min(p0, p1) + min(h0-p0, h1-p1); e < eh {
					eh, fh = e, l
				}
				q0, q1 := single[2*l]-p0, single[2*l+1]-p1
				if e := min(q0, q1) + min(l0-q0, l1-q1); e < el {
					el, fl = e, l
				}
			}
			if eh+el < best {
				best, bk, bh, bl = eh+el, k, fh, fl
			}
		}
	} else {
		for _, k := range keep {
			sk := single[k*C : (k+1)*C]
			for c := range C {
				lc[c] = x.cls[c] - sk[c]
			}
			eh, _ := errOf(sk)
			el, _ := errOf(lc)
			fh, fl := -1, -1
			for _, l := range keep {
				if l == k {
					continue
				}
				pr := pair[(k*m+l)*C : (k*m+l+1)*C]
				for c := range C {
					hc[c] = sk[c] - pr[c]
				}
				e1, _ := errOf(pr)
				e2, _ := errOf(hc)
				if e1+e2 < eh {
					eh, fh = e1+e2, l
				}
				sl := single[l*C : (l+1)*C]
				for c := range C {
					hc[c] = sl[c] - pr[c]
					tc[c] = lc[c] - hc[c]
				}
				e1, _ = errOf(hc)
				e2, _ = errOf(tc)
				if e1+e2 < el {
					el, fl = e1+e2, l
				}
			}
			if eh+el < best {
				best, bk, bh, bl = eh+el, k, fh, fl
			}
		}
	}
	if bk < 0 {
		return
	}
	// Rebuild the chosen tree with the classes of its leaves.
	sk := single[bk*C : (bk+1)*C]
	hcnt := append([]int64(nil), sk...)
	lcnt := make([]int64, C)
	for c := range C {
		lcnt[c] = x.cls[c] - sk[c]
	}
	side := func(cnt []int64, g int, high bool) *Tree {
		if g < 0 {
			_, c := errOf(cnt)
			return s.leaves[c]
		}
		pr := pair[(bk*m+g)*C : (bk*m+g+1)*C]
		gh := make([]int64, C) // rows of this side where g is true
		gl := make([]int64, C)
		for c := range C {
			if high {
				gh[c] = pr[c]
			} else {
				gh[c] = single[g*C+c] - pr[c]
			}
			gl[c] = cnt[c] - gh[c]
		}
		_, ch := errOf(gh)
		_, cl := errOf(gl)
		return &Tree{Feature: int(feats[g]), Low: s.leaves[cl], High: s.leaves[ch]}
	}
	x.best = best
	x.tree = &Tree{Feature: int(feats[bk]), Low: side(lcnt, bl, false), High: side(hcnt, bh, true)}
}

// packSeg is a range [a, b) of packed words holding rows of one class
// and one weight.
type packSeg struct {
	a, b   int
	class  int
	weight int64
}

// layout plans the packing of x's rows: the rows of each segment of the
// data, in order, from a word boundary on. It fills s.psegs and s.ppos
// (the first packed bit of each word of x.nzw) and returns the number of
// packed words.
func (s *search) layout(x *node) int {
	s.psegs = s.psegs[:0]
	s.ppos = s.ppos[:0]
	pos := 0
	for i, w := range x.nzw {
		c, wt := int(s.d.WordClass[w]), s.d.WordWeight[w]
		if i == 0 || c != s.psegs[len(s.psegs)-1].class || wt != s.psegs[len(s.psegs)-1].weight {
			if len(s.psegs) > 0 {
				pos = (pos + 63) &^ 63
				s.psegs[len(s.psegs)-1].b = pos / 64
			}
			s.psegs = append(s.psegs, packSeg{a: pos / 64, class: c, weight: wt})
		}
		s.ppos = append(s.ppos, int32(pos))
		pos += bits.OnesCount64(x.rows[w])
	}
	w2 := (pos + 63) / 64
	if len(s.psegs) > 0 {
		s.psegs[len(s.psegs)-1].b = w2
	}
	return w2
}

// pack writes the bits of col at x's rows into out, following the layout.
func (s *search) pack(out []uint64, x *node, col []uint64) {
	clear(out)
	for i, w := range x.nzw {
		b := x.rows[w]
		v := col[w] & b
		if v == 0 {
			continue
		}
		pos := int(s.ppos[i])
		if v == b {
			// every row of the word is set: write popcount(b) ones
			for n := bits.OnesCount64(b); n > 0; {
				k := min(n, 64-(pos&63))
				out[pos>>6] |= (^uint64(0) >> uint(64-k)) << uint(pos&63)
				pos += k
				n -= k
			}
			continue
		}
		for b != 0 {
			mb := b & 0xff
			if mb != 0 {
				c := uint64(pext8[mb<<8|v&0xff])
				k := bits.OnesCount64(mb)
				if c != 0 {
					sh := uint(pos & 63)
					out[pos>>6] |= c << sh
					if int(sh)+k > 64 {
						out[pos>>6+1] |= c >> (64 - sh)
					}
				}
				pos += k
			}
			b >>= 8
			v >>= 8
		}
	}
}

// pext8[m<<8|v] packs the bits of v selected by the mask m to the low end.
var pext8 = func() []uint8 {
	t := make([]uint8, 1<<16)
	for m := range 256 {
		for v := range 256 {
			var out, k uint8
			for j := range 8 {
				if m>>j&1 != 0 {
					out |= uint8(v>>j&1) << k
					k++
				}
			}
			t[m<<8|v] = out
		}
	}
	return t
}()

func grow(b []uint64, n int) []uint64 {
	if cap(b) < n {
		return make([]uint64, n)
	}
	b = b[:n]
	clear(b)
	return b
}

func growI(b []int64, n int) []int64 {
	if cap(b) < n {
		return make([]int64, n)
	}
	b = b[:n]
	clear(b)
	return b
}
