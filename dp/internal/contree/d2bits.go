package contree

import (
	"math/bits"
)

// Depth-two splits by bit sets.
//
// A row scan of d2scan2 (d2scanK) costs a load of the row's side mark per
// row, and most rows only add to the counts. For a depth-two subproblem v
// and first feature f1, every second feature's order gets bit sets, one
// bit per position: the row is of class 1 (fixed; with k > 2 classes one
// set per class), a value boundary follows it (fixed), and the row is left
// of f1's current threshold (moved from one threshold to the next by
// flipping the rows between them, from the nearest of the current marks
// and the marks saved at checkpoints of f1's order). A scan then counts
// 64 rows at a time with popcounts and looks at single boundaries only in
// the words where a side is due (see d2scan2); where both sides are far
// from due it jumps to the first position where one is (nthBit).
//
// The result is d2scan2's (d2scanK's) exactly: a boundary is left out
// only where its side's error cannot be below the best so far, so each
// side's best is the first boundary of least error, as in the row scan:
// the same best positions, trees and hints. (The two-class scans evaluate
// the same boundaries; the k-class bit scan, which renews its due counts
// at the words it looks at, evaluates fewer.)

// bitsMinCalls is the depth-two calls of a (v, f1) by rows before its
// bit sets are built. The build costs about two calls by rows, and yet
// building at the first call measured faster (bidding at depth 4: 2.2
// against 3.0 CPU s with 1, raisin 33.2 against 34.7): a call by rows
// costs more than the build's share once the nested sides' floors
// (nest.go) leave fewer calls to share it.
const bitsMinCalls = 0

// bitsMinCallsK is the same with more than two classes, whose build
// clears and fills a bit set per class; it applies only while the
// subproblem's sets are not built (a later first feature reuses them and
// goes by bit sets from its first call).
const bitsMinCallsK = 4

// bitsMinRowsK is the least rows of a subproblem with more than two
// classes whose depth-two calls go by bit sets: below it the per-class
// counts of each due word cost about what the rows do.
const bitsMinRowsK = 512

// nearDue is the number of rows both sides may still lack before they are
// due below which a scan steps to the next boundary rather than jumping
// to the first due position (a jump costs about as much as a few steps).
const nearDue = 4

// d2bits is the bit-set state of one level's depth-two search.
type d2bits struct {
	calls int
	ready bool
	off   bool
	n, nw int
	cur   int             // f1 positions [0, cur) are marked left
	cl    [MaxClasses]int // class counts of the rows marked left
	// The class and boundary sets depend only on the
	// subproblem's rows, not on f1: they are built once for the
	// subproblem whose row set has key (vn, vh1, vh2) and kept while the
	// level's later calls are on the same rows (its other first
	// features).
	built    bool
	vn       int
	vh1, vh2 uint64
	inv      []int32  // inv[r]: position in f1's order of row r (scratch of buildBits)
	posIn    []int32  // posIn[f2*n+i]: position in f2's order of f1's i-th row
	sb       []uint64 // left marks, nw words per feature
	// yb is the class-1 rows of each feature (two classes), or with k
	// classes class y's rows of feature f's word w at yb[(f*nw+w)*k+y]
	// (a word's classes side by side, as the scans read them).
	yb []uint64
	// pre is, with k classes, the rows of class y in the words of
	// feature f before word w at pre[(f*nw+w)*k+y]: a side's class counts
	// are then those of the left side's and their difference.
	pre  []int32
	bb   []uint64 // a boundary after the position
	run  []int    // k classes: the left side's running class counts (see scanK)
	low  []int    // k classes: class counts below a boundary by side
	due  []int    // k classes: due class counts by side (see d2scan.setDue)
	in   []int    // k classes: each side's class counts in a word (see scanK)
	relU []int    // k classes: both sides' relevant classes
	// Snapshots of the left marks at checkpoints, every snapB rows of
	// f1's order (snapB·j for j = 1..snapN, all below n), saved as a
	// move passes them and loaded when one is nearer the new threshold
	// than the current marks (see moveTo). snapB 0: none.
	snapB, snapN int
	snap         []uint64 // checkpoint j's marks at snap[(j-1)*p*nw:]
	snapCl       []int    // its left class counts at snapCl[(j-1)*k:]
	snapOK       []bool   // checkpoint j saved for the current f1
	// floor is the current call's side floors (solver.d2floor), held
	// here rather than passed to scan: as a parameter, rice at depth 3
	// took 6 % more time.
	floor [2]int
}

func (bt *d2bits) reset() { bt.calls, bt.ready, bt.off = 0, false, false }

// bitsDue tells whether the next depth-two call of (v, f1)
// goes by bit sets, building them on the bitsMinCalls-th call.
func (s *solver) bitsDue(v *view, bt *d2bits, f1 int) bool {
	if bt.ready {
		return true
	}
	if bt.off || s.k < 2 || s.cfg.NoBits || s.k > 2 && v.n < bitsMinRowsK {
		return false
	}
	bt.calls++
	if bt.calls <= bitsMinCalls || s.k > 2 && bt.calls <= bitsMinCallsK && !bt.builtFor(v) {
		return false
	}
	if !s.buildBits(v, bt, f1) {
		bt.off = true
		return false
	}
	bt.ready = true
	return true
}

// buildBits readies the bit sets of (v, f1) with no row marked left,
// building the class and boundary sets only when v's rows are
// not those they were built for; false when the Budget refuses their
// memory.
func (s *solver) buildBits(v *view, bt *d2bits, f1 int) bool {
	n := v.n
	nw := (n + 63) / 64
	if !bt.builtFor(v) {
		if !s.buildShared(v, bt) {
			return false
		}
	}
	p := s.p
	s.work += p * n
	bt.cur = 0
	clear(bt.cl[:s.k])
	clear(bt.sb[:p*nw])
	clear(bt.snapOK)
	// Each feature's order read in sequence, with the rows' positions in
	// f1's order at hand (inv), writes posIn within n entries: cheaper
	// than gathering each row's p positions from a table of all rows.
	inv := bt.inv
	for i, e := range v.cols[f1] {
		inv[e.row()] = int32(i)
	}
	for f := range p {
		pi := bt.posIn[f*n : f*n+n]
		for j, e := range v.cols[f] {
			pi[inv[e.row()]] = int32(j)
		}
	}
	return true
}

// builtFor tells whether the sets that do not depend on the first
// feature are those of v's rows.
func (bt *d2bits) builtFor(v *view) bool {
	return bt.built && bt.vn == v.n && bt.vh1 == v.h1 && bt.vh2 == v.h2
}

// buildShared builds the bit sets of v that do not depend on the first
// feature: the class and boundary sets.
func (s *solver) buildShared(v *view, bt *d2bits) bool {
	bt.built = false
	n := v.n
	nw := (n + 63) / 64
	ny := 1 // class bit sets per feature
	if s.k > 2 {
		ny = s.k
	}
	npre := 0
	if ny > 1 {
		npre = s.p * nw * ny
	}
	snapB, snapN := snapPlan(n, s.p*nw)
	need := int64(s.n)*4 + int64(s.p)*(int64(n)*4+int64(nw)*8*int64(2+ny)) + int64(npre)*4 + int64(s.k)*56 +
		int64(snapN)*(int64(s.p*nw)+int64(s.k))*8
	have := int64(cap(bt.inv)+cap(bt.posIn)+cap(bt.pre))*4 + int64(cap(bt.sb)+cap(bt.yb)+cap(bt.bb))*8 + int64(cap(bt.run)+cap(bt.low)+cap(bt.due)+cap(bt.in))*8 +
		int64(cap(bt.snap)+cap(bt.snapCl))*8
	if len(bt.inv) < s.n || len(bt.posIn) < s.p*n || len(bt.sb) < s.p*nw || len(bt.yb) < s.p*ny*nw || len(bt.pre) < npre || len(bt.run) != s.k ||
		cap(bt.snap) < snapN*s.p*nw || cap(bt.snapCl) < snapN*s.k {
		if need > have {
			if err := s.cfg.Budget.Reserve(need-have, "contree depth-two bit sets"); err != nil {
				return false
			}
			s.held += need - have
		}
		bt.inv = make([]int32, s.n)
		bt.posIn = make([]int32, s.p*n)
		bt.sb = make([]uint64, s.p*nw)
		bt.yb = make([]uint64, s.p*ny*nw)
		bt.pre = make([]int32, npre)
		bt.bb = make([]uint64, s.p*nw)
		bt.run, bt.low, bt.due, bt.in = make([]int, s.k), make([]int, 2*s.k), make([]int, 2*s.k), make([]int, 2*s.k)
		bt.relU = make([]int, 0, s.k)
		bt.snap, bt.snapCl = make([]uint64, snapN*s.p*nw), make([]int, snapN*s.k)
	}
	bt.snapB, bt.snapN = snapB, snapN
	bt.snapOK = append(bt.snapOK[:0], make([]bool, snapN+1)...)
	s.work += 2 * s.p * n
	bt.n, bt.nw = n, nw
	p := s.p
	for f := range p {
		col := v.cols[f]
		yb := bt.yb[f*ny*nw : (f+1)*ny*nw]
		bb := bt.bb[f*nw : f*nw+nw]
		clear(yb)
		clear(bb)
		for i, e := range col {
			if ny == 1 {
				yb[i>>6] |= uint64(e.label()) << (i & 63)
			} else {
				yb[(i>>6)*ny+int(e.label())] |= 1 << (i & 63)
			}
			if i+1 < n && col[i+1].rank != e.rank {
				bb[i>>6] |= 1 << (i & 63)
			}
		}
		if ny > 1 {
			pre := bt.pre[f*nw*ny : (f+1)*nw*ny]
			clear(pre[:ny])
			for w := 1; w < nw; w++ {
				for y := range ny {
					pre[w*ny+y] = pre[(w-1)*ny+y] + int32(bits.OnesCount64(yb[(w-1)*ny+y]))
				}
			}
		}
	}
	bt.built, bt.vn, bt.vh1, bt.vh2 = true, n, v.h1, v.h2
	return true
}

// snapMax and snapMaxBytes bound the checkpoints of the left marks
// (their count, and their memory per level): snapshots every n/32 rows
// (at least snapMinRows) of a subproblem of n rows.
const (
	snapMax      = 32
	snapMaxBytes = 8 << 20
	snapMinRows  = 64
)

// snapPlan is the checkpoint spacing and count for n rows whose marks
// take words 64-bit words (0, 0: no checkpoints).
func snapPlan(n, words int) (b, cnt int) {
	most := min(snapMax, snapMaxBytes/(8*words))
	if most < 1 {
		return 0, 0
	}
	b = max(snapMinRows, (n+most)/(most+1))
	cnt = (n - 1) / b
	if cnt < 1 {
		return 0, 0
	}
	return b, cnt
}

// moveTo marks f1's first cut rows left in every feature's bit set. It
// starts from the nearest of the current marks, no row left, every row
// left and the saved checkpoints, then flips the rows between, saving
// the checkpoints it passes.
func (s *solver) moveTo(v *view, bt *d2bits, f1, cut int) {
	n, nw, p, k := bt.n, bt.nw, s.p, s.k
	words := p * nw
	from, cost, src := bt.cur, abs(cut-bt.cur), -1
	if cut < cost && cut <= n-cut {
		from, cost, src = 0, cut, -2
	} else if n-cut < cost {
		from, cost, src = n, n-cut, -3
	}
	B := bt.snapB
	if B > 0 {
		pen := nw/8 + 1 // a copy of the marks, in rows flipped
		for _, j := range [2]int{cut / B, cut/B + 1} {
			if j >= 1 && j <= bt.snapN && bt.snapOK[j] {
				if c := abs(cut-j*B) + pen; c < cost {
					from, cost, src = j*B, c, j
				}
			}
		}
	}
	switch {
	case src == -2:
		clear(bt.sb[:words])
		clear(bt.cl[:k])
	case src == -3:
		sb := bt.sb[:words]
		for i := range sb {
			sb[i] = ^uint64(0)
		}
		if r := n & 63; r != 0 {
			for f := range p {
				sb[f*nw+nw-1] = uint64(1)<<r - 1
			}
		}
		copy(bt.cl[:k], v.counts)
	case src > 0:
		copy(bt.sb[:words], bt.snap[(src-1)*words:src*words])
		copy(bt.cl[:k], bt.snapCl[(src-1)*k:src*k])
		s.work += words / 8
	}
	for from != cut {
		to := cut
		if B > 0 {
			if from < cut {
				if c := (from/B + 1) * B; c < cut && c/B <= bt.snapN {
					to = c
				}
			} else if c := (from - 1) / B * B; c > cut && c >= B {
				to = c
			}
		}
		bt.flip(s, v, f1, min(from, to), max(from, to), to < from)
		from = to
		if B > 0 && from%B == 0 {
			if j := from / B; j >= 1 && j <= bt.snapN && !bt.snapOK[j] {
				copy(bt.snap[(j-1)*words:j*words], bt.sb[:words])
				copy(bt.snapCl[(j-1)*k:j*k], bt.cl[:k])
				bt.snapOK[j] = true
				s.work += words / 8
			}
		}
	}
	bt.cur = cut
}

// flip flips the marks of f1's rows at positions lo..hi-1 in every
// feature's bit set and moves their classes into (or, with out, out of)
// the left counts.
func (bt *d2bits) flip(s *solver, v *view, f1, lo, hi int, out bool) {
	n, nw := bt.n, bt.nw
	s.work += s.p * (hi - lo)
	for f := range s.p {
		sb := bt.sb[f*nw : f*nw+nw]
		for _, q := range bt.posIn[f*n+lo : f*n+hi] {
			sb[q>>6] ^= 1 << (q & 63)
		}
	}
	d := 1
	if out {
		d = -1
	}
	for _, e := range v.cols[f1][lo:hi] {
		bt.cl[e.label()] += d
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// d2splitBits is d2split by the bit sets of (v, f1).
func (s *solver) d2splitBits(v *view, bt *d2bits, f1, cut int, lim [2]int, keep int) (lbL, lbR int, solL, solR *Node) {
	s.stats.D2Calls++
	s.stats.D2ByBits++
	s.work += s.p * bt.nw * 4
	if s.check() {
		return 0, 0, nil, nil
	}
	s.moveTo(v, bt, f1, cut)
	fql, fqr := s.fql, s.fqr
	for y := range s.k {
		fql[y] = bt.cl[y]
		fqr[y] = v.counts[y] - fql[y]
	}
	nL, nR := cut, v.n-cut
	bl, br := s.d2start(nL, nR, lim)
	bt.floor = s.d2floor
	if s.k == 2 {
		s.d2features(v, &bl, &br, func(f2 int) { bt.scan(f2, fql, fqr, &bl, &br) })
	} else {
		sc := d2scan{k: s.k, cnt: bt.low, fq: [2][]int{fqr, fql}, n: [2]int{nR, nL}, b: [2]*best1{&br, &bl},
			floor: [2]int{s.d2floor[1], s.d2floor[0]}, due: bt.due, tot: v.counts}
		s.d2features(v, &bl, &br, func(f2 int) { bt.scanK(f2, &sc, s.rel) })
	}
	lbL, lbR = bl.err, br.err
	if lbL+lbR >= keep {
		return lbL, lbR, nil, nil
	}
	if bl.err < lim[0] {
		solL = bt.node(s, v, &bl, 1)
	}
	if br.err < lim[1] {
		solR = bt.node(s, v, &br, 0)
	}
	return lbL, lbR, solL, solR
}

// scan is d2scan2 on feature f2's bit sets, with a side due by class:
// a mixed split's error drops only when the low part gains a row of the
// class it predicts (see due2c), so a side is evaluated only at a
// boundary where its class-0 or its class-1 rows have reached their due
// counts. Those counts come from the words' popcounts; only in a word
// where a side may be due are single boundaries looked at, and where
// every count is far from due the scan jumps to the first position
// where one is (nthBit).
func (bt *d2bits) scan(f2 int, fql, fqr []int, bl, br *best1) {
	nw := bt.nw
	sb := bt.sb[f2*nw : f2*nw+nw]
	yb := bt.yb[f2*nw : f2*nw+nw]
	bb := bt.bb[f2*nw : f2*nw+nw]
	fl0, fl1, fr0, fr1 := fql[0], fql[1], fqr[0], fqr[1]
	bestL, bestR := bl.err, br.err
	idxL, idxR := -1, -1
	// Class-0 and class-1 rows of each side before the word.
	l0, l1, r0, r1 := 0, 0, 0, 0
	dL0, dL1 := dueStart(fl0, fl1, bestL, bt.floor[0])
	dR0, dR1 := dueStart(fr0, fr1, bestR, bt.floor[1])
	for w := range nw {
		sw, yw, bw := sb[w], yb[w], bb[w]
		inL := bits.OnesCount64(sw)
		inW := min(64, bt.n-w*64)
		a1 := bits.OnesCount64(sw & yw)
		b1 := bits.OnesCount64(^sw & yw)
		a0, b0 := inL-a1, inW-inL-b1
		if bw != 0 && (l0+a0 >= dL0 || l1+a1 >= dL1 || r0+b0 >= dR0 || r1+b1 >= dR1) {
			base := w * 64
			// A side can be due only once its rows in the word reach
			// the fewer of its two classes' missing rows (kL, kR): one
			// popcount tells that, the class counts are taken after.
			kL, kR := min(dL0-l0, dL1-l1), min(dR0-r0, dR1-r1)
			for m := bw; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				mask := uint64(2)<<b - 1
				cL := bits.OnesCount64(sw & mask)
				cR := b + 1 - cL
				if cL < kL && cR < kR {
					if kL-cL > nearDue && kR-cR > nearDue {
						m = skipTo(m, b, sw, inW, kL, kR, inL)
					}
					continue
				}
				cL1 := bits.OnesCount64(sw & yw & mask)
				cR1 := bits.OnesCount64(yw&mask) - cL1
				L0, L1 := l0+cL-cL1, l1+cL1
				R0, R1 := r0+cR-cR1, r1+cR1
				dueL := L0 >= dL0 || L1 >= dL1
				dueR := R0 >= dR0 || R1 >= dR1
				if !dueL && !dueR {
					if min(dL0-L0, dL1-L1, dR0-R0, dR1-R1) > nearDue {
						m = skipTo2(m, b, sw, yw, inW, [4]int{dL0 - l0, dL1 - l1, dR0 - r0, dR1 - r1}, [4]int{a0, a1, b0, b1})
					}
					continue
				}
				if dueL {
					dL0, dL1 = due2c(L0, L1, fl0, fl1, base+b, bt.floor[0], &bestL, &idxL)
					kL = min(dL0-l0, dL1-l1)
				}
				if dueR {
					dR0, dR1 = due2c(R0, R1, fr0, fr1, base+b, bt.floor[1], &bestR, &idxR)
					kR = min(dR0-r0, dR1-r1)
				}
				if dL0 > fl0 && dL1 > fl1 && dR0 > fr0 && dR1 > fr1 {
					break
				}
			}
			if dL0 > fl0 && dL1 > fl1 && dR0 > fr0 && dR1 > fr1 {
				break
			}
		}
		l0 += a0
		l1 += a1
		r0 += b0
		r1 += b1
	}
	if idxL >= 0 {
		l0, l1 := bt.prefix(sb, yb, idxL, 1)
		*bl = best1{err: bestL, feature: f2, idx: idxL, lowCl: cls2(l0, l1), highCl: cls2(fl0-l0, fl1-l1), split: true, leafCl: bl.leafCl}
	}
	if idxR >= 0 {
		r0, r1 := bt.prefix(sb, yb, idxR, 0)
		*br = best1{err: bestR, feature: f2, idx: idxR, lowCl: cls2(r0, r1), highCl: cls2(fr0-r0, fr1-r1), split: true, leafCl: br.leafCl}
	}
}

// skipTo2 drops from the boundaries m (whose lowest is b) those before
// the first position of the word where one of the four counts (the left
// side's class-0 and class-1 rows, the right side's) reaches its due:
// need holds the rows of each that must be passed from the word's start,
// have the rows of each in the word. b stays, for the scan's step to
// clear.
func skipTo2(m uint64, b int, sw, yw uint64, inW int, need, have [4]int) uint64 {
	valid := ^uint64(0)
	if inW < 64 {
		valid = 1<<inW - 1
	}
	sets := [4]uint64{sw &^ yw, sw & yw, ^sw &^ yw & valid, ^sw & yw}
	p := 64
	for i, k := range need {
		if k <= have[i] {
			p = min(p, nthBit(sets[i], k-1))
		}
	}
	if p >= 64 {
		return 1 << b
	}
	return m&^(1<<p-1) | 1<<b
}

// dueStart is a side's due class counts before its first row (see
// due2c): none when its best is at its floor.
func dueStart(f0, f1, best, floor int) (int, int) {
	if best <= floor {
		return f0 + 1, f1 + 1
	}
	return f0 - best + 1, f1 - best + 1
}

// due2c evaluates one side of a two-class depth-two scan after position
// idx, where the side's low part has c0 and c1 rows of each class, of f0
// and f1 in all; it records an improvement in best and at, and returns
// the class-0 and class-1 counts the low part must reach before the
// side's error can drop below its best again (past f0, f1: never).
//
// The error is the least of the leaves' f0 and f1 (never below best)
// and the mixed splits' A = c1 + f0 - c0 (low part class 0) and B = c0 +
// f1 - c1 (low part class 1). A row of class 0 lowers A by one and
// raises B, a row of class 1 the reverse: A falls below best only once
// c0 has grown by A - best + 1, B once c1 has grown by B - best + 1.
func due2c(c0, c1, f0, f1, idx, floor int, best, at *int) (int, int) {
	a, b := c1+f0-c0, c0+f1-c1
	if err := min(a, b, f0, f1); err < *best {
		*best, *at = err, idx
	}
	if *best <= floor {
		return f0 + 1, f1 + 1
	}
	return c0 + a - *best + 1, c1 + b - *best + 1
}

// scanK is d2scanK on feature f2's bit sets (k > 2 classes): the rows
// passed are counted 64 at a time, and a side is looked at only in the
// words where it may be due: its rows reach the least row count at which
// one of its classes can reach its due count (see d2scan.setDue). There
// its class counts at the word's end tell whether one does, and where
// (nthBit); only then is the first boundary from there evaluated. sc
// holds the call's sides (0 right, 1 left) and receives their bests; rel is
// the solver's buffers for the sides' relevant classes (shared with the row
// scans, which never run during a bit scan).
func (bt *d2bits) scanK(f2 int, sc *d2scan, rel [2][]int) {
	k, nw := sc.k, bt.nw
	sb := bt.sb[f2*nw : f2*nw+nw]
	bb := bt.bb[f2*nw : f2*nw+nw]
	yb := bt.yb[f2*k*nw : (f2+1)*k*nw]
	pre := bt.pre[f2*k*nw : (f2+1)*k*nw]
	run := bt.run                       // the left side's class counts in the words before upto
	inL, inR := bt.in[:k], bt.in[k:2*k] // each side's class counts in the word
	sc.f2 = f2
	nL, nR := sc.n[1], sc.n[0]
	atL, atR := d2at(sc.b[1].err, sc.b[0].err, nL, nR, [2]int{sc.floor[1], sc.floor[0]})
	// Only the sides' relevant classes are counted (see d2scan.relevant):
	// the left side's for its own scan, both sides' for the right's,
	// whose counts are the prefix counts less the left's.
	atR, atL = sc.relevant(0, rel[0], atR), sc.relevant(1, rel[1], atL)
	relR, relL := sc.rel[0], sc.rel[1]
	both := unionSorted(bt.relU[:0], relL, relR)
	bt.relU = both
	for _, y := range both {
		run[y] = 0
		sc.cnt[y], sc.cnt[k+y] = 0, 0
	}
	atR, atL = sc.startDue(0, atR), sc.startDue(1, atL)
	totL, totR, upto := 0, 0, 0 // run counts the rows of the words before upto
	for w := range nw {
		sw, bw := sb[w], bb[w]
		nwL := bits.OnesCount64(sw)
		inW := min(64, bt.n-w*64)
		dueL, dueR := totL+nwL >= atL, totR+inW-nwL >= atR
		if bw != 0 && (dueL || dueR) {
			for ; upto < w; upto++ {
				x := sb[upto]
				yu := yb[upto*k : upto*k+k]
				for _, y := range both {
					run[y] += bits.OnesCount64(x & yu[y])
				}
			}
			yw := yb[w*k : w*k+k]
			for _, y := range both {
				inL[y] = bits.OnesCount64(sw & yw[y])
			}
			upto = w + 1
			if dueR {
				// The class counts of the word: the next word's prefix
				// less this one's, or the totals for the last.
				low := sc.cnt[:k]
				pw := pre[w*k : w*k+k]
				if w+1 < nw {
					next := pre[(w+1)*k : (w+2)*k]
					for _, y := range relR {
						c := pw[y]
						low[y] = int(c) - run[y]
						inR[y] = int(next[y]-c) - inL[y]
					}
				} else {
					for _, y := range relR {
						c := pw[y]
						low[y] = int(c) - run[y]
						inR[y] = sc.tot[y] - int(c) - inL[y]
					}
				}
				rw := ^sw
				if inW < 64 {
					rw &= 1<<inW - 1
				}
				atR = sc.dueWord(0, w, rw, bw, yw, totR, inR)
			}
			if dueL {
				low := sc.cnt[k : 2*k]
				for _, y := range relL {
					low[y] = run[y]
				}
				atL = sc.dueWord(1, w, sw, bw, yw, totL, inL)
			}
			for _, y := range both {
				run[y] += inL[y]
			}
			if atL > nL && atR > nR {
				break
			}
		}
		totL += nwL
		totR += inW - nwL
	}
}

// unionSorted appends to dst the union of the increasing lists a and b,
// in increasing order.
func unionSorted(dst, a, b []int) []int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			dst = append(dst, a[i])
			i++
		case a[i] > b[j]:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}

// dueWord evaluates side sd of a k-class bit scan in word w where it may
// be due: x marks its rows in the word, bw the boundaries, yw the
// classes' rows, in the side's class counts in the word; tot is its rows
// before the word and sc.cnt holds its class counts there (of its
// relevant classes, the only ones read and kept). It evaluates the
// first boundary at or after the first position where a class reaches
// its due count, and so on through the word, and returns the row count
// at which the side may next be due (at most its rows at the word's end
// while a due class waits for a boundary).
func (sc *d2scan) dueWord(sd, w int, x, bw uint64, yw []uint64, tot int, in []int) int {
	k := sc.k
	low := sc.cnt[sd*k : sd*k+k]
	due := sc.due[sd*k : sd*k+k]
	rel := sc.rel[sd]
	// The first look goes by the word's class counts.
	p := 64
	for _, y := range rel {
		if need := due[y] - low[y]; need <= in[y] {
			if need <= 0 {
				p = 0
				break
			}
			p = min(p, nthBit(x&yw[y], need-1))
		}
	}
	if p == 64 {
		// None due in the word: the due counts again from the counts
		// at its end (fewer high rows, later dues).
		for _, y := range rel {
			low[y] += in[y]
		}
		return sc.setDue(sd, tot+bits.OnesCount64(x))
	}
	above := ^uint64(0) // the word's positions after the last evaluated one
	for {
		bm := bw & above &^ (uint64(1)<<p - 1)
		if bm == 0 {
			return tot + bits.OnesCount64(x&above) // due; its boundary is in a later word
		}
		b := bits.TrailingZeros64(bm)
		mask := uint64(2)<<b - 1
		seg := x & above & mask
		for _, y := range rel {
			low[y] += bits.OnesCount64(seg & yw[y])
		}
		tot += bits.OnesCount64(seg)
		at := sc.eval(sd, tot, w*64+b)
		if at > sc.n[sd] || b == 63 {
			return at
		}
		above = ^mask
		p = 64
		for _, y := range rel {
			m := x & yw[y] & above
			if need := due[y] - low[y]; need <= bits.OnesCount64(m) {
				p = min(p, nthBit(m, need-1))
			}
		}
		if p == 64 {
			for _, y := range rel {
				low[y] += bits.OnesCount64(x & yw[y] & above)
			}
			return sc.setDue(sd, tot+bits.OnesCount64(x&above))
		}
	}
}

// side is the word of side sd's marks (1 left, 0 right) of word w.
func (bt *d2bits) side(sb []uint64, w int, sd uint8) uint64 {
	if sd == 1 {
		return sb[w]
	}
	x := ^sb[w]
	if r := bt.n - w*64; r < 64 {
		x &= 1<<r - 1
	}
	return x
}

// prefix is side sd's class-0 and class-1 rows at positions 0..idx.
func (bt *d2bits) prefix(sb, yb []uint64, idx int, sd uint8) (int, int) {
	c0, c1 := 0, 0
	for w := 0; w <= idx>>6; w++ {
		x := bt.side(sb, w, sd)
		if w == idx>>6 {
			x &= uint64(2)<<(idx&63) - 1
		}
		y := bits.OnesCount64(x & yb[w])
		c1 += y
		c0 += bits.OnesCount64(x) - y
	}
	return c0, c1
}

// node builds the depth-one tree of side sd's best b: the threshold lies
// between the side's last row at or before position b.idx of its
// feature's order and its first row after it.
func (bt *d2bits) node(s *solver, v *view, b *best1, sd uint8) *Node {
	if !b.split {
		return &Node{Leaf: true, Class: b.leafCl, Feature: -1, Errors: b.err}
	}
	nw := bt.nw
	sb := bt.sb[b.feature*nw : b.feature*nw+nw]
	lo, hi := -1, -1
	for w := b.idx >> 6; w >= 0 && lo < 0; w-- {
		x := bt.side(sb, w, sd)
		if w == b.idx>>6 {
			x &= uint64(2)<<(b.idx&63) - 1
		}
		if x != 0 {
			lo = w*64 + 63 - bits.LeadingZeros64(x)
		}
	}
	for w := (b.idx + 1) >> 6; w < nw && hi < 0; w++ {
		x := bt.side(sb, w, sd)
		if w == (b.idx+1)>>6 {
			x &^= uint64(1)<<((b.idx+1)&63) - 1
		}
		if x != 0 {
			hi = w*64 + bits.TrailingZeros64(x)
		}
	}
	col := v.cols[b.feature]
	vals := s.vals[b.feature]
	return depthOneNode(b, midpoint(vals[col[lo].row()], vals[col[hi].row()]))
}

// skipTo drops from the boundaries m (whose lowest is b) those before
// the first position where the left side (marks sw, inL of the word's inW
// rows) has kl rows or the right side kr (both past b); b stays, for the
// scan's step to clear.
func skipTo(m uint64, b int, sw uint64, inW, kl, kr, inL int) uint64 {
	p := 64
	if kl <= inL {
		p = nthBit(sw, kl-1)
	}
	if kr <= inW-inL {
		rw := ^sw
		if inW < 64 {
			rw &= 1<<inW - 1
		}
		p = min(p, nthBit(rw, kr-1))
	}
	if p >= 64 {
		return 1 << b
	}
	return m&^(1<<p-1) | 1<<b
}

// nthBit is the position of x's k-th set bit (k from 0; x has more than
// k set bits).
func nthBit(x uint64, k int) int {
	p := 0
	if c := bits.OnesCount32(uint32(x)); k >= c {
		k -= c
		x >>= 32
		p = 32
	}
	if c := bits.OnesCount16(uint16(x)); k >= c {
		k -= c
		x >>= 16
		p += 16
	}
	if c := bits.OnesCount8(uint8(x)); k >= c {
		k -= c
		x >>= 8
		p += 8
	}
	for ; k > 0; k-- {
		x &= x - 1
	}
	return p + bits.TrailingZeros64(x)
}
