package sat

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Proof logging. While a proof is logged (StartProof), the CDCL solver
// writes every clause it is given (an input clause), every clause it
// derives (with the IDs of the clauses a checker propagates, in order,
// to see it follow by reverse unit propagation: LRAT) and every clause
// it deletes to a log file. EndProof turns the log into two files a
// standard LRAT checker reads: the formula in DIMACS, its clauses
// numbered 1..m in file order, and the proof in text LRAT, whose clause
// IDs start at m+1. Inputs and derived clauses interleave in the log
// (an incremental solve adds clauses between calls); the files number
// them apart, inputs first.
//
// What is derived:
//   - each learnt clause, with the reasons of the literals its conflict
//     analysis and minimisation resolved away, in the order they were
//     implied, the conflict last;
//   - a unit clause for each literal fixed at decision level 0 by
//     propagation, from its reason and the units of its other literals;
//   - an input clause without its literals false at level 0;
//   - the empty clause, when the clauses alone are refuted;
//   - for each Unsatisfiable answer under assumptions, the clause that
//     refutes them (Refutation): the negation of the assumptions it
//     needed;
//   - lemmas (AddLemma), from the refutation before them.

// The log's records: a byte, then unsigned varints. A literal is written
// as 2·variable + 1 if negative (variables from 1), which is the
// solver's internal literal plus 2; lists end with 0.
const (
	recInput  = 'i' // literals 0: the next ID is an input clause
	recAdd    = 'a' // literals 0 hints 0: the next ID is derived
	recDelete = 'd' // IDs 0: the clauses are deleted
)

// proofLog is a CDCL solver's proof being logged.
type proofLog struct {
	path string
	f    *os.File
	w    *bufio.Writer
	err  error // the first write error or inconsistency
	id   int32 // ID of the last clause logged (IDs from 1)

	inputs, added, deletions int64
	unit                     []int32 // by variable: ID of the unit clause of its level-0 literal (0: none yet)
	unitsDone                int     // trail entries at level 0 whose units are logged
	mark                     []bool  // by variable: reached by the current chain
	marked                   []int32
	frames                   []proofFrame
	units, chain, hints      []int32
	used                     []int32 // decisions (assumptions) the current chain reached
	empty                    int32   // ID of the empty clause once derived
	final                    int32   // ID of the clause refuting the last solve's assumptions (0: none)
	finalLits                []int32
	lemma                    bool // the input being added is a lemma (AddLemma)
	contradictory            bool // the last refutation is of contradictory assumptions (no clause)
	maxVar                   int  // the largest variable of an input clause
	deleting                 []int32
	buf                      []byte

	// corruptAt, when positive, makes the corruptAt-th learnt clause of
	// three or more literals lose its last literal before it is logged
	// and learnt: a wrong clause, for the tests that the checker catches
	// a solver bug.
	corruptAt int64
	learnts   int64
}

// proofFrame is a step of the depth-first walk that orders a chain: the
// variable whose reason c is being expanded (-1: the chain's root
// clause) and the next literal of c to look at.
type proofFrame struct{ v, c, i int32 }

// ProofLogger is a Solver that logs an LRAT proof of its answers, as
// odtkit's CDCL does: the capability a Certifier and a descent that
// keeps its refutations look for. It is implemented in this package
// only (the log's format is the Certifier's).
type ProofLogger interface {
	Solver
	// StartProof starts logging the proof of everything the solver
	// does next to a new file at path; the solver holds no clause yet.
	StartProof(path string) error
	// Proving reports whether a proof is being logged.
	Proving() bool
	// AddLemma adds a clause that follows from the last refutation.
	AddLemma(lits ...Lit)
	// Refutation is the proof ID of the clause that refutes the last
	// Unsatisfiable call's assumptions, and that clause.
	Refutation() (id int64, clause []Lit, ok bool)
	// EndProofContext stops logging and writes the formula and the
	// proof.
	EndProofContext(ctx context.Context, formula, proof string) (*ProofFiles, error)
	// dropProof stops logging without writing.
	dropProof()
}

// The solver that logs proofs.
var _ ProofLogger = (*CDCL)(nil)

// StartProof starts logging an LRAT proof of everything the solver
// does next to a new file at path (see EndProof). The solver must hold
// no clause yet: a proof covers one formula from its first clause.
func (s *CDCL) StartProof(path string) error {
	if s.proof != nil {
		return errors.New("sat: a proof is being logged already")
	}
	if s.arenaWords > 0 || len(s.trail) > 0 || !s.ok {
		return errors.New("sat: a proof must start before the first clause")
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sat: proof log: %w", err)
	}
	p := &proofLog{path: path, f: f, w: bufio.NewWriterSize(f, 1<<16)}
	p.grow(s.numVars())
	s.proof = p
	return nil
}

// dropProof stops logging the proof, if any, and removes its log.
func (s *CDCL) dropProof() {
	if p := s.proof; p != nil {
		s.proof = nil
		p.f.Close()
		os.Remove(p.path)
	}
}

// Proving reports whether a proof is being logged.
func (s *CDCL) Proving() bool { return s.proof != nil }

func (p *proofLog) grow(n int) {
	for len(p.unit) < n {
		p.unit = append(p.unit, 0)
		p.mark = append(p.mark, false)
	}
}

func (p *proofLog) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// next takes the next clause ID.
func (p *proofLog) next() int32 {
	if p.id == math.MaxInt32 {
		p.fail(errors.New("sat: proof: more than 2^31 clauses"))
		return p.id
	}
	p.id++
	return p.id
}

func (p *proofLog) put(x uint64) { p.buf = binary.AppendUvarint(p.buf, x) }

func (p *proofLog) flushRecord() {
	if _, err := p.w.Write(p.buf); err != nil {
		p.fail(fmt.Errorf("sat: proof log: %w", err))
	}
	p.buf = p.buf[:0]
}

// input logs an input clause (DIMACS literals, 0s skipped), or with
// lemma set a clause derived from the last refutation.
func (p *proofLog) input(lits []Lit) {
	if p.lemma {
		p.hints = append(p.hints[:0], p.final)
		if p.final == 0 {
			p.fail(errors.New("sat: proof: a lemma with no refutation before it"))
		}
		ls := make([]int32, 0, len(lits))
		for _, l := range lits {
			if l != 0 {
				ls = append(ls, internal(l))
			}
		}
		p.add(ls, p.hints)
		return
	}
	p.next()
	p.inputs++
	p.buf = append(p.buf[:0], recInput)
	for _, l := range lits {
		if l != 0 {
			p.put(uint64(internal(l)) + 2)
			p.maxVar = max(p.maxVar, l.Var())
		}
	}
	p.put(0)
	p.flushRecord()
}

// add logs a derived clause (internal literals) and its hints.
func (p *proofLog) add(lits, hints []int32) {
	p.next()
	p.added++
	p.buf = append(p.buf[:0], recAdd)
	for _, l := range lits {
		p.put(uint64(l) + 2)
	}
	p.put(0)
	for _, h := range hints {
		p.put(uint64(h))
	}
	p.put(0)
	p.flushRecord()
}

// delete queues clause id's deletion, written by endDelete.
func (p *proofLog) delete(id int32) { p.deleting = append(p.deleting, id) }

func (p *proofLog) endDelete() {
	if len(p.deleting) == 0 {
		return
	}
	p.deletions += int64(len(p.deleting))
	p.buf = append(p.buf[:0], recDelete)
	for _, id := range p.deleting {
		p.put(uint64(id))
	}
	p.put(0)
	p.flushRecord()
	p.deleting = p.deleting[:0]
}

func (p *proofLog) setUnit(v, id int32) { p.unit[v] = id }

// id is clause c's proof ID (0 for a clause made before the proof).
func (s *CDCL) id(c int32) int32 {
	ch, o := s.clause(c)
	h := ch[o]
	if h&hdrProof == 0 {
		return 0
	}
	return ch[o+wordsOf(h)-1]
}

// logUnits derives the unit clause of every literal fixed at level 0
// whose unit is not logged yet, in trail order: the other literals of
// its reason are fixed before it.
func (s *CDCL) logUnits() {
	p := s.proof
	end := len(s.trail)
	if len(s.trailLim) > 0 {
		end = s.trailLim[0]
	}
	for ; p.unitsDone < end; p.unitsDone++ {
		l := s.trail[p.unitsDone]
		v := l >> 1
		if p.unit[v] != 0 {
			continue
		}
		c := s.reason[v]
		if c == noReason {
			p.fail(fmt.Errorf("sat: proof: variable %d fixed at level 0 with no reason and no unit clause", v+1))
			continue
		}
		p.hints = p.hints[:0]
		for _, q := range s.lits(c) {
			if q>>1 != v {
				p.hints = append(p.hints, p.unit[q>>1])
			}
		}
		p.hints = append(p.hints, s.id(c))
		p.add([]int32{l}, p.hints)
		p.unit[v] = p.id
	}
}

// proofChain orders the hints of a clause refuted by root: with the
// variables marked (the clause's own) taken as false, it walks the
// reasons of root's other literals depth first and lists each reason
// after those of its literals, the units of level-0 literals first and
// root last, in p.hints. Decisions reached, which are assumptions when
// the chain refutes them, are listed in p.used. The marks are cleared.
func (s *CDCL) proofChain(root int32) {
	p := s.proof
	p.units, p.chain, p.used = p.units[:0], p.chain[:0], p.used[:0]
	p.frames = append(p.frames[:0], proofFrame{v: -1, c: root})
	for len(p.frames) > 0 {
		top := &p.frames[len(p.frames)-1]
		ls := s.lits(top.c)
		if int(top.i) == len(ls) {
			if top.v >= 0 {
				p.chain = append(p.chain, s.id(top.c))
			}
			p.frames = p.frames[:len(p.frames)-1]
			continue
		}
		u := ls[top.i] >> 1
		top.i++
		if u == top.v || p.mark[u] {
			continue
		}
		p.markVar(u)
		switch {
		case s.level[u] == 0:
			if p.unit[u] == 0 {
				p.fail(fmt.Errorf("sat: proof: no unit clause for variable %d fixed at level 0", u+1))
			}
			p.units = append(p.units, p.unit[u])
		case s.reason[u] == noReason:
			p.used = append(p.used, u)
		default:
			p.frames = append(p.frames, proofFrame{v: u, c: s.reason[u]})
		}
	}
	p.hints = append(append(append(p.hints[:0], p.units...), p.chain...), s.id(root))
	for _, v := range p.marked {
		p.mark[v] = false
	}
	p.marked = p.marked[:0]
}

func (p *proofLog) markVar(v int32) {
	p.mark[v] = true
	p.marked = append(p.marked, v)
}

// proofLearnt logs learnt clause ls (internal literals), derived from
// conflict confl, and returns the clause to learn (ls itself, but for
// the corruptAt test hook).
func (s *CDCL) proofLearnt(ls []int32, confl int32) []int32 {
	p := s.proof
	s.logUnits()
	for _, l := range ls {
		p.markVar(l >> 1)
	}
	s.proofChain(confl)
	if len(p.used) > 0 {
		p.fail(fmt.Errorf("sat: proof: a learnt clause's chain reaches decision variable %d", p.used[0]+1))
	}
	p.learnts++
	if p.corruptAt > 0 && len(ls) >= 3 && p.learnts >= p.corruptAt {
		p.corruptAt = 0
		ls = ls[:len(ls)-1]
	}
	p.add(ls, p.hints)
	return ls
}

// proofEmpty derives the empty clause from conflict confl at level 0.
func (s *CDCL) proofEmpty(confl int32) {
	p := s.proof
	s.logUnits()
	s.proofChain(confl)
	p.add(nil, p.hints)
	p.refuted()
}

// refuted records that the clause just logged is the empty clause.
func (p *proofLog) refuted() {
	p.empty, p.final = p.id, p.id
	p.finalLits = p.finalLits[:0]
}

// proofFinal derives the clause refuting the assumptions when
// assumption a is found false: the negation of a and of the
// assumptions its falsity follows from.
func (s *CDCL) proofFinal(a int32) {
	p := s.proof
	s.logUnits()
	v := a >> 1
	p.finalLits = append(p.finalLits[:0], a^1)
	switch {
	case s.level[v] == 0:
		p.hints = append(p.hints[:0], p.unit[v])
	case s.reason[v] == noReason:
		// ¬a was assumed before a: the assumptions refute themselves,
		// and no clause is derived (a ∨ ¬a is no lemma a checker takes).
		p.finalLits = append(p.finalLits, a)
		p.final = 0
		p.contradictory = true
		return
	default:
		p.markVar(v)
		s.proofChain(s.reason[v])
		for _, u := range p.used {
			t := 2 * u
			if s.vals[t] != 1 {
				t++
			}
			p.finalLits = append(p.finalLits, t^1)
		}
	}
	p.add(p.finalLits, p.hints)
	p.final = p.id
	p.contradictory = false
}

// proofShorten derives input clause lits without its literals false at
// level 0 (kept, internal literals).
func (s *CDCL) proofShorten(lits []Lit, kept []int32) {
	p := s.proof
	in := p.id
	s.logUnits()
	p.hints = p.hints[:0]
	for _, l := range lits {
		if l == 0 {
			continue
		}
		v := internal(l) >> 1
		if s.level[v] == 0 && s.value(internal(l)) == -1 && !p.mark[v] {
			p.markVar(v)
			p.hints = append(p.hints, p.unit[v])
		}
	}
	for _, v := range p.marked {
		p.mark[v] = false
	}
	p.marked = p.marked[:0]
	p.hints = append(p.hints, in)
	p.add(kept, p.hints)
	p.delete(in)
	p.endDelete()
	if len(kept) == 0 {
		p.refuted()
	}
}

// AddLemma adds a clause that follows from the last Unsatisfiable
// answer's refutation (Refutation): a superset of the refuted
// assumptions' negation, such as the negation of all of them. Without a
// proof it is AddClause; with one, the clause is logged as derived from
// the refutation instead of as an input, so that a later refutation
// that uses it is checked down to the formula. A clause that does not
// follow makes the proof fail to check.
func (s *CDCL) AddLemma(lits ...Lit) {
	if s.proof == nil {
		s.AddClause(lits...)
		return
	}
	for _, l := range lits {
		if l != 0 && slices.Contains(lits, -l) {
			return // a tautology: true in every model, nothing to add
		}
	}
	s.proof.lemma = true
	s.AddClause(lits...)
	s.proof.lemma = false
}

// Refutation is, after an Unsatisfiable answer while a proof is logged,
// the proof ID of the clause that refutes the call's assumptions and
// that clause (DIMACS literals; empty when the clauses alone are
// refuted). Every literal of the clause negates an assumption. ok is
// false when no proof is logged or the last answer was not
// Unsatisfiable. Contradictory assumptions (a literal and its negation)
// refute themselves: the ID is then 0 and no clause is derived. The ID is the log's; ProofFiles.ID gives the file's.
func (s *CDCL) Refutation() (id int64, clause []Lit, ok bool) {
	if s.proof == nil || s.proof.final == 0 && !s.proof.contradictory {
		return 0, nil, false
	}
	for _, l := range s.proof.finalLits {
		clause = append(clause, external(l))
	}
	return int64(s.proof.final), clause, true
}

// external is the DIMACS literal of internal literal l.
func external(l int32) Lit {
	v := Lit(l>>1) + 1
	if l&1 != 0 {
		return -v
	}
	return v
}

// ProofFiles describes the two files of a proof (EndProof).
type ProofFiles struct {
	// Formula is the DIMACS file of the input clauses, Proof the LRAT
	// file of the derived clauses and deletions.
	Formula, Proof string
	// FormulaBytes and ProofBytes are their sizes; Inputs the clauses
	// of the formula; Steps the lines of the proof (additions and
	// deletions), Added and Deletions the clauses added and deleted.
	FormulaBytes, ProofBytes        int64
	Inputs, Steps, Added, Deletions int64
	ids                             []int64
	// identity: the log's IDs are the file's (an External solver's).
	identity bool
}

// ID is the file's clause ID of a log ID (as Refutation gives).
func (f *ProofFiles) ID(logID int64) int64 {
	if f.identity {
		return logID
	}
	if logID <= 0 || logID >= int64(len(f.ids)) {
		return 0
	}
	return f.ids[logID]
}

// EndProof stops logging and writes the proof: the formula (every input
// clause, in the order given) as DIMACS to formula, the derivations as
// text LRAT to proof, clause IDs renumbered so that input clause i of
// the formula file has ID i and derived ones follow. The log file is
// removed. The solver goes on without a proof.
func (s *CDCL) EndProof(formula, proof string) (*ProofFiles, error) {
	return s.EndProofContext(context.Background(), formula, proof)
}

// EndProofContext is EndProof that stops writing, with the context's
// cause, soon after ctx ends (the files are then incomplete).
func (s *CDCL) EndProofContext(ctx context.Context, formula, proof string) (*ProofFiles, error) {
	p := s.proof
	if p == nil {
		return nil, errors.New("sat: no proof is being logged")
	}
	s.proof = nil
	defer os.Remove(p.path)
	defer p.f.Close()
	if err := p.w.Flush(); err != nil {
		p.fail(fmt.Errorf("sat: proof log: %w", err))
	}
	if p.err != nil {
		return nil, p.err
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("sat: proof log: %w", err)
	}
	out := &ProofFiles{Formula: formula, Proof: proof, Inputs: p.inputs, Added: p.added, Deletions: p.deletions}
	err := writeProof(ctx, bufio.NewReaderSize(p.f, 1<<16), max(s.numVars(), p.maxVar), p, out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeProof reads the log and writes the two files.
func writeProof(ctx context.Context, r *bufio.Reader, vars int, p *proofLog, out *ProofFiles) (err error) {
	ff, err := os.Create(out.Formula)
	if err != nil {
		return fmt.Errorf("sat: proof: %w", err)
	}
	defer func() {
		if cerr := ff.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("sat: proof: %w", cerr)
		}
	}()
	pf, err := os.Create(out.Proof)
	if err != nil {
		return fmt.Errorf("sat: proof: %w", err)
	}
	defer func() {
		if cerr := pf.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("sat: proof: %w", cerr)
		}
	}()
	fw, pw := bufio.NewWriterSize(ff, 1<<16), bufio.NewWriterSize(pf, 1<<16)
	fmt.Fprintf(fw, "c the formula of an LRAT proof written by odtkit: clause i of this file has ID i in %s\n", filepath.Base(out.Proof))
	fmt.Fprintf(fw, "p cnf %d %d\n", vars, p.inputs)
	ids := make([]int64, int(p.id)+1)
	m := p.inputs
	var logID, inputN, derived int64
	line := make([]byte, 0, 256)
	read := func() (uint64, error) {
		x, err := binary.ReadUvarint(r)
		if err != nil {
			return 0, fmt.Errorf("sat: proof log: %w", err)
		}
		return x, nil
	}
	// list writes the numbers up to the next 0, each by word, then the 0.
	list := func(word func(x uint64) error) error {
		for {
			x, err := read()
			if err != nil {
				return err
			}
			if x == 0 {
				line = append(line, '0')
				return nil
			}
			if err := word(x); err != nil {
				return err
			}
			line = append(line, ' ')
		}
	}
	lit := func(x uint64) error {
		if x&1 != 0 {
			line = append(line, '-')
		}
		line = strconv.AppendUint(line, x>>1, 10)
		return nil
	}
	ref := func(x uint64) error {
		if x >= uint64(len(ids)) || ids[x] == 0 {
			return fmt.Errorf("sat: proof log: clause %d used before it is made", x)
		}
		line = strconv.AppendInt(line, ids[x], 10)
		return nil
	}
	for records := 0; ; records++ {
		if records%4096 == 0 && ctx.Err() != nil {
			return fmt.Errorf("sat: proof: %w", context.Cause(ctx))
		}
		tag, err := r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("sat: proof log: %w", err)
		}
		line = line[:0]
		switch tag {
		case recInput:
			logID++
			inputN++
			ids[logID] = inputN
			if err := list(lit); err != nil {
				return err
			}
			line = append(line, '\n')
			if _, err := fw.Write(line); err != nil {
				return fmt.Errorf("sat: proof: %w", err)
			}
		case recAdd:
			logID++
			derived++
			id := m + derived
			line = strconv.AppendInt(line, id, 10)
			line = append(line, ' ')
			if err := list(lit); err != nil {
				return err
			}
			line = append(line, ' ')
			if err := list(ref); err != nil {
				return err
			}
			ids[logID] = id
			line = append(line, '\n')
			out.Steps++
		case recDelete:
			line = strconv.AppendInt(line, m+derived, 10)
			line = append(line, " d "...)
			if err := list(ref); err != nil {
				return err
			}
			line = append(line, '\n')
			out.Steps++
		default:
			return fmt.Errorf("sat: proof log: unknown record %q", tag)
		}
		if tag == recInput {
			continue
		}
		if _, err := pw.Write(line); err != nil {
			return fmt.Errorf("sat: proof: %w", err)
		}
		out.ProofBytes += int64(len(line))
	}
	if logID != int64(p.id) {
		return fmt.Errorf("sat: proof log: %d clauses, %d logged", logID, p.id)
	}
	if err := fw.Flush(); err != nil {
		return fmt.Errorf("sat: proof: %w", err)
	}
	if err := pw.Flush(); err != nil {
		return fmt.Errorf("sat: proof: %w", err)
	}
	if st, err := ff.Stat(); err == nil {
		out.FormulaBytes = st.Size()
	}
	out.ids = ids
	return nil
}
