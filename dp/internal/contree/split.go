package contree

import (
	"math"
	"slices"
)

// sortByValue sorts row ids by the column's value (ties by row id).
func sortByValue(idx []int32, col []float64) {
	slices.SortFunc(idx, func(a, b int32) int {
		x, y := col[a], col[b]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return int(a) - int(b)
	})
}

// splitView splits v by feature f into the first cut rows of f's order
// (left) and the rest (right), keeping every list sorted. The two views
// live in the scratch of level lvl and stay valid until its next split.
// It returns nil views when the budget refuses their buffers (the solver
// is then stopped).
func (s *solver) splitView(v *view, f, cut, lvl int) (*view, *view) {
	ls := s.level(lvl)
	if !s.splitViews(ls, v.n) {
		return nil, nil
	}
	s.work += s.p * v.n
	left, right := &ls.left, &ls.right
	src := v.cols[f]
	side := s.side
	clear(left.counts)
	var h1, h2 uint64
	for _, e := range src[:cut] {
		side[e.row()] = 1
		left.counts[e.label()]++
		h1 += s.rowH1[e.row()]
		h2 += s.rowH2[e.row()]
	}
	for _, e := range src[cut:] {
		side[e.row()] = 0
	}
	for y := range right.counts {
		right.counts[y] = v.counts[y] - left.counts[y]
	}
	left.n, right.n = cut, v.n-cut
	left.h1, left.h2 = h1, h2
	right.h1, right.h2 = v.h1-h1, v.h2-h2
	for g := range s.p {
		if g == f {
			left.cols[g] = append(left.cols[g][:0], src[:cut]...)
			right.cols[g] = append(right.cols[g][:0], src[cut:]...)
			continue
		}
		in := v.cols[g]
		lc := left.cols[g][:len(in)]
		rc := right.cols[g][:len(in)]
		a, b := 0, 0
		for _, e := range in {
			sd := int(side[e.row()])
			lc[a] = e
			rc[b] = e
			a += sd
			b += 1 - sd
		}
		left.cols[g] = lc[:a]
		right.cols[g] = rc[:b]
	}
	return left, right
}

// best1 is the best depth-one tree found so far on one side of a
// depth-two split: a leaf, or a split of the rows of that side after
// position idx of feature's sorted list.
type best1 struct {
	err           int
	feature, idx  int
	lowCl, highCl int
	split         bool
	leafCl        int
	idx2          int // by table: the value index above the threshold (idx: below)
}

// node builds the depth-one tree; the side marks of the split must still
// be in place. sd is the side's mark (1 left, 0 right; 2 = all rows).
func (b *best1) node(s *solver, v *view, sd uint8) *Node {
	if !b.split {
		return &Node{Leaf: true, Class: b.leafCl, Feature: -1, Errors: b.err}
	}
	col := v.cols[b.feature]
	lo, hi := int32(-1), int32(-1)
	for i := b.idx; i >= 0; i-- {
		if sd == 2 || s.side[col[i].row()] == sd {
			lo = col[i].row()
			break
		}
	}
	for i := b.idx + 1; i < len(col); i++ {
		if sd == 2 || s.side[col[i].row()] == sd {
			hi = col[i].row()
			break
		}
	}
	vals := s.vals[b.feature]
	return depthOneNode(b, midpoint(vals[lo], vals[hi]))
}

// depthOneNode is the split of b at threshold thr.
func depthOneNode(b *best1, thr float64) *Node {
	return &Node{Feature: b.feature, Threshold: thr, Errors: b.err,
		Low:  &Node{Leaf: true, Class: b.lowCl, Feature: -1},
		High: &Node{Leaf: true, Class: b.highCl, Feature: -1}}
}

// d2split solves both depth-one subtrees of the split of v by feature f1
// into its first cut rows and the rest (Algorithm 2, corrected: a leaf's
// error is its row count minus its largest class count, the class counts
// advance on every row, thresholds lie only between distinct values, and
// any number of classes). One pass over the rows in each feature's order;
// memory linear in the number of classes.
//
// Each side's search is capped, the left's at lim[0] errors and the
// right's at lim[1]: it returns the side's optimum and tree when that is
// below its cap, and otherwise the cap (a lower bound) and a nil tree.
// The caps let the scans skip every threshold that cannot bring a side
// below its cap.
//
// Trees are built only when the two sides make fewer than keep errors
// together (math.MaxInt: whenever a side is below its cap): a serial search
// passes its incumbent's errors and does not build the trees it would
// drop (bank at depth 4: those were half a solve's allocation).
func (s *solver) d2split(v *view, f1, cut int, lim [2]int, keep int) (lbL, lbR int, solL, solR *Node) {
	s.stats.D2Calls++
	s.work += s.p * v.n
	if s.check() {
		// Stopped: the result is never used.
		return 0, 0, nil, nil
	}
	k := s.k
	src := v.cols[f1]
	side := s.side
	fql, fqr := s.fql, s.fqr
	clear(fql)
	for _, e := range src[:cut] {
		side[e.row()] = 1
		fql[e.label()]++
	}
	for _, e := range src[cut:] {
		side[e.row()] = 0
	}
	for y := range k {
		fqr[y] = v.counts[y] - fql[y]
	}
	nL, nR := cut, v.n-cut
	if len(s.cnt) != 2*k {
		s.cnt = make([]int, 2*k)
	}
	bl, br := s.d2start(nL, nR, lim)
	s.d2features(v, &bl, &br, func(f2 int) {
		if k == 2 {
			s.d2scan2(v.cols[f2], f2, nL, nR, &bl, &br)
		} else {
			s.d2scanK(v.cols[f2], f2, nL, nR, &bl, &br)
		}
	})
	lbL, lbR = bl.err, br.err
	if lbL+lbR >= keep {
		return lbL, lbR, nil, nil
	}
	if bl.err < lim[0] {
		solL = bl.node(s, v, 1)
	}
	if br.err < lim[1] {
		solR = br.node(s, v, 0)
	}
	return lbL, lbR, solL, solR
}

// d2start returns the starting bests of a depth-two split's sides of nL
// and nR rows (class counts in s.fql and s.fqr): their leaves, capped at
// lim (left, right). A side whose leaf is not below its cap starts at the
// cap: only a split below it is recorded (leafCl is then not a solution).
func (s *solver) d2start(nL, nR int, lim [2]int) (bl, br best1) {
	bl.leafCl, bl.err = argmax(s.fql)
	bl.err = min(nL-bl.err, lim[0])
	br.leafCl, br.err = argmax(s.fqr)
	br.err = min(nR-br.err, lim[1])
	return bl, br
}

// d2features calls scan for each second feature of a depth-two split of
// v that has two values or more, until both sides are perfect: first
// the features of the previous call's best trees (neighbouring
// thresholds often share them, and a tight best early lets the other
// scans skip more), then the others in order; it records the new bests'
// features as the next call's hint.
func (s *solver) d2features(v *view, bl, br *best1, scan func(f2 int)) {
	hint := s.d2hint
	for q := -2; q < s.p; q++ {
		if bl.err <= s.d2floor[0] && br.err <= s.d2floor[1] {
			break
		}
		var f2 int
		switch {
		case q < 0:
			f2 = hint[q+2]
			if f2 < 0 || f2 >= s.p || (q == -1 && f2 == hint[0]) {
				continue
			}
		case q == hint[0] || q == hint[1]:
			continue
		default:
			f2 = q
		}
		col := v.cols[f2]
		if len(col) < 2 || col[0].rank == col[len(col)-1].rank {
			continue
		}
		scan(f2)
	}
	if bl.split {
		s.d2hint[0] = bl.feature
	}
	if br.split {
		s.d2hint[1] = br.feature
	}
}

// d2scanK is one feature's scan in d2split for any number of classes.
// Counts are indexed by side (0 right, 1 left) without branching on it.
// The per-row work is one count increment: a side is evaluated only at
// a boundary where it has at least at[sd] rows (before that its error
// cannot drop below its best: each row changes the terms that can by at
// most one, see setDue), and its largest class counts are computed then.
// (Due counts by class, as the bit scan keeps them, measured no faster
// here: docs/benchmarks.md, "Checkpoints of the marks and due counts by
// class".)
func (s *solver) d2scanK(col []entry, f2, nL, nR int, bl, br *best1) {
	k := s.k
	side := s.side
	cnt := s.cnt
	clear(cnt)
	sc := d2scan{k: k, cnt: cnt, fq: [2][]int{s.fqr, s.fql}, n: [2]int{nR, nL}, b: [2]*best1{br, bl}, f2: f2,
		floor: [2]int{s.d2floor[1], s.d2floor[0]}}
	at1, at0 := d2at(bl.err, br.err, nL, nR, s.d2floor)
	at0, at1 = sc.relevant(0, s.rel[0], at0), sc.relevant(1, s.rel[1], at1)
	totL := 0
	last := len(col) - 1
	for idx := 0; idx < last; idx++ {
		e := col[idx]
		sd := int(side[e.row()])
		cnt[sd*k+int(e.label())]++
		totL += sd
		// Neither side due (the common case, well predicted) or no
		// boundary after this row.
		tot0 := idx + 1 - totL
		if tot0 < at0 && totL < at1 || col[idx+1].rank == e.rank {
			continue
		}
		if tot0 >= at0 {
			at0 = sc.eval(0, tot0, idx)
		}
		if totL >= at1 {
			at1 = sc.eval(1, totL, idx)
		}
		if at0 > nR && at1 > nL {
			break // neither side can improve with the rows left
		}
	}
}

// d2scan is the state of one d2scanK pass shared with its evaluations.
type d2scan struct {
	k     int
	cnt   []int     // class counts of the rows passed, by side
	fq    [2][]int  // class counts of each side
	n     [2]int    // rows of each side
	b     [2]*best1 // best tree of each side
	f2    int
	floor [2]int // lower bound on each side's optimum
	// due, when not nil (the bit scan's), receives each side's due class
	// counts (see setDue) at due[sd*k+y].
	due []int
	tot []int // both sides' class counts (bit scans)
	// rel holds each side's relevant classes (see relevant), in
	// increasing order: the only classes whose counts the evaluations
	// and due counts read.
	rel [2][]int
}

// relevant fills buf with side sd's relevant classes, those that can
// take part in a split below its best, stores them in sc.rel[sd] and
// returns at, or past the side's size when there are none.
//
// A split's error is the least over class pairs (a, b) of n - (low
// rows of a) - (high rows of b). Pairs with a = b give n - f[a], never
// below the leaf's error and so never below best; a pair a != b is at
// least n - f[a] - f[b]. So only a class a with f[a] + f[b] > n - best
// for some other class b can be in a pair below best. The least over
// the relevant classes' pairs is then the error wherever the error is
// below best, and at least best elsewhere: evaluations and due counts
// that read only the relevant classes find the same improvements, with
// the same largest classes (an irrelevant class's count never ties one
// of an improving pair's). Best only falls during a scan, so classes
// found irrelevant at its start stay so. With the leaf as best every
// class present is relevant; each improvement by e rows makes the
// classes with e rows or fewer irrelevant.
func (sc *d2scan) relevant(sd int, buf []int, at int) int {
	f, n := sc.fq[sd], sc.n[sd]
	buf = buf[:0]
	if at <= n {
		m1, m2 := -1, -1 // the two largest class counts
		for _, t := range f {
			if t > m1 {
				m1, m2 = t, m1
			} else if t > m2 {
				m2 = t
			}
		}
		need := n - sc.b[sd].err // a relevant pair has more rows than need
		for y, t := range f {
			p := m1
			if t == m1 {
				p = m2
			}
			if t+p > need {
				buf = append(buf, y)
			}
		}
	}
	sc.rel[sd] = buf
	if len(buf) == 0 {
		sc.never(sd)
		return n + 1
	}
	return at
}

// eval evaluates side sd's split after position idx, where it has tot
// rows low, records it when it improves, and returns the row count the
// side must reach before its error can drop below its best again (past
// its size when it never can), setting its due class counts.
func (sc *d2scan) eval(sd, tot, idx int) int {
	k := sc.k
	rel := sc.rel[sd]
	lo, lc, hi, hc := lowHighIn(sc.cnt[sd*k:sd*k+k], sc.fq[sd], rel)
	n := sc.n[sd]
	err := n - lc - hc
	bb := sc.b[sd]
	if err < bb.err {
		*bb = best1{err: err, feature: sc.f2, idx: idx, lowCl: lo, highCl: hi, split: true, leafCl: bb.leafCl}
	}
	if hc == n-tot || bb.err <= sc.floor[sd] {
		// The high side is pure: moving its rows low cannot lower the
		// error any more; or the side's best is at its floor.
		sc.never(sd)
		return n + 1
	}
	if sc.due != nil {
		return sc.setDue(sd, tot)
	}
	// The row scan's one row count (setDue's least due, without the
	// per-class counts): the least mixed term's distance to best. The
	// error is a mixed term unless the largest low and high classes are
	// the same one.
	mixed := err
	if lo == hi {
		c, f := sc.cnt[sd*k:sd*k+k], sc.fq[sd]
		sl, sh := -1, -1 // the best low and high counts of the other classes
		for _, y := range rel {
			if y != lo {
				sl, sh = max(sl, c[y]), max(sh, f[y]-c[y])
			}
		}
		mixed = n - max(lc+sh, sl+hc)
	}
	return tot + mixed - bb.err + 1
}

// startDue sets side sd's due class counts before its first row, given
// d2at's first row count at; it returns at.
func (sc *d2scan) startDue(sd, at int) int {
	if at > sc.n[sd] {
		sc.never(sd)
		return at
	}
	return sc.setDue(sd, 0)
}

// never makes side sd never due.
func (sc *d2scan) never(sd int) {
	if sc.due != nil {
		due := sc.due[sd*sc.k : sd*sc.k+sc.k]
		for y := range due {
			due[y] = sc.n[sd] + 1
		}
	}
}

// setDue sets side sd's due class counts (sc.due: bit scans only), with
// tot rows and the class counts sc.cnt low, and returns the least row count at which one can
// be reached.
//
// The error is the least over class pairs (a, b) of n - (low rows of a)
// - (high rows of b). Pairs with a = b give n - f[a], never below the
// leaf's error and so never below best. A row moved low lowers only the
// terms of its own class a, by one, and never raises another's low
// count, so a term (a, b) drops below best only once the low rows of a
// have grown by its distance to best: the low count of class a is due at
// n - best + 1 - (the most high rows of a class b != a). High rows only
// leave as the scan goes on, so a due count set earlier is at most the
// current one: it may come early, never late.
func (sc *d2scan) setDue(sd, tot int) int {
	k := sc.k
	c, f := sc.cnt[sd*k:sd*k+k], sc.fq[sd]
	rel := sc.rel[sd]
	h1, h2, i1 := -1, -1, -1 // the two largest high counts, the first's class
	for _, y := range rel {
		if h := f[y] - c[y]; h > h1 {
			h1, h2, i1 = h, h1, y
		} else if h > h2 {
			h2 = h
		}
	}
	base := sc.n[sd] - sc.b[sd].err + 1
	least := math.MaxInt
	for _, y := range rel {
		d := base - h1
		if y == i1 {
			d = base - h2
		}
		sc.due[sd*k+y] = d
		least = min(least, d-c[y])
	}
	return tot + least
}

// lowHighIn is lowHigh over the classes rel (in increasing order).
func lowHighIn(c, f, rel []int) (lo, lc, hi, hc int) {
	lc, hc = -1, -1
	for _, y := range rel {
		x := c[y]
		if x > lc {
			lo, lc = y, x
		}
		if r := f[y] - x; r > hc {
			hi, hc = y, r
		}
	}
	return lo, lc, hi, hc
}

// lowHigh returns the largest class (first of the ties) and its count
// among the low rows' class counts c and among the high rows' (f - c),
// f being the class counts of all rows.
func lowHigh(c, f []int) (lo, lc, hi, hc int) {
	lc, hc = -1, -1
	for y, x := range c {
		if x > lc {
			lo, lc = y, x
		}
		if r := f[y] - x; r > hc {
			hi, hc = y, r
		}
	}
	return lo, lc, hi, hc
}

// d2scan2 is the two-class version of one feature's scan in d2split:
// the counts advance without branching on the row's side.
func (s *solver) d2scan2(col []entry, f2, nL, nR int, bl, br *best1) {
	side := s.side
	fl0, fl1 := s.fql[0], s.fql[1]
	fr0, fr1 := s.fqr[0], s.fqr[1]
	bestL, bestR := bl.err, br.err
	idxL, idxR := -1, -1
	last := len(col) - 1
	// Counts kept in registers: rows and class-1 rows on each side. A
	// side is evaluated only at a boundary where its class-0 or class-1
	// rows have reached their due counts (dL0, dL1; dR0, dR1): before
	// that its error cannot drop below its best (see due2c). That needs
	// the side's rows to have reached atL (atR), the least of the two
	// dues plus the other class's rows at the time it was set, so a row
	// costs one comparison a side; past its size the side is done.
	totL, l1, r1 := 0, 0, 0
	dL0, dL1 := dueStart(fl0, fl1, bestL, s.d2floor[0])
	dR0, dR1 := dueStart(fr0, fr1, bestR, s.d2floor[1])
	atL, atR := dueRows(dL0, dL1, 0, 0, fl0, fl1), dueRows(dR0, dR1, 0, 0, fr0, fr1)
	for idx := 0; idx < last; idx++ {
		e := col[idx]
		sd := int(side[e.row()])
		lb := int(e.label())
		x := sd & lb
		totL += sd
		l1 += x
		r1 += lb - x
		totR := idx + 1 - totL
		if totL < atL && totR < atR || col[idx+1].rank == e.rank {
			continue
		}
		if totL >= atL {
			l0 := totL - l1
			if l0 >= dL0 || l1 >= dL1 {
				dL0, dL1 = due2c(l0, l1, fl0, fl1, idx, s.d2floor[0], &bestL, &idxL)
			}
			atL = dueRows(dL0, dL1, l0, l1, fl0, fl1)
		}
		if totR >= atR {
			r0 := totR - r1
			if r0 >= dR0 || r1 >= dR1 {
				dR0, dR1 = due2c(r0, r1, fr0, fr1, idx, s.d2floor[1], &bestR, &idxR)
			}
			atR = dueRows(dR0, dR1, r0, r1, fr0, fr1)
		}
		if atL > nL && atR > nR {
			break
		}
	}
	if idxL >= 0 || idxR >= 0 {
		// Recount the class counts at the best positions.
		var c [4]int
		for idx := 0; idx <= max(idxL, idxR); idx++ {
			e := col[idx]
			c[int(side[e.row()])<<1|int(e.label())]++
			if idx == idxL {
				l0, l1 := c[2], c[3]
				*bl = best1{err: bestL, feature: f2, idx: idx, lowCl: cls2(l0, l1), highCl: cls2(fl0-l0, fl1-l1), split: true, leafCl: bl.leafCl}
			}
			if idx == idxR {
				r0, r1 := c[0], c[1]
				*br = best1{err: bestR, feature: f2, idx: idx, lowCl: cls2(r0, r1), highCl: cls2(fr0-r0, fr1-r1), split: true, leafCl: br.leafCl}
			}
		}
	}
}

// dueRows is the least row count of a side (with class totals f0 and
// f1, c0 and c1 rows of each class low now) at which its low part can
// have reached one of its due class counts d0, d1 (see due2c): past the
// side's size when neither can be reached.
func dueRows(d0, d1, c0, c1, f0, f1 int) int {
	if d0 > f0 && d1 > f1 {
		return f0 + f1 + 1
	}
	return min(d0+c1, d1+c0)
}

// d2at is the row counts at which a depth-two scan first evaluates its
// left and right sides: the first row, or past the side's size when its
// best is already at its floor (left, right).
func d2at(bestL, bestR, nL, nR int, floor [2]int) (atL, atR int) {
	atL, atR = 1, 1
	if bestL <= floor[0] {
		atL = nL + 1
	}
	if bestR <= floor[1] {
		atR = nR + 1
	}
	return atL, atR
}

func cls2(a, b int) int {
	if b > a {
		return 1
	}
	return 0
}

// depthOne returns an optimal tree of depth at most one on v.
func (s *solver) depthOne(v *view) *Node {
	k := s.k
	cl := s.cl
	var b best1
	b.leafCl, b.err = argmax(v.counts)
	b.err = v.n - b.err
	for f := range s.p {
		col := v.cols[f]
		clear(cl)
		tot, mx := 0, 0
		for idx, e := range col[:len(col)-1] {
			c := cl[e.label()] + 1
			cl[e.label()] = c
			mx = max(mx, c)
			tot++
			if col[idx+1].rank == e.rank {
				continue
			}
			hi, hc := 0, -1
			for y := range k {
				if r := v.counts[y] - cl[y]; r > hc {
					hi, hc = y, r
				}
			}
			if err := tot - mx + (v.n - tot) - hc; err < b.err {
				lo, _ := argmax(cl)
				b = best1{err: err, feature: f, idx: idx, lowCl: lo, highCl: hi, split: true, leafCl: b.leafCl}
			}
		}
	}
	return b.node(s, v, 2)
}

// bestCut returns the fewest errors of a depth-one split on the sorted
// column and its number of rows going low (0 when no split beats a leaf).
func (s *solver) bestCut(col []entry, counts []int) (int, int) {
	n := len(col)
	_, mx := argmax(counts)
	best, cut := n-mx, 0
	if s.k == 2 {
		f0, f1 := counts[0], counts[1]
		l1 := 0
		for idx := 0; idx < n-1; idx++ {
			e := col[idx]
			l1 += int(e.label())
			if col[idx+1].rank == e.rank {
				continue
			}
			l0 := idx + 1 - l1
			if err := min(l0, l1) + min(f0-l0, f1-l1); err < best {
				best, cut = err, idx+1
			}
		}
		return best, cut
	}
	cl := s.cl
	clear(cl)
	mxl := 0
	for idx := 0; idx < n-1; idx++ {
		e := col[idx]
		c := cl[e.label()] + 1
		cl[e.label()] = c
		mxl = max(mxl, c)
		if col[idx+1].rank == e.rank {
			continue
		}
		hc := 0
		for y, c := range counts {
			hc = max(hc, c-cl[y])
		}
		if err := n - mxl - hc; err < best {
			best, cut = err, idx+1
		}
	}
	return best, cut
}
