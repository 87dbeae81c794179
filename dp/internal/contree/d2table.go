package contree

// Depth-two splits by value tables.
//
// When a depth-two subproblem's features take few distinct values
// against its number of rows (skin: 3 features of 256 values, 245,057
// rows), the rows of every second feature can be counted once per first
// feature f1 into a table: class counts by (f1's value index, f2's value
// index), cumulated over f1's index. A depth-two split at f1's t-th
// threshold then reads row t of each table: its two depth-one searches
// cost the number of f2's values instead of the number of rows. The
// tables of a (subproblem, f1) are built only after the row scans of its
// first depth-two calls have cost about half the build (so a pair with
// few calls pays at most that much more), only when a call by table costs
// at most a quarter of one by rows, and only within tabMaxCells and the
// Budget (a refusal just keeps the row scans).
//
// The result is that of the row scan exactly: the second features are
// taken in the same order, the values in increasing order, a side's best
// is replaced only by a strictly better split, and the threshold is the
// midpoint of the side's two neighbouring values.

// tabMaxCells bounds the cells of one (subproblem, f1)'s tables.
const tabMaxCells = 1 << 22

// d2tab is the value-table state of one level's depth-two search.
type d2tab struct {
	f1    int  // the first feature the tables were built for
	calls int  // depth-two calls of (v, f1) so far
	ready bool // the tables are built for (v, f1)
	off   bool // not worth building or not affordable for (v, f1)
	r1    int  // v's distinct values of f1
	tot1  []int32
	feat  []tabFeat
	buf   []int32
	cost  int // cells a call by table reads (for the context checks)
}

// tabFeat is one second feature's table: r2 distinct values in v, its
// cells at buf[off:off+r1*r2*k], vals the value of each index.
type tabFeat struct {
	r2   int
	off  int
	vals []float64
}

// tabReset starts the table state of a new (v, f1) depth-two search.
func (tb *d2tab) reset(f1 int) {
	tb.f1, tb.calls, tb.ready, tb.off = f1, 0, false, false
}

// tabDue tells whether the next depth-two call of (v, f1) should go by
// table, building the tables when it is time (see the file comment).
func (s *solver) tabDue(v *view, tb *d2tab, f1 int) bool {
	if tb.ready {
		return true
	}
	if tb.off || s.cfg.NoTable {
		return false
	}
	k, n := int64(s.k), int64(v.n)
	// Estimates from the root's distinct values (v has at most as many).
	r1 := min(int64(s.gdist[f1]), n)
	var byTab, build, cells int64
	for f := range s.p {
		r2 := min(int64(s.gdist[f]), n)
		byTab += 2 * k * r2
		build += 3*n + r1*r2*k
		cells += r1 * r2 * k
	}
	byRows := int64(s.p+1) * n
	if 4*byTab > byRows || cells > tabMaxCells {
		tb.off = true
		return false
	}
	tb.calls++
	if 2*int64(tb.calls-1)*byRows < build {
		return false
	}
	if !s.buildTab(v, tb, f1) {
		tb.off = true
		return false
	}
	tb.ready = true
	s.stats.Tables++
	return true
}

// buildTab builds the tables of (v, f1); false when the Budget refuses
// their memory.
func (s *solver) buildTab(v *view, tb *d2tab, f1 int) bool {
	k := s.k
	distinct := func(col []entry) int {
		if len(col) == 0 {
			return 0
		}
		r := 1
		for i := 1; i < len(col); i++ {
			if col[i].rank != col[i-1].rank {
				r++
			}
		}
		return r
	}
	col1 := v.cols[f1]
	tb.r1 = distinct(col1)
	if cap(tb.feat) < s.p {
		tb.feat = make([]tabFeat, s.p)
	}
	tb.feat = tb.feat[:s.p]
	size := tb.r1 * k
	for f := range s.p {
		tf := &tb.feat[f]
		tf.r2, tf.off = distinct(v.cols[f]), size
		size += tb.r1 * tf.r2 * k
	}
	if cap(tb.buf) < size {
		if err := s.cfg.Budget.Reserve(4*int64(size-cap(tb.buf)), "contree value tables"); err != nil {
			return false
		}
		s.held += 4 * int64(size-cap(tb.buf))
		tb.buf = make([]int32, size)
	}
	if len(s.lr) < s.n {
		if err := s.cfg.Budget.Reserve(4*int64(s.n), "contree value tables"); err != nil {
			return false
		}
		s.held += 4 * int64(s.n)
		s.lr = make([]int32, s.n)
	}
	s.work += 3 * s.p * v.n
	buf := tb.buf[:size]
	clear(buf)
	// Cumulative class counts of f1's values.
	tot := buf[:tb.r1*k]
	r := 0
	for i, e := range col1 {
		if i > 0 && e.rank != col1[i-1].rank {
			r++
		}
		tot[r*k+int(e.label())]++
	}
	for j := k; j < len(tot); j++ {
		tot[j] += tot[j-k]
	}
	tb.tot1 = tot
	tb.cost = 0
	lr := s.lr
	for f := range s.p {
		tf := &tb.feat[f]
		tb.cost += 2 * k * tf.r2
		col := v.cols[f]
		tf.vals = tf.vals[:0]
		vals := s.vals[f]
		r := int32(-1)
		for i, e := range col {
			if i == 0 || e.rank != col[i-1].rank {
				r++
				tf.vals = append(tf.vals, vals[e.row()])
			}
			lr[e.row()] = r
		}
		row := tf.r2 * k
		t := buf[tf.off : tf.off+tb.r1*row]
		r1 := 0
		for i, e := range col1 {
			if i > 0 && e.rank != col1[i-1].rank {
				r1++
			}
			t[r1*row+int(lr[e.row()])*k+int(e.label())]++
		}
		for j := row; j < len(t); j++ {
			t[j] += t[j-row]
		}
	}
	return true
}

// d2splitTab is d2split by the tables of (v, f1) at f1's t-th threshold.
func (s *solver) d2splitTab(v *view, tb *d2tab, t int, lim [2]int, keep int) (lbL, lbR int, solL, solR *Node) {
	s.stats.D2Calls++
	s.stats.D2ByTable++
	s.work += tb.cost
	if s.check() {
		return 0, 0, nil, nil
	}
	k := s.k
	fql, fqr := s.fql, s.fqr
	nL := 0
	for y := range k {
		fql[y] = int(tb.tot1[t*k+y])
		fqr[y] = v.counts[y] - fql[y]
		nL += fql[y]
	}
	sc := tabScan{k: k, fq: [2][]int{s.fqr, s.fql}, n: [2]int{v.n - nL, nL}, floor: [2]int{s.d2floor[1], s.d2floor[0]}}
	if len(s.cnt) != 2*k {
		s.cnt = make([]int, 2*k)
	}
	bl, br := s.d2start(nL, v.n-nL, lim)
	sc.b = [2]*best1{&br, &bl}
	s.d2features(v, &bl, &br, func(f2 int) {
		tf := &tb.feat[f2]
		sc.scan(s.cnt, tb.buf[tf.off:], tb.r1, tf.r2, t, f2)
	})
	lbL, lbR = bl.err, br.err
	if lbL+lbR >= keep {
		return lbL, lbR, nil, nil
	}
	if bl.err < lim[0] {
		solL = bl.tabNode(tb)
	}
	if br.err < lim[1] {
		solR = br.tabNode(tb)
	}
	return lbL, lbR, solL, solR
}

// tabScan is the state of the table scans of one d2splitTab call.
type tabScan struct {
	k     int
	fq    [2][]int  // class counts of each side (0 right, 1 left)
	n     [2]int    // rows of each side
	b     [2]*best1 // best tree of each side
	floor [2]int    // lower bound on each side's optimum
}

// scan searches the second feature f2 (table t2 of r1 × r2 × k cells)
// for both sides of f1's t-th threshold. cnt (2k) holds the running low
// class counts of each side.
func (sc *tabScan) scan(cnt []int, t2 []int32, r1, r2, t, f2 int) {
	k := sc.k
	row := r2 * k
	low := t2[t*row : t*row+row]
	all := t2[(r1-1)*row : r1*row]
	clear(cnt)
	prev := [2]int{-1, -1}
	for j := range r2 {
		xl := low[j*k : j*k+k]
		xa := all[j*k : j*k+k]
		for sd := range 2 {
			if sc.b[sd].err <= sc.floor[sd] {
				continue // settled at its floor
			}
			c := cnt[sd*k : sd*k+k]
			present := false
			for y := range k {
				if sd == 1 && xl[y] > 0 || sd == 0 && xa[y] > xl[y] {
					present = true
					break
				}
			}
			if !present {
				continue
			}
			if prev[sd] >= 0 {
				sc.eval(sd, c, f2, prev[sd], j)
			}
			for y := range k {
				x := int(xl[y])
				if sd == 0 {
					x = int(xa[y]) - x
				}
				c[y] += x
			}
			prev[sd] = j
		}
	}
}

// eval evaluates side sd's split between f2's value indices a and b
// (consecutive among the side's values) with low class counts c.
func (sc *tabScan) eval(sd int, c []int, f2, a, b int) {
	lo, lc, hi, hc := lowHigh(c, sc.fq[sd])
	bb := sc.b[sd]
	if err := sc.n[sd] - lc - hc; err < bb.err {
		*bb = best1{err: err, feature: f2, idx: a, idx2: b, lowCl: lo, highCl: hi, split: true, leafCl: bb.leafCl}
	}
}

// tabNode builds the depth-one tree of a table scan's best.
func (b *best1) tabNode(tb *d2tab) *Node {
	if !b.split {
		return &Node{Leaf: true, Class: b.leafCl, Feature: -1, Errors: b.err}
	}
	vals := tb.feat[b.feature].vals
	return depthOneNode(b, midpoint(vals[b.idx], vals[b.idx2]))
}
