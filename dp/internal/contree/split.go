package contree

import (
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
func (s *solver) splitView(v *view, f, cut, lvl int) (*view, *view) {
	ls := s.level(lvl)
	left, right := &ls.left, &ls.right
	src := v.cols[f]
	side := s.side
	clear(left.counts)
	var h1, h2 uint64
	for _, e := range src[:cut] {
		side[e.row] = 1
		left.counts[e.label]++
		h1 += s.rowH1[e.row]
		h2 += s.rowH2[e.row]
	}
	for _, e := range src[cut:] {
		side[e.row] = 0
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
			sd := int(side[e.row])
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

// best1 is the best depth-one tree found so far on one side.
type best1 struct {
	err           int
	feature       int
	loRow, hiRow  int32
	pending       bool
	lowCl, highCl int
	split         bool
	leafCl        int
}

func (b *best1) node(s *solver) *Node {
	if !b.split {
		return &Node{Leaf: true, Class: b.leafCl, Feature: -1, Errors: b.err}
	}
	col := s.vals[b.feature]
	return &Node{Feature: b.feature, Threshold: midpoint(col[b.loRow], col[b.hiRow]), Errors: b.err,
		Low:  &Node{Leaf: true, Class: b.lowCl, Feature: -1},
		High: &Node{Leaf: true, Class: b.highCl, Feature: -1}}
}

// d2split solves both depth-one subtrees of the split of v by feature f1
// into its first cut rows and the rest (Algorithm 2, corrected: a leaf's
// error is its row count minus its largest class count, the class counts
// advance on every row, thresholds lie only between distinct values, and
// any number of classes). One pass over the rows in each feature's order;
// memory linear in the number of classes.
func (s *solver) d2split(v *view, f1, cut int) (*Node, *Node) {
	s.stats.D2Calls++
	s.check()
	k := s.k
	src := v.cols[f1]
	side := s.side
	fql, fqr := s.fql, s.fqr
	clear(fql)
	for _, e := range src[:cut] {
		side[e.row] = 1
		fql[e.label]++
	}
	for _, e := range src[cut:] {
		side[e.row] = 0
	}
	for y := range k {
		fqr[y] = v.counts[y] - fql[y]
	}
	nL, nR := cut, v.n-cut
	var bl, br best1
	bl.leafCl, bl.err = argmax(fql)
	bl.err = nL - bl.err
	br.leafCl, br.err = argmax(fqr)
	br.err = nR - br.err
	cl, cr := s.cl, s.cr
	for f2 := range s.p {
		if bl.err+br.err == 0 {
			break
		}
		col := v.cols[f2]
		if len(col) < 2 || col[0].rank == col[len(col)-1].rank {
			continue
		}
		if k == 2 {
			s.d2scan2(col, f2, nL, nR, &bl, &br)
			continue
		}
		clear(cl)
		clear(cr)
		totL, totR := 0, 0
		maxL, maxR := 0, 0 // largest class count seen so far on each side (counts only grow)
		dirtyL, dirtyR := false, false
		var lastL, lastR int32
		last := len(col) - 1
		for idx, e := range col {
			if side[e.row] == 1 {
				if bl.pending {
					bl.hiRow, bl.pending = e.row, false
				}
				c := cl[e.label] + 1
				cl[e.label] = c
				maxL = max(maxL, c)
				totL++
				dirtyL = true
				lastL = e.row
			} else {
				if br.pending {
					br.hiRow, br.pending = e.row, false
				}
				c := cr[e.label] + 1
				cr[e.label] = c
				maxR = max(maxR, c)
				totR++
				dirtyR = true
				lastR = e.row
			}
			if idx == last || col[idx+1].rank == e.rank {
				continue
			}
			if dirtyL {
				dirtyL = false
				hi, hc := 0, -1
				for y := range k {
					if r := fql[y] - cl[y]; r > hc {
						hi, hc = y, r
					}
				}
				if err := totL - maxL + (nL - totL) - hc; err < bl.err {
					lo, _ := argmax(cl)
					bl = best1{err: err, feature: f2, loRow: lastL, pending: true, lowCl: lo, highCl: hi, split: true, leafCl: bl.leafCl}
				}
			}
			if dirtyR {
				dirtyR = false
				hi, hc := 0, -1
				for y := range k {
					if r := fqr[y] - cr[y]; r > hc {
						hi, hc = y, r
					}
				}
				if err := totR - maxR + (nR - totR) - hc; err < br.err {
					lo, _ := argmax(cr)
					br = best1{err: err, feature: f2, loRow: lastR, pending: true, lowCl: lo, highCl: hi, split: true, leafCl: br.leafCl}
				}
			}
		}
	}
	return bl.node(s), br.node(s)
}

// d2scan2 is the two-class version of one feature's scan in d2split.
func (s *solver) d2scan2(col []entry, f2, nL, nR int, bl, br *best1) {
	side := s.side
	fl0, fl1 := s.fql[0], s.fql[1]
	fr0, fr1 := s.fqr[0], s.fqr[1]
	var l0, l1, r0, r1 int
	dirtyL, dirtyR := false, false
	var lastL, lastR int32
	last := len(col) - 1
	for idx, e := range col {
		if side[e.row] == 1 {
			if bl.pending {
				bl.hiRow, bl.pending = e.row, false
			}
			if e.label == 0 {
				l0++
			} else {
				l1++
			}
			dirtyL = true
			lastL = e.row
		} else {
			if br.pending {
				br.hiRow, br.pending = e.row, false
			}
			if e.label == 0 {
				r0++
			} else {
				r1++
			}
			dirtyR = true
			lastR = e.row
		}
		if idx == last || col[idx+1].rank == e.rank {
			continue
		}
		if dirtyL {
			dirtyL = false
			if err := min(l0, l1) + min(fl0-l0, fl1-l1); err < bl.err {
				*bl = best1{err: err, feature: f2, loRow: lastL, pending: true, lowCl: cls2(l0, l1), highCl: cls2(fl0-l0, fl1-l1), split: true, leafCl: bl.leafCl}
			}
		}
		if dirtyR {
			dirtyR = false
			if err := min(r0, r1) + min(fr0-r0, fr1-r1); err < br.err {
				*br = best1{err: err, feature: f2, loRow: lastR, pending: true, lowCl: cls2(r0, r1), highCl: cls2(fr0-r0, fr1-r1), split: true, leafCl: br.leafCl}
			}
		}
	}
	_ = nL
	_ = nR
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
			if b.pending {
				b.hiRow, b.pending = e.row, false
			}
			c := cl[e.label] + 1
			cl[e.label] = c
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
				b = best1{err: err, feature: f, loRow: e.row, pending: true, lowCl: lo, highCl: hi, split: true, leafCl: b.leafCl}
			}
		}
		if b.pending {
			b.hiRow, b.pending = col[len(col)-1].row, false
		}
	}
	return b.node(s)
}
