// Package drat turns a DRAT proof of unsatisfiability into an LRAT
// proof that package lrat (and a verified checker such as cake_lpr)
// checks.
//
// SAT solvers such as CaDiCaL, Kissat and Glucose write DRAT proofs: the
// clauses they derive and delete, in text or binary form, without saying
// why each one follows. Elaborate replays such a proof forward against
// its formula. Every added clause (lemma) must follow from the clauses
// present by reverse unit propagation (RUP): assigning the negation of
// the lemma and propagating must reach a conflict, and the clauses that
// propagation used, in the order it used them, are the lemma's LRAT
// hints. Once the clauses present propagate to a conflict with nothing
// assigned, the empty clause follows and the proof is complete. The LRAT
// proof written holds only the lemmas the empty clause depends on, each
// deleted after its last use.
//
// Elaboration trusts nothing it is given: a lemma that does not follow
// by unit propagation is refused (*Error), naming its place in the
// proof. RAT lemmas, which some solvers write for inprocessing steps
// other than learning, are not supported and are refused the same way.
// The LRAT proof is then an independent check of the result: a fault in
// elaboration cannot make package lrat accept a proof that is wrong.
//
// Deleting a clause that propagates a literal with nothing assigned is
// ignored (drat-trim does the same by default): the clause is implied by
// the formula, so keeping it is sound, and the top-level assignment it
// supports stays as it is. A deletion of a clause that is not present is
// ignored too. Stats counts both.
package drat

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/odtkit/odtkit/internal/memcap"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Formula is the formula a proof refutes: its clauses have IDs
// 1..Inputs(). A *lrat.Checker that has read a DIMACS file is one.
type Formula interface {
	Vars() int
	Inputs() int64
	Clause(id int64) ([]int, bool)
}

// Stats describes an elaboration.
type Stats struct {
	// Binary: the proof was in the binary DRAT format.
	Binary bool
	// Added and Deleted count the proof's steps read (up to the one that
	// completes the refutation).
	Added, Deleted int64
	// Ignored counts the deletions not carried out: of a clause that
	// propagates a literal at the top level, or of one not present.
	Ignored int64
	// Kept is the number of lemmas the LRAT proof holds (the empty
	// clause included), Hints the number of hints it gives them.
	Kept, Hints int64
	// Compactions counts the times the deleted clauses' literals were
	// dropped from memory.
	Compactions int
}

// Error is a proof refused: the file, the step's place in it (a line
// of a text proof, a byte offset of a binary one) and why.
type Error struct {
	File, Where, Reason string
}

func (e *Error) Error() string { return e.File + ": " + e.Where + ": " + e.Reason }

// Unwrap makes every refusal an lrat.ErrRefused.
func (e *Error) Unwrap() error { return lrat.ErrRefused }

// ErrNoRefutation is wrapped by the error of a proof that ends before
// the empty clause follows.
var ErrNoRefutation = errors.New("the proof does not derive the empty clause")

// Options tunes Elaborate; the zero value is the default.
type Options struct {
	// TempDir holds the temporary file of the lemmas' literals and hints
	// ("" = the system's default).
	TempDir string
	// MaxBytes caps the memory the clauses held take, as estimated from
	// the arrays that hold them (0 = no cap): past it Elaborate stops
	// with an error wrapping the memory cap's (model.ErrMemoryLimit).
	MaxBytes int64
	// compactMin is the least number of deleted clauses' literals
	// memory is compacted at (0: 1<<20; -1: at every deletion, for
	// tests).
	compactMin int64
}

// Elaborate reads the DRAT proof (text or binary, told apart by its
// first bytes; name is used in errors) of f's unsatisfiability and
// writes an LRAT proof of it to w (text; f's clause i has ID i). It
// returns a *Error for a step refused, an error wrapping
// ErrNoRefutation for a proof that ends without the empty clause
// following, and the context's cause when ctx ends first.
func Elaborate(ctx context.Context, f Formula, proof io.Reader, name string, w io.Writer, opt Options) (Stats, error) {
	var st Stats
	rd, err := newReader(proof, name, f.Vars())
	if err != nil {
		return st, err
	}
	st.Binary = rd.binary
	e := newElab(f.Vars())
	e.compactMin = cmp.Or(opt.compactMin, 1<<20)
	tmp, err := os.CreateTemp(opt.TempDir, "odtkit-drat-lemmas-")
	if err != nil {
		return st, fmt.Errorf("drat: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	e.store = newLemmaStore(tmp)

	// The formula.
	n := f.Inputs()
	lits := make([]int32, 0, 64)
	for id := int64(1); id <= n; id++ {
		if id%4096 == 0 && ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		cl, ok := f.Clause(id)
		if !ok {
			return st, fmt.Errorf("drat: the formula has no clause %d", id)
		}
		lits = lits[:0]
		for _, l := range cl {
			lits = append(lits, int32(l))
		}
		e.addInput(lits)
	}
	e.inputs = int32(len(e.cls))
	e.store.base = e.inputs
	// capped checks the memory cap whenever the clauses' arrays grew.
	grown := -1
	capped := func() error {
		if opt.MaxBytes <= 0 || cap(e.lits)+cap(e.cls) == grown {
			return nil
		}
		grown = cap(e.lits) + cap(e.cls)
		if b := e.bytes(); b > opt.MaxBytes {
			return fmt.Errorf("%w: elaborating the DRAT proof %s holds %d clauses (about %.1f MiB) at lemma %d, past the cap of %.1f MiB", memcap.ErrLimit, name, len(e.cls), float64(b)/(1<<20), st.Added, float64(opt.MaxBytes)/(1<<20))
		}
		return nil
	}
	if err := capped(); err != nil {
		return st, err
	}

	// The proof, until the empty clause follows.
	var s step
	for e.conflict < 0 {
		err := rd.next(&s)
		if err == io.EOF {
			return st, fmt.Errorf("%s: %w (%d lemmas, %d deletions read)", name, ErrNoRefutation, st.Added, st.Deleted)
		}
		if err != nil {
			return st, err
		}
		if (st.Added+st.Deleted)%1024 == 0 && ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		if s.del {
			st.Deleted++
			if !e.delete(s.lits) {
				st.Ignored++
			}
			continue
		}
		st.Added++
		lemma, taut := e.normalize(s.lits)
		if taut {
			continue // holds in every assignment; nothing to add
		}
		if !e.rup(lemma) {
			return st, rd.errorf(s.at, "lemma %d %v does not follow by unit propagation from the clauses present (a RAT lemma, or a wrong proof)", st.Added, dimacs(lemma))
		}
		if err := e.addLemma(lemma); err != nil {
			return st, err
		}
		if err := capped(); err != nil {
			return st, err
		}
	}
	// The empty clause: the conflict at the top level.
	e.stamp++
	e.analyze(e.conflict)
	final := slices.Clone(e.hints)
	st.Compactions = e.compactions
	if err := e.store.flush(); err != nil {
		return st, err
	}
	return st, e.write(ctx, w, final, &st)
}

// dimacs is a lemma's literals in DIMACS form, for messages.
func dimacs(ls []int32) []int {
	out := make([]int, len(ls))
	for i, l := range ls {
		out[i] = toDIMACS(l)
	}
	return out
}

func toDIMACS(l int32) int {
	if l&1 == 1 {
		return -int(l >> 1)
	}
	return int(l >> 1)
}

// write writes the LRAT proof: the lemmas the empty clause depends on
// (found backwards from its hints), each clause deleted after its last
// use, then the empty clause with final as its hints.
func (e *elab) write(ctx context.Context, w io.Writer, final []int32, st *Stats) error {
	ncl := int32(len(e.cls))
	needed := make([]bool, ncl)
	// dels lists (lemma, clause): clause's last use is lemma; found
	// backwards, so lemma falls along the list.
	type del struct{ after, c int32 }
	var dels []del
	mark := func(user int32, hs []int32) {
		for _, h := range hs {
			if !needed[h] {
				needed[h] = true
				dels = append(dels, del{user, h})
			}
		}
	}
	mark(ncl, final)
	var ls, hs []int32
	var err error
	for c := ncl - 1; c >= e.inputs; c-- {
		if !needed[c] {
			continue
		}
		if (ncl-c)%4096 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if ls, hs, err = e.store.get(c, ls[:0], hs[:0]); err != nil {
			return err
		}
		mark(c, hs)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	k := len(dels) - 1
	writeDels := func(after int32) {
		if k < 0 || dels[k].after != after {
			return
		}
		b = append(b[:0], strconv.Itoa(int(after)+1)...)
		b = append(b, " d"...)
		for ; k >= 0 && dels[k].after == after; k-- {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(dels[k].c)+1, 10)
		}
		b = append(b, " 0\n"...)
		bw.Write(b)
	}
	step := func(id int32, lits, hints []int32) {
		b = strconv.AppendInt(b[:0], int64(id)+1, 10)
		for _, l := range lits {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(toDIMACS(l)), 10)
		}
		b = append(b, " 0"...)
		for _, h := range hints {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(h)+1, 10)
		}
		b = append(b, " 0\n"...)
		bw.Write(b)
		st.Kept++
		st.Hints += int64(len(hints))
	}
	for c := e.inputs; c < ncl; c++ {
		if !needed[c] {
			continue
		}
		if (c-e.inputs)%4096 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if ls, hs, err = e.store.get(c, ls[:0], hs[:0]); err != nil {
			return err
		}
		step(c, ls, hs)
		writeDels(c)
	}
	step(ncl, nil, final)
	return bw.Flush()
}

// lemmaStore keeps the literals and hints of every lemma in a temporary
// file (the elaboration needs them again only for the lemmas the
// refutation uses, and drops deleted clauses' literals from memory):
// per lemma, the number of literals and each literal, the number of
// hints and each hint's distance below the lemma, as varints.
type lemmaStore struct {
	f    *os.File
	w    *bufio.Writer
	base int32   // the clause index of the first lemma
	off  []int64 // where each lemma's hints start
	end  int64
	buf  []byte
}

func newLemmaStore(f *os.File) *lemmaStore {
	return &lemmaStore{f: f, w: bufio.NewWriterSize(f, 1<<16)}
}

// put appends the literals and hints of lemma c, the clause index after
// the last lemma's.
func (s *lemmaStore) put(c int32, lits, hints []int32) error {
	s.off = append(s.off, s.end)
	s.buf = binary.AppendUvarint(s.buf[:0], uint64(len(lits)))
	for _, l := range lits {
		s.buf = binary.AppendUvarint(s.buf, uint64(l))
	}
	s.buf = binary.AppendUvarint(s.buf, uint64(len(hints)))
	for _, h := range hints {
		s.buf = binary.AppendUvarint(s.buf, uint64(c-h))
	}
	n, err := s.w.Write(s.buf)
	s.end += int64(n)
	if err != nil {
		return fmt.Errorf("drat: the lemmas' temporary file: %w", err)
	}
	return nil
}

func (s *lemmaStore) flush() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("drat: the lemmas' temporary file: %w", err)
	}
	return nil
}

// get appends the literals of lemma c to ls and its hints to hs.
func (s *lemmaStore) get(c int32, ls, hs []int32) ([]int32, []int32, error) {
	k := int(c - s.base)
	end := s.end
	if k+1 < len(s.off) {
		end = s.off[k+1]
	}
	n := end - s.off[k]
	if int64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	if _, err := s.f.ReadAt(b, s.off[k]); err != nil {
		return ls, hs, fmt.Errorf("drat: the lemmas' temporary file: %w", err)
	}
	nl, i := binary.Uvarint(b)
	for range nl {
		l, m := binary.Uvarint(b[i:])
		i += m
		ls = append(ls, int32(l))
	}
	cnt, m := binary.Uvarint(b[i:])
	i += m
	for range cnt {
		d, m := binary.Uvarint(b[i:])
		i += m
		hs = append(hs, c-int32(d))
	}
	return ls, hs, nil
}
