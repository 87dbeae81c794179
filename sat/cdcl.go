package sat

import (
	"context"
	"slices"
)

// CDCL is odtkit's own in-process conflict-driven clause-learning
// solver: two watched literals with blocking literals, VSIDS branching
// with phase saving (false first, as MiniSat), first-UIP learning with
// recursive minimisation, Luby restarts and activity-based deletion of
// learnt clauses; or, in its glue mode (SetGlue), restarts and deletion
// by the learnt clauses' glue, reason-side bumping and a variable decay
// that starts fast (glue.go). It is incremental (clauses may be added between
// solves; learnt clauses and activities are kept) and solves under
// assumptions. The search is deterministic: the same clauses and calls
// give the same answers and models. A cancelled context stops it within
// a few hundred conflicts.
type CDCL struct {
	chunks      [][]int32 // the clause arena (see chunkBits): header (see hdr*), literals, a learnt clause's activity
	free        [][]int32 // emptied chunks, reused before new ones are made
	arenaWords  int       // words of the clauses in the arena, removed ones included, proof IDs not (see words)
	wasted      int       // arena words held by removed clauses
	learntWords int       // arena words of the live learnt clauses
	problems    int       // number of problem clauses
	learnts     []int32
	watches     [][]watcher  // by internal literal: clauses of 3+ literals watching it
	bins        [][]binWatch // by internal literal: the binary clauses holding it
	watchSlab   slab[watcher]
	binSlab     slab[binWatch]
	vals        []int8 // by internal literal: 0 unassigned, 1 true, -1 false
	level       []int32
	reason      []int32 // clause that implied the variable, noReason if none
	phase       []bool  // saved phase: the value last assigned
	activity    []float64
	order       varHeap
	seen        []bool
	poison      []bool  // analysis: not removable from the learnt clause
	trail       []int32 // assigned internal literals in order
	trailLim    []int   // trail length at the start of each decision level
	qhead       int

	varInc, claInc float64
	maxLearnts     float64
	adjustConfl    float64
	adjustLeft     int
	ok             bool // false once the clauses alone are refuted
	model          []bool

	toClear, buf, poisoned []int32
	frames                 []frame
	lastAs                 []int32 // assumptions of the last satisfiable solve
	limit, stopAt          int64   // conflict limit of a solve (0: none), and where this one stops
	restartUnit            int     // conflicts per Luby unit (0: restartUnit)

	// The glue mode (SetGlue, glue.go).
	glueMode         bool
	emaFast, emaSlow float64 // moving averages of the learnt clauses' glue
	glueConflicts    int64   // learnt clauses the averages have seen
	sinceRestart     int     // conflicts since the last restart
	nextReduce       int64   // conflict count of the next reduction
	levelStamp       []int64 // by decision level: glueOf's last visit
	stamp            int64
	bumpedAt         []int64 // by variable: the last conflict (analyzed) that bumped it
	analyzed         int64
	cands            []int32 // reduceGlue's candidates

	conflicts, decisions, propagations int64
	restarts, reductions, compactions  int

	proof *proofLog // the LRAT proof being logged (nil: none, see StartProof)
}

// binWatch is a binary clause in the list of one of its literals: when
// that literal becomes false, other is implied (reason c) without
// reading the clause itself.
type binWatch struct {
	other int32
	c     int32
}

type watcher struct {
	c       int32 // clause reference
	blocker int32 // some other literal of c: when true, c is satisfied
}

// NewCDCL returns an empty CDCL solver.
func NewCDCL() *CDCL {
	s := &CDCL{varInc: 1, claInc: 1, ok: true}
	s.order.act = &s.activity
	return s
}

const (
	varDecay       = 0.95
	claDecay       = 0.999
	restartUnit    = 300 // conflicts per unit of the Luby sequence
	ctxCheckPeriod = 16  // conflicts between two looks at the context (a conflict on a formula of millions of clauses can take milliseconds)
	// The learnt clauses are also reduced when their arena words exceed
	// learntWordsFactor times those of the problem clauses (and
	// minLearntWords).
	learntWordsFactor = 4
	minLearntWords    = 1 << 20
)

func internal(l Lit) int32 {
	if l > 0 {
		return int32(2 * (l - 1))
	}
	return int32(2*(-l-1) + 1)
}

func (s *CDCL) numVars() int { return len(s.level) }

// Reset empties the solver (no variables, no clauses, counters at 0;
// a proof being logged is dropped) and keeps its memory for the next
// formula: a sequence of formulas of
// growing size, such as one per tree depth, then allocates little.
func (s *CDCL) Reset() {
	s.dropProof()
	s.watchSlab.releaseAll(s.watches[:cap(s.watches)])
	s.binSlab.releaseAll(s.bins[:cap(s.bins)])
	*s = CDCL{
		chunks: s.chunks[:0], free: append(s.free, s.chunks...), learnts: s.learnts[:0],
		watches: s.watches[:0], bins: s.bins[:0], watchSlab: s.watchSlab, binSlab: s.binSlab, vals: s.vals[:0], level: s.level[:0],
		reason: s.reason[:0], phase: s.phase[:0], activity: s.activity[:0], seen: s.seen[:0],
		poison: s.poison[:0], trail: s.trail[:0], trailLim: s.trailLim[:0], model: s.model[:0],
		toClear: s.toClear[:0], buf: s.buf[:0], poisoned: s.poisoned[:0], frames: s.frames[:0], lastAs: s.lastAs[:0],
		limit: s.limit, restartUnit: s.restartUnit, glueMode: s.glueMode, levelStamp: s.levelStamp[:0], cands: s.cands[:0], bumpedAt: s.bumpedAt[:0],
		order:  varHeap{heap: s.order.heap[:0], pos: s.order.pos[:0]},
		varInc: 1, claInc: 1, ok: true,
	}
	s.order.act = &s.activity
}

func (s *CDCL) grow(n int) {
	for v := s.numVars(); v < n; v++ {
		s.watches = append(reserve(s.watches, 2), nil, nil)
		s.bins = append(reserve(s.bins, 2), nil, nil)
		s.vals = append(s.vals, 0, 0)
		s.level = append(s.level, 0)
		s.reason = append(s.reason, noReason)
		s.phase = append(s.phase, false)
		s.activity = append(s.activity, 0)
		s.seen = append(s.seen, false)
		s.poison = append(s.poison, false)
		s.bumpedAt = append(s.bumpedAt, 0)
		s.order.insert(int32(v))
	}
	if s.proof != nil {
		s.proof.grow(n)
	}
}

func (s *CDCL) value(l int32) int8 { return s.vals[l] }

func (s *CDCL) decisionLevel() int { return len(s.trailLim) }

func (s *CDCL) enqueue(l int32, from int32) {
	v := l >> 1
	s.vals[l], s.vals[l^1] = 1, -1
	s.level[v] = int32(s.decisionLevel())
	s.reason[v] = from
	s.trail = append(s.trail, l)
}

func (s *CDCL) attach(c int32) {
	ls := s.lits(c)
	if len(ls) == 2 {
		s.bins[ls[0]] = s.binSlab.push(s.bins[ls[0]], binWatch{ls[1], c})
		s.bins[ls[1]] = s.binSlab.push(s.bins[ls[1]], binWatch{ls[0], c})
		return
	}
	s.watches[ls[0]] = s.watchSlab.push(s.watches[ls[0]], watcher{c, ls[1]})
	s.watches[ls[1]] = s.watchSlab.push(s.watches[ls[1]], watcher{c, ls[0]})
}

// AddClause adds a clause (DIMACS literals). After a satisfiable solve
// the solver keeps its assignment (see Solve) and adds the clause under
// it: a clause with two literals not false is watched by them, one
// falsified by the assignment sends the search back only as far as it
// must, and one with a single literal not false, unassigned, implies it
// at the current level. Only a unit clause goes back to level 0.
func (s *CDCL) AddClause(lits ...Lit) {
	if !s.ok {
		if s.proof != nil {
			s.proof.input(lits)
		}
		return
	}
	ls := s.buf[:0]
	defer func() { s.buf = ls[:0] }()
	for _, l := range lits {
		if l == 0 {
			continue
		}
		if l.Var() > s.numVars() {
			s.grow(l.Var())
		}
		ls = append(ls, internal(l))
	}
	if s.proof != nil {
		s.proof.input(lits)
	}
	slices.Sort(ls)
	ls = slices.Compact(ls)
	j := 0
	for i, l := range ls {
		if i+1 < len(ls) && ls[i+1] == l^1 {
			return // tautology (l and ¬l are adjacent once sorted)
		}
		if v := s.value(l); v == 0 || s.level[l>>1] > 0 {
			ls[j] = l
			j++
		} else if v == 1 {
			return // satisfied at level 0
		}
	}
	if s.proof != nil && j < len(ls) {
		s.proofShorten(lits, ls[:j])
	}
	ls = ls[:j]
	switch len(ls) {
	case 0:
		s.ok = false
	case 1:
		s.cancelUntil(0)
		if s.value(ls[0]) == 0 {
			s.enqueue(ls[0], noReason)
			if s.proof != nil {
				s.proof.setUnit(ls[0]>>1, s.proof.id)
			}
		}
		if confl := s.propagate(); confl != noReason {
			s.ok = false
			if s.proof != nil {
				s.proofEmpty(confl)
			}
		}
	default:
		if s.decisionLevel() == 0 {
			s.addProblem(ls)
			return
		}
		s.addUnder(ls)
	}
}

// addProblem stores and watches problem clause ls (its first two
// literals watched) and returns its reference.
func (s *CDCL) addProblem(ls []int32) int32 {
	c := s.newClause(ls, false)
	s.problems++
	s.attach(c)
	return c
}

// addUnder adds clause ls (2+ literals, none fixed at level 0) while
// variables are assigned above level 0. Its two best literals are
// watched: true ones first (lowest level first), then unassigned, then
// false (highest level first).
//
// The watches then keep the invariant propagate relies on, that a clause
// is read whenever one of its watches becomes false while it is not
// satisfied, in each case: two watches not false; a true watch beside a
// false one (the clause is satisfied; if a backjump unassigns only the
// true literal, the clause is unit without having been propagated — a
// late implication, not a wrong answer: it is read as soon as that
// literal becomes false); an unassigned watch beside false ones, which
// is implied at once with the clause as reason, at the current level
// (later than the level it follows at, harmless for the same reason);
// all literals false, where the search goes back to the level below
// which the clause is unit, or below its two highest literals' common
// level.
func (s *CDCL) addUnder(ls []int32) {
	rank := func(l int32) int64 {
		lv := int64(s.level[l>>1])
		switch s.value(l) {
		case 1:
			return lv // true: low levels first
		case 0:
			return 1 << 40
		}
		return 1<<41 - lv // false: high levels first
	}
	for w := range 2 {
		best := w
		for k := w + 1; k < len(ls); k++ {
			if rank(ls[k]) < rank(ls[best]) {
				best = k
			}
		}
		ls[w], ls[best] = ls[best], ls[w]
	}
	if s.value(ls[0]) == -1 {
		// Every literal false: ls[0] and ls[1] are at the two highest levels.
		l0, l1 := int(s.level[ls[0]>>1]), int(s.level[ls[1]>>1])
		if l0 > l1 {
			s.cancelUntil(l1)
		} else {
			s.cancelUntil(l0 - 1)
		}
	}
	c := s.addProblem(ls)
	if s.value(ls[0]) == 0 && s.value(ls[1]) == -1 {
		s.enqueue(ls[0], c)
	}
}

// propagate assigns the unit consequences of the trail and returns a
// falsified clause, or noReason. Binary clauses go first, from their own
// lists; a reason clause of an implied literal need not have it first.
func (s *CDCL) propagate() int32 {
	confl := int32(noReason)
	chunks, vals := s.chunks, s.vals
	for s.qhead < len(s.trail) {
		p := s.trail[s.qhead]
		s.qhead++
		f := p ^ 1 // the literal that became false
		for _, b := range s.bins[f] {
			switch vals[b.other] {
			case 1:
				continue
			case -1:
				s.qhead = len(s.trail)
				return b.c
			}
			s.enqueue(b.other, b.c)
		}
		ws := s.watches[f]
		i, j := 0, 0
		s.propagations++
		for i < len(ws) {
			w := ws[i]
			i++
			if vals[w.blocker] == 1 {
				ws[j] = w
				j++
				continue
			}
			c := w.c
			ch, o := chunks[c>>chunkBits], c&chunkMask
			n := ch[o] & hdrSize
			ls := ch[o+hdrWords : o+hdrWords+n : o+hdrWords+n]
			if ls[0] == f {
				ls[0], ls[1] = ls[1], f
			}
			first := ls[0]
			old := w.blocker
			w = watcher{c, first}
			if first != old && vals[first] == 1 {
				ws[j] = w
				j++
				continue
			}
			// Look for a literal to watch instead of f. A true one
			// satisfies c: f became false at the current level and the
			// true literal was assigned at this level or below, so no
			// backjump unassigns it and leaves f false; c then stays in
			// f's list with it as blocker, and is not read again while it
			// holds. On car's depth-8 formula this halved the CPU per
			// conflict: most clauses reached there are satisfied by a
			// literal of the example's path.
			done := false
			for k := int32(2); k < n; k++ {
				l := ls[k]
				if v := vals[l]; v == 1 {
					ws[j] = watcher{c, l}
					j++
					done = true
					break
				} else if v == 0 {
					ls[1], ls[k] = l, f
					s.watches[l] = s.watchSlab.push(s.watches[l], w)
					done = true
					break
				}
			}
			if done {
				continue
			}
			ws[j] = w
			j++
			if vals[first] == -1 {
				confl = c
				s.qhead = len(s.trail)
				j += copy(ws[j:], ws[i:])
				break
			}
			s.enqueue(first, c)
		}
		s.watches[f] = ws[:j]
		if confl != noReason {
			break
		}
	}
	return confl
}

func (s *CDCL) cancelUntil(lvl int) {
	if s.decisionLevel() <= lvl {
		return
	}
	for i := len(s.trail) - 1; i >= s.trailLim[lvl]; i-- {
		l := s.trail[i]
		v := l >> 1
		s.vals[l], s.vals[l^1] = 0, 0
		s.reason[v] = noReason
		s.phase[v] = l&1 == 0
		s.order.insert(v)
	}
	s.trail = s.trail[:s.trailLim[lvl]]
	s.qhead = len(s.trail)
	s.trailLim = s.trailLim[:lvl]
}

func (s *CDCL) bumpVar(v int32) {
	s.activity[v] += s.varInc
	if s.activity[v] > 1e100 {
		for i := range s.activity {
			s.activity[i] *= 1e-100
		}
		s.varInc *= 1e-100
	}
	s.order.update(v)
}

func (s *CDCL) bumpClause(c int32) {
	a := s.act(c) + float32(s.claInc)
	s.setAct(c, a)
	if a > 1e20 {
		for _, d := range s.learnts {
			s.setAct(d, s.act(d)*1e-20)
		}
		s.claInc *= 1e-20
	}
}

// analyze derives the first-UIP clause of a conflict (asserting literal
// first, a literal of the backjump level second) and the backjump level.
func (s *CDCL) analyze(confl int32) ([]int32, int) {
	out := append(s.buf[:0], -1)
	pathC := 0
	p := int32(-1)
	idx := len(s.trail) - 1
	c := confl
	dl := int32(s.decisionLevel())
	s.analyzed++
	for {
		if s.learnt(c) {
			if s.glueMode {
				s.useGlue(c)
			} else {
				s.bumpClause(c)
			}
		}
		for _, q := range s.lits(c) {
			v := q >> 1
			if q != p && !s.seen[v] && s.level[v] > 0 {
				s.bumpVar(v)
				s.bumpedAt[v] = s.analyzed
				s.seen[v] = true
				if s.level[v] >= dl {
					pathC++
				} else {
					out = append(out, q)
				}
			}
		}
		for !s.seen[s.trail[idx]>>1] {
			idx--
		}
		p = s.trail[idx]
		idx--
		c = s.reason[p>>1]
		s.seen[p>>1] = false
		pathC--
		if pathC == 0 {
			break
		}
	}
	out[0] = p ^ 1
	// Drop the literals implied by the others (recursive minimisation).
	var abstract uint32
	for _, q := range out[1:] {
		abstract |= 1 << (s.level[q>>1] & 31)
	}
	s.toClear = append(s.toClear[:0], out...)
	j := 1
	for _, q := range out[1:] {
		if s.reason[q>>1] == noReason || !s.redundant(q, abstract) {
			out[j] = q
			j++
		}
	}
	out = out[:j]
	for _, q := range s.toClear {
		s.seen[q>>1] = false
	}
	for _, v := range s.poisoned {
		s.poison[v] = false
	}
	s.poisoned = s.poisoned[:0]
	s.buf = out
	if s.glueMode {
		s.bumpReasons(out)
	}
	bt := 0
	if len(out) > 1 {
		m := 1
		for i := 2; i < len(out); i++ {
			if s.level[out[i]>>1] > s.level[out[m]>>1] {
				m = i
			}
		}
		out[1], out[m] = out[m], out[1]
		bt = int(s.level[out[1]>>1])
	}
	return out, bt
}

// redundant reports whether literal p of a learnt clause follows from the
// clause's other literals through reasons. It searches depth first; a
// variable proven removable stays marked seen (and is cleared with the
// clause), one proven not removable is marked poisoned until the end of the
// analysis, so that no implication graph node is explored twice per
// conflict (the clauses learnt on wine are long and their reasons share
// most of their ancestors, which the search would otherwise walk again and
// again; figures in docs/benchmarks.md, "Figures behind constants and
// defaults").
func (s *CDCL) redundant(p int32, abstract uint32) bool {
	s.frames = append(s.frames[:0], frame{v: p >> 1})
	for len(s.frames) > 0 {
		top := &s.frames[len(s.frames)-1]
		v := top.v
		ls := s.lits(s.reason[v])
		if int(top.i) == len(ls) {
			s.frames = s.frames[:len(s.frames)-1]
			if len(s.frames) > 0 { // the root is in the clause, seen already
				s.seen[v] = true
				s.toClear = append(s.toClear, 2*v)
			}
			continue
		}
		u := ls[top.i] >> 1
		top.i++
		if u == v || s.seen[u] || s.level[u] == 0 {
			continue
		}
		if !s.poison[u] && s.reason[u] != noReason && abstract&(1<<(s.level[u]&31)) != 0 {
			s.frames = append(s.frames, frame{v: u})
			continue
		}
		// u is a decision, at a level outside the clause or known not
		// removable: so is every variable on the path to it.
		for _, f := range s.frames {
			if !s.poison[f.v] {
				s.poison[f.v] = true
				s.poisoned = append(s.poisoned, f.v)
			}
		}
		return false
	}
	return true
}

// frame is a variable of redundant's search and the next literal of its
// reason to look at.
type frame struct{ v, i int32 }

// learntsDue tells whether the learnt clauses should be reduced: too
// many of them, or their words above learntWordsFactor times the problem
// clauses' (and minLearntWords).
func (s *CDCL) learntsDue() bool {
	if float64(len(s.learnts)-len(s.trail)) >= s.maxLearnts {
		return true
	}
	problemWords := s.arenaWords - s.wasted - s.learntWords
	return s.learntWords > max(learntWordsFactor*problemWords, minLearntWords)
}

func (s *CDCL) locked(c int32) bool {
	l := s.lits(c)[0]
	return s.reason[l>>1] == c && s.value(l) == 1
}

// reduceDB removes about half of the learnt clauses, the least active
// first, keeping binary clauses and the reasons of current assignments.
func (s *CDCL) reduceDB() {
	s.reductions++
	limit := s.claInc / float64(len(s.learnts))
	size := func(c int32) int32 { return s.header(c) & hdrSize }
	slices.SortStableFunc(s.learnts, func(a, b int32) int {
		ab, bb := size(a) == 2, size(b) == 2
		switch {
		case ab && !bb:
			return 1
		case bb && !ab:
			return -1
		case s.act(a) < s.act(b):
			return -1
		case s.act(a) > s.act(b):
			return 1
		}
		return 0
	})
	half := len(s.learnts) / 2
	for i, c := range s.learnts {
		if size(c) > 2 && !s.locked(c) && (i < half || float64(s.act(c)) < limit) {
			s.removeLearnt(c)
		}
	}
	s.dropGone()
}

// removeLearnt marks learnt clause c gone (its deletion logged in a
// proof); dropGone then forgets it.
func (s *CDCL) removeLearnt(c int32) {
	if s.proof != nil {
		s.proof.delete(s.id(c))
	}
	ch, o := s.clause(c)
	ch[o] |= hdrGone
	w := s.words(c)
	s.wasted += w
	s.learntWords -= w
}

// dropGone forgets the learnt clauses a reduction marked gone: the list of
// learnt clauses, the proof's deletions, the watches, and the arena when
// half of it is waste.
func (s *CDCL) dropGone() {
	kept := s.learnts[:0]
	for _, c := range s.learnts {
		if s.header(c)&hdrGone == 0 {
			kept = append(kept, c)
		}
	}
	s.learnts = kept
	if s.proof != nil {
		s.proof.endDelete()
	}
	for l, ws := range s.watches {
		j := 0
		for _, w := range ws {
			if s.header(w.c)&hdrGone == 0 {
				ws[j] = w
				j++
			}
		}
		s.watches[l] = ws[:j]
	}
	if s.wasted > s.arenaWords/2 {
		s.compact()
	}
}

// compact copies the live clauses to new chunks, in arena order, and
// renumbers every reference (the old first literal of a moved clause holds
// its new reference); the old chunks are kept for the clauses to come: on
// wine, where learnt clauses run to thousands of literals, fresh memory per
// compaction would spend a large share of the solve allocating, clearing
// and copying (figures in docs/benchmarks.md, "Figures behind constants and
// defaults").
func (s *CDCL) compact() {
	s.compactions++
	old := s.chunks
	s.chunks = make([][]int32, 0, len(old))
	s.arenaWords = 0
	for _, ch := range old {
		for o := int32(0); int(o) < len(ch); {
			h := ch[o]
			n := wordsOf(h)
			if h&hdrGone == 0 {
				nc, w := s.alloc(int(n))
				copy(w, ch[o:o+n])
				ch[o+forwardAddress] = nc
				s.arenaWords -= int(n - counted(h))
			}
			o += n
		}
	}
	moved := func(c int32) int32 { return old[c>>chunkBits][c&chunkMask+forwardAddress] }
	for i, c := range s.learnts {
		s.learnts[i] = moved(c)
	}
	for _, ws := range s.watches {
		for i := range ws {
			ws[i].c = moved(ws[i].c)
		}
	}
	for _, bs := range s.bins {
		for i := range bs {
			bs[i].c = moved(bs[i].c)
		}
	}
	for _, l := range s.trail {
		if r := s.reason[l>>1]; r != noReason {
			s.reason[l>>1] = moved(r)
		}
	}
	s.free = append(s.free, old...)
	s.wasted = 0
}

// luby is the x-th element (from 0) of the Luby sequence 1 1 2 1 1 2 4 ...
func luby(x int) float64 {
	size, seq := 1, 0
	for size < x+1 {
		seq++
		size = 2*size + 1
	}
	for size-1 != x {
		size = (size - 1) >> 1
		seq--
		x %= size
	}
	return float64(int(1) << seq)
}

// Solve decides the clauses under the assumptions. After a satisfiable
// answer the assignment is kept: clauses added next are added under it
// (AddClause), and the next solve with the same assumptions goes on from
// it (keptLevels); any other answer leaves the solver at level 0.
func (s *CDCL) Solve(ctx context.Context, assumptions ...Lit) (Status, error) {
	s.model = s.model[:0]
	if s.proof != nil {
		s.proof.final, s.proof.contradictory = 0, false
	}
	if !s.ok {
		if s.proof != nil {
			s.proof.final = s.proof.empty
			s.proof.finalLits = s.proof.finalLits[:0]
		}
		return Unsatisfiable, nil
	}
	if ctx.Err() != nil {
		return Unknown, nil
	}
	as := make([]int32, len(assumptions))
	for i, a := range assumptions {
		if a.Var() > s.numVars() {
			s.grow(a.Var())
		}
		as[i] = internal(a)
	}
	s.cancelUntil(s.keptLevels(as))
	if s.decisionLevel() == 0 {
		if confl := s.propagate(); confl != noReason {
			s.ok = false
			if s.proof != nil {
				s.proofEmpty(confl)
			}
			return Unsatisfiable, nil
		}
	}
	s.stopAt = 0
	if s.limit > 0 {
		s.stopAt = s.conflicts + s.limit
	}
	s.maxLearnts = max(float64(s.problems)/3, 1000)
	if s.glueMode && s.nextReduce <= s.conflicts {
		s.nextReduce = s.conflicts + glueReduceBase
	}
	s.adjustConfl, s.adjustLeft = 100, 100
	st := Unknown
	for r := 0; st == Unknown; r++ {
		var stop bool
		unit := restartUnit
		if s.restartUnit > 0 {
			unit = s.restartUnit
		}
		st, stop = s.search(ctx, int(luby(r)*float64(unit)), as)
		if stop {
			break
		}
		if s.proof != nil && s.proof.err != nil {
			// The proof asked for can no longer be written (a full
			// disk, say): searching on would prove nothing.
			s.cancelUntil(0)
			return Unknown, s.proof.err
		}
	}
	if st == Satisfiable {
		s.lastAs = append(s.lastAs[:0], as...)
	} else {
		s.cancelUntil(0)
	}
	return st, nil
}

// keptLevels is how many decision levels of the assignment a model left
// the next solve keeps: all of them when its assumptions are the same,
// else those of the assumptions both share. Algorithm 3 adds one
// misclassified example to a satisfiable formula and solves again: going
// on from the last model instead of deciding every variable afresh from
// level 0 saves most of the work of such a call.
func (s *CDCL) keptLevels(as []int32) int {
	n := min(len(as), len(s.lastAs))
	p := 0
	for p < n && as[p] == s.lastAs[p] {
		p++
	}
	if p == len(as) && p == len(s.lastAs) {
		return s.decisionLevel()
	}
	return min(p, s.decisionLevel())
}

// search runs until a model, a refutation, budget conflicts (Unknown,
// false: restart) or the end of ctx (Unknown, true).
func (s *CDCL) search(ctx context.Context, budget int, as []int32) (Status, bool) {
	done := ctx.Done()
	conflicts := 0
	for {
		if confl := s.propagate(); confl != noReason {
			conflicts++
			s.conflicts++
			if s.decisionLevel() == 0 {
				s.ok = false
				if s.proof != nil {
					s.proofEmpty(confl)
				}
				return Unsatisfiable, false
			}
			learnt, bt := s.analyze(confl)
			if s.proof != nil {
				learnt = s.proofLearnt(learnt, confl)
			}
			s.cancelUntil(bt)
			glue := int32(1)
			if len(learnt) == 1 {
				s.enqueue(learnt[0], noReason)
				if s.proof != nil {
					s.proof.setUnit(learnt[0]>>1, s.proof.id)
				}
			} else {
				c := s.newClause(learnt, true)
				s.learntWords += s.words(c)
				s.learnts = append(s.learnts, c)
				s.attach(c)
				if s.glueMode {
					// Before the asserting literal is assigned again:
					// its level is still the conflict's.
					glue = s.glueOf(learnt)
					s.setGlueWord(c, glue, 1)
				} else {
					s.bumpClause(c)
				}
				s.enqueue(learnt[0], c)
			}
			if s.glueMode {
				s.averageGlue(glue)
				s.varInc /= s.glueDecay()
			} else {
				s.varInc /= varDecay
			}
			s.claInc /= claDecay
			if s.adjustLeft--; s.adjustLeft == 0 {
				s.adjustConfl *= 1.5
				s.adjustLeft = int(s.adjustConfl)
				s.maxLearnts *= 1.1
			}
			if s.conflicts == s.stopAt {
				return Unknown, true // the conflict limit
			}
			if done != nil && conflicts%ctxCheckPeriod == 0 {
				select {
				case <-done:
					return Unknown, true
				default:
				}
			}
			continue
		}
		if s.glueMode {
			if s.restartDue() {
				s.sinceRestart = 0
				s.restarts++
				s.cancelUntil(0)
				return Unknown, false
			}
			if s.reduceDue() {
				s.reduceGlue()
			}
		} else {
			if conflicts >= budget {
				s.restarts++
				s.cancelUntil(0)
				return Unknown, false
			}
			if s.learntsDue() {
				s.reduceDB()
			}
		}
		next := int32(-1)
		for s.decisionLevel() < len(as) {
			p := as[s.decisionLevel()]
			if v := s.value(p); v == 1 {
				s.trailLim = append(s.trailLim, len(s.trail)) // satisfied already
				continue
			} else if v == -1 {
				if s.proof != nil {
					s.proofFinal(p)
				}
				return Unsatisfiable, false // refuted under the assumptions
			}
			next = p
			break
		}
		if next == -1 {
			for !s.order.empty() {
				v := s.order.pop()
				if s.vals[2*v] == 0 {
					next = 2 * v
					if !s.phase[v] {
						next++
					}
					break
				}
			}
			if next == -1 {
				s.model = s.model[:0]
				for v := range s.numVars() {
					s.model = append(s.model, s.vals[2*v] == 1)
				}
				return Satisfiable, false
			}
		}
		s.decisions++
		s.trailLim = append(s.trailLim, len(s.trail))
		s.enqueue(next, noReason)
	}
}

// SetPhase makes l the value the search tries first for its variable,
// until a conflict or a model saves another (phase saving): a known
// good assignment given this way is where the search starts.
func (s *CDCL) SetPhase(l Lit) {
	if l == 0 {
		return
	}
	s.grow(l.Var())
	s.phase[l.Var()-1] = l.Sign()
}

// SetConflictLimit makes every later Solve stop with Unknown after n
// conflicts of its own (n <= 0: no limit, the default). Reset keeps the
// limit.
func (s *CDCL) SetConflictLimit(n int64) { s.limit = max(n, 0) }

// Conflicts is the number of conflicts met so far, over all solves.
func (s *CDCL) Conflicts() int64 { return s.conflicts }

// Value is the value of l in the last model (false for a variable the
// solver never saw).
func (s *CDCL) Value(l Lit) bool {
	v := l.Var() - 1
	if v < 0 || v >= len(s.model) {
		return false
	}
	return s.model[v] == (l > 0)
}

// SetRestartUnit sets the conflicts per unit of the Luby restart
// sequence (n <= 0: the default, 300). Reset keeps it.
func (s *CDCL) SetRestartUnit(n int) { s.restartUnit = max(n, 0) }
