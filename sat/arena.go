package sat

import (
	"math"
	"runtime"
)

// Clauses live in an arena of int32: at reference c, the header
// (number of literals and flags), the literals over internal numbering
// (2v true, 2v+1 false for variable v counted from 0), and for a learnt
// clause its activity (float32 bits) after the literals: problem
// clauses, most of the arena, carry no activity word. A new watch is
// searched from the third literal on: remembering where the last search
// stopped (Gent's circular search) would cost one more header word per
// clause, more than it saves on these formulas. For a clause that is the reason of an assignment (3+ literals), its
// first literal is the assigned one.
//
// The arena is a list of chunks, never moved once made: clause
// reference c is word c&chunkMask of chunk c>>chunkBits, and a clause
// lies in one chunk (a clause longer than chunkWords has a chunk of its
// own, indexed by its first word). A new chunk doubles the arena up to
// chunkWords. Chunks are never copied: a flat arena grown by doubling
// would copy itself at every growth and leave the old copy to the
// collector, page faults that dominate short runs.
//
// While a proof is logged (StartProof), every clause made carries one
// more word, its last: its proof ID (hdrProof set in the header). A
// solve without a proof never sets the flag, and its clauses have no
// such word.
const (
	chunkBits      = 16
	chunkWords     = 1 << chunkBits
	chunkMask      = chunkWords - 1
	firstChunk     = 1 << 10
	maxChunks      = 1 << (31 - chunkBits)
	hdrLearnt      = 1 << 30
	hdrGone        = 1 << 29
	hdrProof       = 1 << 28
	hdrSize        = hdrProof - 1
	noReason       = -1
	hdrWords       = 1
	forwardAddress = hdrWords // compaction: where a moved clause's new reference is kept
)

// clause returns the chunk holding clause c and c's offset in it.
func (s *CDCL) clause(c int32) ([]int32, int32) { return s.chunks[c>>chunkBits], c & chunkMask }

func (s *CDCL) header(c int32) int32 {
	ch, o := s.clause(c)
	return ch[o]
}

func (s *CDCL) lits(c int32) []int32 {
	ch, o := s.clause(c)
	n := ch[o] & hdrSize
	return ch[o+hdrWords : o+hdrWords+n : o+hdrWords+n]
}

func (s *CDCL) learnt(c int32) bool { return s.header(c)&hdrLearnt != 0 }

// extra is the word after a learnt clause's literals: its activity
// (float32 bits), or in the glue mode its glue and use count.
func (s *CDCL) extra(c int32) int32 {
	ch, o := s.clause(c)
	return ch[o+hdrWords+ch[o]&hdrSize]
}

func (s *CDCL) setExtra(c, w int32) {
	ch, o := s.clause(c)
	ch[o+hdrWords+ch[o]&hdrSize] = w
}

func (s *CDCL) act(c int32) float32 { return math.Float32frombits(uint32(s.extra(c))) }

func (s *CDCL) setAct(c int32, a float32) { s.setExtra(c, int32(math.Float32bits(a))) }

// words is the number of arena words of clause c that the reductions
// and compactions count: all but a proof ID's, so that a solve that logs
// a proof reduces and compacts when one without does, and searches
// alike.
func (s *CDCL) words(c int32) int { return int(counted(s.header(c))) }

// counted is the number of words a clause with header h counts for.
func counted(h int32) int32 {
	n := wordsOf(h)
	if h&hdrProof != 0 {
		n--
	}
	return n
}

// wordsOf is the number of arena words of a clause with header h.
func wordsOf(h int32) int32 {
	n := hdrWords + h&hdrSize
	if h&hdrLearnt != 0 {
		n++
	}
	if h&hdrProof != 0 {
		n++
	}
	return n
}

func (s *CDCL) newClause(ls []int32, learnt bool) int32 {
	h := int32(len(ls))
	need := hdrWords + len(ls)
	if learnt {
		h |= hdrLearnt
		need++
	}
	if s.proof != nil {
		h |= hdrProof
		need++
	}
	c, w := s.alloc(need)
	w[0] = h
	copy(w[hdrWords:], ls)
	if learnt {
		w[hdrWords+len(ls)] = 0
	}
	if s.proof != nil {
		w[need-1] = s.proof.id
		s.arenaWords-- // not counted (see words)
	}
	return c
}

// reserve returns s with room for n more elements, doubling the capacity
// when it must grow: append alone grows large slices by a quarter, and a
// list of megabytes filled a clause at a time (a CNF's literals) then
// spends more time being copied than used.
//
// A large copy is made in chunks with a yield between them. One memmove of
// megabytes into fresh pages cannot be preempted, and a garbage collection
// that starts meanwhile must wait for it to scan the stack: its idle worker
// spins on the other core and signals this thread every few microseconds,
// which makes each page fault several times dearer (figures in
// docs/benchmarks.md, "Figures behind constants and defaults").
func reserve[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	t := make([]T, len(s), max(len(s)+n, 2*cap(s), 1024))
	for i := 0; i < len(s); i += copyChunk {
		if i > 0 {
			runtime.Gosched()
		}
		copy(t[i:min(i+copyChunk, len(s))], s[i:])
	}
	return t
}

// copyChunk is the number of elements reserve copies between yields.
const copyChunk = 1 << 12

// alloc takes need words at the end of the arena and returns their
// reference and the words, to be filled (a reused chunk holds old ones).
func (s *CDCL) alloc(need int) (int32, []int32) {
	j := len(s.chunks) - 1
	if j < 0 || len(s.chunks[j])+need > cap(s.chunks[j]) {
		j = s.newChunk(need)
	}
	ch := s.chunks[j]
	n := len(ch)
	s.chunks[j] = ch[:n+need]
	s.arenaWords += need
	return int32(j<<chunkBits | n), ch[n : n+need : n+need]
}

// newChunk starts a chunk with room for need words (an emptied one if
// one is large enough) and returns its index.
func (s *CDCL) newChunk(need int) int {
	j := len(s.chunks)
	if j == maxChunks {
		panic("sat: the clause arena is full (8 GB of clauses)")
	}
	size := max(need, min(chunkWords, max(firstChunk, s.arenaWords)))
	best := -1
	for i, f := range s.free {
		if cap(f) >= need && (best < 0 || cap(f) > cap(s.free[best])) {
			best = i
		}
	}
	var ch []int32
	if best >= 0 {
		ch = s.free[best][:0]
		last := len(s.free) - 1
		s.free[best] = s.free[last]
		s.free[last] = nil
		s.free = s.free[:last]
	} else {
		ch = make([]int32, 0, size)
	}
	s.chunks = append(s.chunks, ch)
	return j
}
