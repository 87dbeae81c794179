package drat

// The checking core: the clauses present, watched literals, the top-level
// assignment (everything propagated with nothing assumed, kept from one
// step to the next) and the RUP check of one lemma on top of it.
//
// Literals are numbered 2v (v) and 2v+1 (¬v); a clause is its index in
// cls (its LRAT ID is the index plus one).

const (
	deleted   uint8 = 1 << iota // deleted by the proof
	reasonTop                   // propagates a literal at the top level (kept)
	tautology                   // holds a literal and its negation (never propagates)
	watched                     // attached to the watch lists
)

type clause struct {
	start int64
	n     int32
	flags uint8
}

// watch is a clause watching a literal: c is its index (^index for a
// binary clause, whose blocker is then its other literal, so that
// propagation never reads the clause).
type watch struct{ c, blocker int32 }

type elab struct {
	lits    []int32 // every clause's literals, one after another
	cls     []clause
	watches [][]watch // by literal: the clauses watching it
	val     []int8    // by literal: 1 true, -1 false, 0 unassigned
	reason  []int32   // by variable: the clause that propagated it (-1: assumed)
	pos     []int32   // by variable: its place on the trail
	trail   []int32
	qhead   int
	top     int // the trail's length at the top level
	// seen marks variables during analysis; inLemma (== stamp) the
	// variables of the lemma being checked.
	seen    []bool
	inLemma []uint32
	litMark []uint32 // by literal (== stamp): in the lemma or deletion at hand
	stamp   uint32
	// buckets finds a clause by its set of literals (for deletions): the
	// first clause with a hash, chained through next (a chain holds the
	// clauses of one hash only).
	buckets map[uint64]int32
	next    []int32
	// conflict is a clause falsified at the top level (-1: none yet):
	// the empty clause follows.
	conflict int32
	inputs   int32
	// dead counts the literals of deleted clauses still in lits; at
	// compactMin (and half of lits) they are dropped.
	dead, compactMin int64
	compactions      int
	hints            []int32
	norm             []int32
	store            *lemmaStore
}

func newElab(vars int) *elab {
	e := &elab{buckets: map[uint64]int32{}, conflict: -1}
	e.grow(vars)
	return e
}

// grow makes room for variables up to v.
func (e *elab) grow(v int) {
	for len(e.reason) <= v {
		e.reason = append(e.reason, -1)
		e.pos = append(e.pos, 0)
		e.seen = append(e.seen, false)
		e.inLemma = append(e.inLemma, 0)
		for range 2 {
			e.watches = append(e.watches, nil)
			e.val = append(e.val, 0)
			e.litMark = append(e.litMark, 0)
		}
	}
}

// bytes estimates the memory the clauses take: their literals, and per
// clause its header, hash chain link, offset in the lemma store and two
// watches.
func (e *elab) bytes() int64 {
	return 4*int64(cap(e.lits)) + (16+4+8+16)*int64(cap(e.cls))
}

func (e *elab) clause(c int32) []int32 {
	cl := e.cls[c]
	return e.lits[cl.start : cl.start+int64(cl.n)]
}

// compact drops the literals of deleted clauses (the lemmas' are in the
// lemma store for the LRAT proof); a deleted clause is never read again.
func (e *elab) compact() {
	lits := make([]int32, 0, int64(len(e.lits))-e.dead)
	for c := range e.cls {
		cl := &e.cls[c]
		if cl.flags&deleted != 0 {
			cl.start, cl.n = 0, 0
			continue
		}
		start := int64(len(lits))
		lits = append(lits, e.lits[cl.start:cl.start+int64(cl.n)]...)
		cl.start = start
	}
	e.lits, e.dead = lits, 0
	e.compactions++
}

// litHash hashes one literal (splitmix64); a clause's hash is the sum
// over its distinct literals, so that the order does not matter.
func litHash(l int32) uint64 {
	z := uint64(l) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// normalize turns a step's DIMACS literals into distinct internal ones
// (in e.norm) and reports a tautology.
func (e *elab) normalize(ds []int32) ([]int32, bool) {
	e.stamp++
	e.norm = e.norm[:0]
	taut := false
	for _, d := range ds {
		v := d
		if v < 0 {
			v = -v
		}
		e.grow(int(v))
		l := 2 * v
		if d < 0 {
			l++
		}
		if e.litMark[l] == e.stamp {
			continue
		}
		if e.litMark[l^1] == e.stamp {
			taut = true
		}
		e.litMark[l] = e.stamp
		e.norm = append(e.norm, l)
	}
	return e.norm, taut
}

// store adds a clause's literals and returns its index.
func (e *elab) storeClause(ls []int32, flags uint8) int32 {
	c := int32(len(e.cls))
	e.cls = append(e.cls, clause{start: int64(len(e.lits)), n: int32(len(ls)), flags: flags})
	e.lits = append(e.lits, ls...)
	var h uint64
	for _, l := range ls {
		h += litHash(l)
	}
	head, ok := e.buckets[h]
	if !ok {
		head = -1
	}
	e.next = append(e.next, head)
	e.buckets[h] = c
	return c
}

// addInput adds a clause of the formula.
func (e *elab) addInput(ds []int32) {
	ls, taut := e.normalize(ds)
	if taut {
		e.storeClause(ls, tautology)
		return
	}
	c := e.storeClause(ls, 0)
	if e.conflict < 0 {
		e.addTop(c)
	}
}

// addLemma adds a lemma that passed its RUP check, with its hints.
func (e *elab) addLemma(ls []int32) error {
	c := e.storeClause(ls, 0)
	if err := e.store.put(c, ls, e.hints); err != nil {
		return err
	}
	e.addTop(c)
	return nil
}

// addTop takes clause c into the top level: it is satisfied (and never
// watched), falsified (the conflict), unit (its literal propagated) or
// watched by two unassigned literals.
func (e *elab) addTop(c int32) {
	cl := e.clause(c)
	k := 0 // cl[:k] are unassigned
	for i, l := range cl {
		switch e.val[l] {
		case 1:
			return
		case 0:
			cl[i], cl[k] = cl[k], cl[i]
			k++
		}
	}
	switch k {
	case 0:
		e.conflict = c
	case 1:
		e.assign(cl[0], c)
		e.propagateTop()
	default:
		e.attach(c)
	}
}

// propagateTop propagates at the top level; the clauses that propagate
// there are kept for good (reasonTop).
func (e *elab) propagateTop() {
	from := e.top
	confl := e.propagate()
	for _, l := range e.trail[from:] {
		e.cls[e.reason[l>>1]].flags |= reasonTop
	}
	e.top = len(e.trail)
	if confl >= 0 {
		e.conflict = confl
	}
}

func (e *elab) attach(c int32) {
	cl := e.clause(c)
	e.cls[c].flags |= watched
	w := c
	if len(cl) == 2 {
		w = ^c
	}
	e.watches[cl[0]] = append(e.watches[cl[0]], watch{w, cl[1]})
	e.watches[cl[1]] = append(e.watches[cl[1]], watch{w, cl[0]})
}

// detachBinary removes binary clause c's watches (a deleted long
// clause's are dropped as propagation meets them).
func (e *elab) detachBinary(c int32) {
	for _, l := range e.clause(c) {
		ws := e.watches[l]
		for i, w := range ws {
			if w.c == ^c {
				ws[i] = ws[len(ws)-1]
				e.watches[l] = ws[:len(ws)-1]
				break
			}
		}
	}
}

func (e *elab) assign(l, from int32) {
	e.val[l], e.val[l^1] = 1, -1
	v := l >> 1
	e.reason[v] = from
	e.pos[v] = int32(len(e.trail))
	e.trail = append(e.trail, l)
}

// backtrack undoes everything above the top level.
func (e *elab) backtrack() {
	for _, l := range e.trail[e.top:] {
		e.val[l], e.val[l^1] = 0, 0
		e.reason[l>>1] = -1
	}
	e.trail = e.trail[:e.top]
	e.qhead = e.top
}

// propagate propagates the trail from qhead; it returns a falsified
// clause, or -1.
func (e *elab) propagate() int32 {
	for e.qhead < len(e.trail) {
		fl := e.trail[e.qhead] ^ 1 // now false
		e.qhead++
		ws := e.watches[fl]
		i, j := 0, 0
		for i < len(ws) {
			w := ws[i]
			i++
			if e.val[w.blocker] == 1 {
				ws[j] = w
				j++
				continue
			}
			if w.c < 0 { // binary
				ws[j] = w
				j++
				if e.val[w.blocker] == -1 {
					j += copy(ws[j:], ws[i:])
					e.watches[fl] = ws[:j]
					return ^w.c
				}
				e.assign(w.blocker, ^w.c)
				continue
			}
			c := &e.cls[w.c]
			if c.flags&deleted != 0 {
				continue // dropped from the list
			}
			cl := e.lits[c.start : c.start+int64(c.n)]
			if cl[0] == fl {
				cl[0], cl[1] = cl[1], cl[0]
			}
			first := cl[0]
			if first != w.blocker && e.val[first] == 1 {
				ws[j] = watch{w.c, first}
				j++
				continue
			}
			moved := false
			for k := 2; k < len(cl); k++ {
				if e.val[cl[k]] != -1 {
					cl[1], cl[k] = cl[k], cl[1]
					e.watches[cl[1]] = append(e.watches[cl[1]], watch{w.c, first})
					moved = true
					break
				}
			}
			if moved {
				continue
			}
			ws[j] = watch{w.c, first}
			j++
			if e.val[first] == -1 {
				j += copy(ws[j:], ws[i:])
				e.watches[fl] = ws[:j]
				return w.c
			}
			e.assign(first, w.c)
		}
		e.watches[fl] = ws[:j]
	}
	return -1
}

// rup checks that lemma ls follows by unit propagation; on success
// e.hints holds its LRAT hints.
func (e *elab) rup(ls []int32) bool {
	e.stamp++
	first := int32(-1) // the lemma's literal true at the top level earliest
	for _, l := range ls {
		e.inLemma[l>>1] = e.stamp
		if e.val[l] == 1 && (first < 0 || e.pos[l>>1] < e.pos[first>>1]) {
			first = l
		}
	}
	if first >= 0 {
		// Its negation contradicts the top level: the clause that
		// propagated it is the conflict.
		e.analyze(e.reason[first>>1])
		return true
	}
	for _, l := range ls {
		if e.val[l] == 0 {
			e.assign(l^1, -1)
		}
	}
	confl := e.propagate()
	if confl >= 0 {
		e.analyze(confl)
	}
	e.backtrack()
	return confl >= 0
}

// analyze sets e.hints to the clauses that derive the conflict confl,
// in the order the trail derived them, confl last. The variables of the
// lemma (inLemma) are the checker's assumptions and are not derived.
func (e *elab) analyze(confl int32) {
	e.hints = e.hints[:0]
	pending := 0
	mark := func(c int32, skip int32) {
		for _, l := range e.clause(c) {
			v := l >> 1
			if v != skip && !e.seen[v] && e.inLemma[v] != e.stamp {
				e.seen[v] = true
				pending++
			}
		}
	}
	mark(confl, -1)
	for i := len(e.trail) - 1; pending > 0; i-- {
		v := e.trail[i] >> 1
		if !e.seen[v] {
			continue
		}
		e.seen[v] = false
		pending--
		r := e.reason[v]
		if r < 0 || r == confl {
			continue
		}
		e.hints = append(e.hints, r)
		mark(r, v)
	}
	for i, j := 0, len(e.hints)-1; i < j; i, j = i+1, j-1 {
		e.hints[i], e.hints[j] = e.hints[j], e.hints[i]
	}
	e.hints = append(e.hints, confl)
}

// delete deletes a clause with the step's literals (as a set); it
// reports false when it ignores the deletion (see the package doc).
func (e *elab) delete(ds []int32) bool {
	ls, _ := e.normalize(ds) // marks ls with e.stamp
	var h uint64
	for _, l := range ls {
		h += litHash(l)
	}
	head, ok := e.buckets[h]
	if !ok {
		return false
	}
	prev := int32(-1)
	for c := head; c >= 0; prev, c = c, e.next[c] {
		cl := e.cls[c]
		if int(cl.n) != len(ls) {
			continue
		}
		same := true
		for _, l := range e.clause(c) {
			if e.litMark[l] != e.stamp {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		if cl.flags&reasonTop != 0 {
			return false
		}
		e.cls[c].flags |= deleted
		if cl.n == 2 && cl.flags&watched != 0 {
			e.detachBinary(c)
		}
		e.dead += int64(cl.n)
		if e.compactMin < 0 || e.dead >= e.compactMin && 2*e.dead > int64(len(e.lits)) {
			e.compact()
		}
		if prev < 0 {
			if e.next[c] < 0 {
				delete(e.buckets, h)
			} else {
				e.buckets[h] = e.next[c]
			}
		} else {
			e.next[prev] = e.next[c]
		}
		return true
	}
	return false
}
