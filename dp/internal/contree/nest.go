package contree

import "slices"

// Bounds from nested sides.
//
// A threshold of a node's feature a at value rank R splits the node's
// rows into a low side (a-rank <= R) and a high side. The low sides of
// one feature are nested: the low side at R contains the low side at
// every R' <= R (the high sides the other way), and an optimum of a
// fixed depth never falls when rows are added. So every bound the search
// of a low side at R' established for one of its thresholds' parts, a
// split by feature g at value rank r' into a g-low part (g-rank <= r')
// and a g-high part, bounds the matching part of the low side at R from
// below: the g-low part at r >= r' contains the g-low part at r', the
// g-high part at r <= r' contains the g-high part at r'.
//
// A node's search (each node's of depth >= 3 but a parallel root's,
// whose thresholds the workers share out as it happens) records, for each side it searches, the bounds of the two
// parts of every threshold that side's search evaluates; a later side of
// the same feature and direction takes as its parts' floors the largest
// recorded bounds of the sides it contains, and does not search a
// threshold whose floors add up to its prune level. A part whose floor
// reaches the bound it is asked for is settled without a search. Floors
// only raise lower bounds that hold anyway, so the optimum is the same;
// the search differs only in the work it skips. A node's records live
// until its next search (the root's for the whole run).

// nestSources is the most recorded sides a side takes floors from: the
// largest it contains. On raisin and bidding at depth 4, 4 sources skip
// 99 % of the depth-two calls that all sources skip, at a fraction of
// the lookups.
const nestSources = 4

// nestBytes is the bytes counted in the Budget per recorded bound
// (slices grow by doubling).
const nestBytes = 24

// nestChunk is the number of recorded bounds reserved in the Budget at
// a time.
const nestChunk = 1 << 14

// nestStore holds the bounds recorded in the searches of one node's
// sides.
type nestStore struct {
	recs map[nestKey][]*nestRec
	pool []*nestRec // records for reuse after reset
	used int        // records of pool in use
	cur  *nestRec   // the side being searched, or nil
	srcs []*nestRec // recorded sides contained in it
	room int        // bounds reserved in the Budget and not yet used
	full bool       // the Budget refused more
}

type nestKey struct {
	f    int32
	high bool
}

// nestRec is the bounds recorded in the search of one side (the side of
// the node's feature key.f at value rank r), by the feature g of the
// side's threshold.
type nestRec struct {
	r   int32
	byG [][]nestBound
}

// nestBound is the bounds of the two parts of a side split by its
// feature g at value rank r (low: g-rank <= r).
type nestBound struct {
	r        int32
	lbL, lbR int32
}

// nestReset empties the store of the node at level lvl before its
// search, keeping its memory.
func (s *solver) nestReset(lvl int) *nestStore {
	ls := s.level(lvl)
	ns := ls.nest
	if ns == nil {
		ns = &nestStore{recs: map[nestKey][]*nestRec{}}
		ls.nest = ns
	}
	for k, l := range ns.recs {
		ns.recs[k] = l[:0]
	}
	ns.used, ns.cur, ns.srcs = 0, nil, ns.srcs[:0]
	return ns
}

// nestBegin starts the search of the side (high or low) of feature f
// at value rank r of the node whose store is ns: it collects the
// recorded sides that the side contains.
func (s *solver) nestBegin(ns *nestStore, f int, r int32, high bool) {
	k := nestKey{f: int32(f), high: high}
	ns.srcs = ns.srcs[:0]
	for _, rec := range ns.recs[k] {
		if !high && rec.r <= r || high && rec.r >= r {
			ns.srcs = append(ns.srcs, rec)
		}
	}
	if len(ns.srcs) > nestSources {
		// The largest contained sides: their bounds are the highest.
		slices.SortStableFunc(ns.srcs, func(a, b *nestRec) int {
			if high {
				return int(a.r - b.r)
			}
			return int(b.r - a.r)
		})
		ns.srcs = ns.srcs[:nestSources]
	}
	if ns.used == len(ns.pool) {
		ns.pool = append(ns.pool, &nestRec{byG: make([][]nestBound, s.p)})
	}
	rec := ns.pool[ns.used]
	ns.used++
	rec.r = r
	for g := range rec.byG {
		rec.byG[g] = rec.byG[g][:0]
	}
	ns.cur = rec
	ns.recs[k] = append(ns.recs[k], rec)
}

// nestFloors is the floors of the two parts of the side being searched
// in ns split by feature g at value rank r.
func nestFloors(ns *nestStore, g int, r int32) (fl, fr int) {
	for _, rec := range ns.srcs {
		for _, b := range rec.byG[g] {
			if b.r <= r {
				fl = max(fl, int(b.lbL))
			}
			if b.r >= r {
				fr = max(fr, int(b.lbR))
			}
		}
	}
	return fl, fr
}

// nestRecord records the bounds of the two parts of the side being
// searched in ns split by feature g at value rank r, while the Budget
// allows.
func (s *solver) nestRecord(ns *nestStore, g int, r int32, lbL, lbR int) {
	if ns.full || lbL == 0 && lbR == 0 {
		return
	}
	rec := ns.cur
	if len(rec.byG[g]) == cap(rec.byG[g]) {
		if ns.room < cap(rec.byG[g])+1 {
			n := max(nestChunk, cap(rec.byG[g])+1)
			if err := s.cfg.Budget.Reserve(int64(n)*nestBytes, "contree nested bounds"); err != nil {
				ns.full = true
				return
			}
			s.held += int64(n) * nestBytes
			ns.room += n
		}
		ns.room -= cap(rec.byG[g]) + 1
	}
	rec.byG[g] = append(rec.byG[g], nestBound{r: r, lbL: int32(lbL), lbR: int32(lbR)})
}

// parentNest is the store of the parent of a node at level lvl when
// that node is a side being searched in it, or nil.
func (s *solver) parentNest(lvl int) *nestStore {
	if !s.nestRun || lvl == 0 {
		return nil
	}
	ns := s.levels[lvl-1].nest
	if ns == nil || ns.cur == nil {
		return nil
	}
	return ns
}

// nestCut settles threshold w of fs (value rank r, in the interval iv
// shrunk to i..j) whose parts' floors fl and fr alone reach the prune
// level: it is recorded and computed with those bounds, unsearched.
func (s *solver) nestCut(ps *nestStore, fs *featSearch, iv interval, i, j, w, r int32, fl, fr int, push func(interval), out *stepOut) {
	s.stats.NestCut++
	s.nestRecord(ps, fs.f, r, fl, fr)
	out.computed, out.lb = true, fl+fr
	fs.computedAt(iv, i, j, w, fl, fr, push)
}
