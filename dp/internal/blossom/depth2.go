package blossom

import "math/bits"

// solveDepth2 gives x its best tree of depth at most two. The rows of x
// are first packed (every candidate column and class plane restricted to
// x's rows, so a bitset is as long as x is large); then the class counts
// of every feature and every pair of features give the error of every
// tree of depth two in constant time each.
func (s *search) solveDepth2(id int32) {
	x := &s.nodes[id]
	s.stats.Depth2++
	x.done = true
	nb := 0
	for _, w := range x.nzw {
		nb += bits.OnesCount64(x.rows[w])
	}
	w2 := (nb + 63) / 64
	C := s.d.C
	nq := len(s.d.Planes)

	// Pack the class planes, then the candidate columns (dropping those
	// that take one value on all rows).
	s.pplanes = grow(s.pplanes, nq*w2)
	for q, p := range s.d.Planes {
		pack(s.pplanes[q*w2:(q+1)*w2], x, p.Bits)
	}
	cand := s.candidates(x)
	s.proj = grow(s.proj, len(cand)*w2)
	keep := cand[:0]
	for _, f := range cand {
		k := len(keep)
		out := s.proj[k*w2 : (k+1)*w2]
		pack(out, x, s.d.Cols[f])
		if !s.o.NoDropUninformative {
			n := 0
			for _, v := range out {
				n += bits.OnesCount64(v)
			}
			if n == 0 || n == nb {
				continue
			}
		}
		keep = append(keep, f)
	}
	m := len(keep)
	s.single = growI(s.single, m*C)
	s.pair = growI(s.pair, m*m*C)
	for k := range m {
		ck := s.proj[k*w2 : (k+1)*w2]
		sg := s.single[k*C : (k+1)*C]
		for q, p := range s.d.Planes {
			pl := s.pplanes[q*w2 : (q+1)*w2]
			n := 0
			for i, v := range ck {
				n += bits.OnesCount64(v & pl[i])
			}
			sg[p.Class] += int64(n) << p.Shift
		}
		for l := k + 1; l < m; l++ {
			cl := s.proj[l*w2 : (l+1)*w2]
			pr := s.pair[(k*m+l)*C : (k*m+l+1)*C]
			if nq == 2 && s.d.Planes[0].Shift == 0 && s.d.Planes[1].Shift == 0 && C == 2 {
				p0, p1 := s.pplanes[:w2], s.pplanes[w2:2*w2]
				n0, n1 := 0, 0
				for i, v := range ck {
					t := v & cl[i]
					n0 += bits.OnesCount64(t & p0[i])
					n1 += bits.OnesCount64(t & p1[i])
				}
				pr[0], pr[1] = int64(n0), int64(n1)
			} else {
				for q, p := range s.d.Planes {
					pl := s.pplanes[q*w2 : (q+1)*w2]
					n := 0
					for i, v := range ck {
						n += bits.OnesCount64(v & cl[i] & pl[i])
					}
					pr[p.Class] += int64(n) << p.Shift
				}
			}
			copy(s.pair[(l*m+k)*C:(l*m+k+1)*C], pr)
		}
	}

	best := x.leafErr
	bk, bh, bl := -1, -1, -1
	hc, lc, tc := s.hc, s.lc, s.tc
	if C == 2 {
		t0, t1 := x.cls[0], x.cls[1]
		for k := range m {
			h0, h1 := s.single[2*k], s.single[2*k+1]
			l0, l1 := t0-h0, t1-h1
			eh, el := min(h0, h1), min(l0, l1)
			fh, fl := -1, -1
			for l := range m {
				if l == k {
					continue
				}
				pr := s.pair[(k*m+l)*2:]
				p0, p1 := pr[0], pr[1]
				if e := min(p0, p1) + min(h0-p0, h1-p1); e < eh {
					eh, fh = e, l
				}
				q0, q1 := s.single[2*l]-p0, s.single[2*l+1]-p1
				if e := min(q0, q1) + min(l0-q0, l1-q1); e < el {
					el, fl = e, l
				}
			}
			if eh+el < best {
				best, bk, bh, bl = eh+el, k, fh, fl
			}
		}
	} else {
		for k := range m {
			sk := s.single[k*C : (k+1)*C]
			for c := range C {
				lc[c] = x.cls[c] - sk[c]
			}
			eh, _ := errOf(sk)
			el, _ := errOf(lc)
			fh, fl := -1, -1
			for l := range m {
				if l == k {
					continue
				}
				pr := s.pair[(k*m+l)*C : (k*m+l+1)*C]
				for c := range C {
					hc[c] = sk[c] - pr[c]
				}
				e1, _ := errOf(pr)
				e2, _ := errOf(hc)
				if e1+e2 < eh {
					eh, fh = e1+e2, l
				}
				sl := s.single[l*C : (l+1)*C]
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
	sk := s.single[bk*C : (bk+1)*C]
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
		pr := s.pair[(bk*m+g)*C : (bk*m+g+1)*C]
		gh := make([]int64, C) // rows of this side where g is true
		gl := make([]int64, C)
		for c := range C {
			if high {
				gh[c] = pr[c]
			} else {
				gh[c] = s.single[g*C+c] - pr[c]
			}
			gl[c] = cnt[c] - gh[c]
		}
		_, ch := errOf(gh)
		_, cl := errOf(gl)
		return &Tree{Feature: int(keep[g]), Low: s.leaves[cl], High: s.leaves[ch]}
	}
	x.best = best
	x.tree = &Tree{Feature: int(keep[bk]), Low: side(lcnt, bl, false), High: side(hcnt, bh, true)}
	s.propagate(id)
}

// pack writes the bits of col at x's rows, in row order, into out.
func pack(out []uint64, x *node, col []uint64) {
	clear(out)
	i := 0
	for _, w := range x.nzw {
		b := x.rows[w]
		v := col[w]
		if v&b == b {
			// all rows of this word are set: write popcount(b) ones
			n := bits.OnesCount64(b)
			for n > 0 {
				k := min(n, 64-(i&63))
				out[i>>6] |= (^uint64(0) >> uint(64-k)) << uint(i&63)
				i += k
				n -= k
			}
			continue
		}
		if v&b == 0 {
			i += bits.OnesCount64(b)
			continue
		}
		for b != 0 {
			t := bits.TrailingZeros64(b)
			if v>>uint(t)&1 != 0 {
				out[i>>6] |= 1 << uint(i&63)
			}
			i++
			b &= b - 1
		}
	}
}

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
