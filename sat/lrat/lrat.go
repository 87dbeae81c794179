// Package lrat checks LRAT proofs of unsatisfiability: a DIMACS formula
// and a proof that derives clauses from it, each with the IDs of the
// clauses that make it follow by reverse unit propagation (RUP), and
// deletes clauses that are no longer needed.
//
// The checker is written to be read: it has no watched literals and no
// cleverness. For each added clause it assigns the negation of the
// clause, then goes through the hints in order; each hint must be a live
// clause with every literal false but one, which is then assigned true,
// and the last hint must have every literal false (the conflict). Any
// other outcome refuses the step and names it: file, line, clause ID,
// hint and reason. Proofs with RAT steps (negative hints) are refused.
//
// The text format (one step per line; numbers separated by spaces):
//
//	ID L1 L2 ... 0 H1 H2 ... 0    add clause ID (literals, then hints)
//	ID d ID1 ID2 ... 0            delete clauses (the first ID is ignored)
//
// Input clauses have IDs 1..m in the order of the DIMACS file; each added
// ID must be larger than every ID before it. Lines starting with "c" are
// comments.
//
// A certificate directory (see Index) bundles formulas, proofs and what
// their refutations certify; CheckDir checks one.
package lrat

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ErrRefused wraps every error that refuses a formula, a proof or a
// certificate (as opposed to a file that cannot be read).
var ErrRefused = errors.New("refused")

// StepError says which step of a proof fails and why.
type StepError struct {
	File   string
	Line   int
	ID     int64 // the clause the step adds or deletes from (0: unknown)
	Reason string
}

func (e *StepError) Error() string {
	if e.ID > 0 {
		return fmt.Sprintf("%s:%d: clause %d: %s", e.File, e.Line, e.ID, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
}

func (e *StepError) Unwrap() error { return ErrRefused }

// Checker holds a formula and the clauses a proof has derived from it so
// far.
type Checker struct {
	vars   int
	inputs int64
	// clauses holds the clauses by position (nil: deleted); ids the ID
	// at each position, nil while every ID is its position (the IDs
	// have no gap), so that no array is ever sized by an ID.
	clauses [][]int32
	ids     []int64
	lastID  int64
	value   []int8 // by variable: 1 true, -1 false, 0 unassigned
	trail   []int  // the variables assigned by the current step
	// Added and Deleted count the proof's steps checked so far.
	Added, Deleted int64
}

// ReadDIMACS reads a DIMACS CNF formula (name is used in errors) and
// returns a checker holding its clauses as IDs 1..m.
func ReadDIMACS(r io.Reader, name string) (*Checker, error) {
	c := &Checker{clauses: [][]int32{nil}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), MaxLine)
	header := false
	var declared int64
	var open []int32
	line := 0
	fail := func(format string, a ...any) error {
		return &StepError{File: name, Line: line, Reason: fmt.Sprintf(format, a...)}
	}
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "c") {
			continue
		}
		if f[0] == "p" {
			if header || len(f) != 4 || f[1] != "cnf" {
				return nil, fail("a second or malformed problem line (want \"p cnf VARS CLAUSES\")")
			}
			v, err1 := strconv.Atoi(f[2])
			n, err2 := strconv.ParseInt(f[3], 10, 64)
			if err1 != nil || err2 != nil || v < 0 || n < 0 || v > 1<<30 {
				return nil, fail("bad problem line %q", sc.Text())
			}
			c.vars, declared, header = v, n, true
			continue
		}
		if !header {
			return nil, fail("a clause before the problem line")
		}
		for _, t := range f {
			x, err := strconv.Atoi(t)
			if err != nil {
				return nil, fail("%q is not a literal", t)
			}
			if x == 0 {
				if open == nil {
					open = []int32{} // the empty clause
				}
				c.clauses = append(c.clauses, open)
				open = nil
				continue
			}
			if x > c.vars || -x > c.vars {
				return nil, fail("literal %d beyond the %d variables declared", x, c.vars)
			}
			open = append(open, int32(x))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, scanErr(name, line, err)
	}
	if !header {
		return nil, fail("no problem line")
	}
	if open != nil {
		return nil, fail("the last clause has no terminating 0")
	}
	c.inputs = int64(len(c.clauses) - 1)
	if c.inputs != declared {
		return nil, fail("%d clauses, %d declared", c.inputs, declared)
	}
	c.lastID = c.inputs
	// The values are sized by the variables the clauses hold, not by the
	// header's count (a proof's literals beyond them grow it).
	top := 0
	for _, cl := range c.clauses {
		for _, l := range cl {
			top = max(top, int(l), -int(l))
		}
	}
	c.value = make([]int8, top+1)
	return c, nil
}

// Refuted reports whether the proof derived the empty clause (kept
// until the end), or the formula holds it.
func (c *Checker) Refuted() bool {
	for _, cl := range c.clauses {
		if cl != nil && len(cl) == 0 {
			return true
		}
	}
	return false
}

// EmptyClause is the ID of a live empty clause (the refutation), when
// the proof derived one or the formula holds one.
func (c *Checker) EmptyClause() (int64, bool) {
	for i, cl := range c.clauses {
		if cl != nil && len(cl) == 0 {
			if c.ids == nil {
				return int64(i), true
			}
			return c.ids[i], true
		}
	}
	return 0, false
}

// Inputs is the number of clauses of the formula.
func (c *Checker) Inputs() int64 { return c.inputs }

// Vars is the number of variables the formula declares.
func (c *Checker) Vars() int { return c.vars }

// Clause returns live clause id (an input or a derived clause not
// deleted).
func (c *Checker) Clause(id int64) ([]int, bool) {
	cl := c.get(id)
	if cl == nil {
		return nil, false
	}
	out := make([]int, len(cl))
	for i, l := range cl {
		out[i] = int(l)
	}
	return out, true
}

// pos is the position of clause id in c.clauses (-1: no such ID).
func (c *Checker) pos(id int64) int {
	if c.ids == nil {
		if id > 0 && id < int64(len(c.clauses)) {
			return int(id)
		}
		return -1
	}
	i, ok := slices.BinarySearch(c.ids, id)
	if !ok || id <= 0 {
		return -1
	}
	return i
}

// get is live clause id (an input or a derived clause not deleted; an
// empty clause is a non-nil empty slice), nil when there is none.
func (c *Checker) get(id int64) []int32 {
	if i := c.pos(id); i >= 0 {
		return c.clauses[i]
	}
	return nil
}

// store adds clause cl with ID id, larger than every ID before it.
func (c *Checker) store(id int64, cl []int32) {
	if c.ids == nil && id != int64(len(c.clauses)) {
		c.ids = make([]int64, len(c.clauses))
		for i := range c.ids {
			c.ids[i] = int64(i)
		}
	}
	if c.ids != nil {
		c.ids = append(c.ids, id)
	}
	c.clauses = append(c.clauses, cl)
}

// Check reads a text LRAT proof (name is used in errors) and checks
// every step. It returns a *StepError at the first step refused.
func (c *Checker) Check(ctx context.Context, r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), MaxLine)
	line := 0
	var st Step
	for sc.Scan() {
		line++
		if line%ctxLines == 0 && ctx.Err() != nil {
			return fmt.Errorf("%s: line %d: %w", name, line, context.Cause(ctx))
		}
		b := sc.Bytes()
		if k := firstWord(b); k < 0 || b[k] == 'c' {
			continue
		}
		fail := func(id int64, format string, a ...any) error {
			return &StepError{File: name, Line: line, ID: id, Reason: fmt.Sprintf(format, a...)}
		}
		if !fastStep(b, &st) {
			// Not a plain step: the slow parser names what is wrong.
			var err error
			if st, err = ParseStep(string(b)); err != nil {
				return fail(st.ID, "%v", err)
			}
		}
		id, lits, hints := st.ID, st.Lits, st.Hints
		if st.Delete {
			for _, d := range st.Hints {
				i := c.pos(int64(d))
				if i < 0 || c.clauses[i] == nil {
					return fail(id, "deletes clause %d, which does not exist", d)
				}
				c.clauses[i] = nil
				c.Deleted++
			}
			continue
		}
		if id <= c.lastID {
			return fail(id, "the ID is not larger than the last one (%d)", c.lastID)
		}
		for _, l := range lits {
			if l > c.vars || -l > c.vars {
				return fail(id, "literal %d beyond the formula's %d variables", l, c.vars)
			}
			if v := max(l, -l); v >= len(c.value) {
				c.value = append(c.value, make([]int8, v+1-len(c.value))...)
			}
		}
		if reason := c.rup(lits, hints); reason != "" {
			return fail(id, "%s", reason)
		}
		stored := make([]int32, len(lits)) // not nil, also when empty
		for i, l := range lits {
			stored[i] = int32(l)
		}
		c.store(id, stored)
		c.lastID = id
		c.Added++
	}
	if err := sc.Err(); err != nil {
		return scanErr(name, line+1, err)
	}
	return nil
}

// MaxLine is the longest line of a formula or proof read, in bytes
// (newline included): a longer one is refused before it is held whole.
const MaxLine = 16 << 20

// scanErr is the error of a scanner stopped at line: a line past
// MaxLine is refused (ErrRefused), any other error is the reader's.
func scanErr(name string, line int, err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return &StepError{File: name, Line: line, Reason: fmt.Sprintf("a line longer than %d bytes", MaxLine)}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Step is one line of a text LRAT proof: clause ID added with its
// literals and hints, or (Delete) the clauses listed in Hints deleted.
type Step struct {
	ID          int64
	Delete      bool
	Lits, Hints []int
}

// ParseStep reads a proof line that is not blank or a comment. The
// step's ID is set when the line's first word is one.
func ParseStep(line string) (Step, error) {
	f := strings.Fields(line)
	var st Step
	if len(f) == 0 {
		return st, errors.New("an empty line is not a step")
	}
	id, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil && strings.ContainsFunc(line, func(r rune) bool { return r < ' ' && r != '\t' || r == 0xfffd }) {
		return st, errors.New("binary LRAT is not read: write the proof as text (cadical: --lrat --no-binary)")
	}
	if err != nil || id <= 0 {
		return st, fmt.Errorf("%q is not a clause ID", f[0])
	}
	st.ID = id
	if len(f) > 1 && f[1] == "d" {
		ids, rest, err := numbers(f[2:])
		if err != nil || len(rest) != 0 {
			return st, errors.New("a deletion is \"ID d ID... 0\"")
		}
		st.Delete, st.Hints = true, ids
		return st, nil
	}
	var rest []string
	if st.Lits, rest, err = numbers(f[1:]); err != nil {
		return st, fmt.Errorf("literals: %w", err)
	}
	if st.Hints, rest, err = numbers(rest); err != nil {
		return st, fmt.Errorf("hints: %w", err)
	}
	if len(rest) != 0 {
		return st, errors.New("text after the hints' terminating 0")
	}
	return st, nil
}

// firstWord is the index of the first byte of b that is not a space or
// a tab (-1: none).
func firstWord(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return i
		}
	}
	return -1
}

// fastStep parses a plain step line (numbers and single spaces or tabs,
// "d" as the second word of a deletion) into st, reusing its slices. It
// reports false for anything else, which ParseStep then refuses or
// reads.
func fastStep(b []byte, st *Step) bool {
	i, n := 0, len(b)
	// word reads the next number: ok false at the end of the line or
	// on anything but an integer of at most 18 digits.
	word := func() (x int64, ok bool) {
		for i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
			i++
		}
		if i == n {
			return 0, false
		}
		neg := false
		if b[i] == '-' {
			neg = true
			i++
		}
		start := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			x = x*10 + int64(b[i]-'0')
			i++
		}
		if i == start || i-start > 18 || i < n && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' {
			return 0, false
		}
		if neg {
			x = -x
		}
		return x, true
	}
	id, ok := word()
	if !ok || id <= 0 {
		return false
	}
	st.ID, st.Lits, st.Hints, st.Delete = id, st.Lits[:0], st.Hints[:0], false
	for i < n && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i < n && b[i] == 'd' {
		i++
		if i < n && b[i] != ' ' && b[i] != '\t' {
			return false
		}
		st.Delete = true
	} else {
		for {
			x, ok := word()
			if !ok || x < math.MinInt32 || x > math.MaxInt32 {
				return false
			}
			if x == 0 {
				break
			}
			st.Lits = append(st.Lits, int(x))
		}
	}
	for {
		x, ok := word()
		if !ok || x < math.MinInt32 || x > math.MaxInt64/2 {
			return false
		}
		if x == 0 {
			break
		}
		st.Hints = append(st.Hints, int(x))
	}
	for ; i < n; i++ {
		if b[i] != ' ' && b[i] != '\t' && b[i] != '\r' {
			return false
		}
	}
	return true
}

// String is the step as a proof line.
func (st Step) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(st.ID, 10))
	if st.Delete {
		b.WriteString(" d")
	} else {
		for _, l := range st.Lits {
			b.WriteString(" " + strconv.Itoa(l))
		}
		b.WriteString(" 0")
	}
	for _, h := range st.Hints {
		b.WriteString(" " + strconv.Itoa(h))
	}
	b.WriteString(" 0")
	return b.String()
}

// ctxLines is the number of proof lines between two looks at the
// context.
const ctxLines = 1024

// numbers reads integers up to and including a 0 and returns them and
// the words after the 0.
func numbers(words []string) ([]int, []string, error) {
	var out []int
	for i, w := range words {
		x, err := strconv.Atoi(w)
		if err != nil {
			return nil, nil, fmt.Errorf("%q is not a number", w)
		}
		if x == 0 {
			return out, words[i+1:], nil
		}
		out = append(out, x)
	}
	return nil, nil, errors.New("no terminating 0")
}

// rup checks that clause lits follows from the hints by unit
// propagation and returns why not ("" when it does).
func (c *Checker) rup(lits, hints []int) string {
	defer c.unassign()
	for _, l := range lits {
		switch c.val(l) {
		case 1:
			return fmt.Sprintf("the clause holds %d and its negation (a tautology is no lemma)", l)
		case 0:
			c.assign(-l)
		}
	}
	for k, h := range hints {
		if h < 0 {
			return fmt.Sprintf("hint %d (number %d) is a RAT hint, which this checker does not take", h, k+1)
		}
		hc := c.get(int64(h))
		if hc == nil {
			return fmt.Sprintf("hint %d (number %d) is not a clause (never added, or deleted)", h, k+1)
		}
		unit, free := 0, 0
		for _, x := range hc {
			l := int(x)
			switch c.val(l) {
			case 1:
				return fmt.Sprintf("hint %d (number %d) is satisfied, not unit", h, k+1)
			case 0:
				if l != unit {
					free++
					unit = l
				}
			}
		}
		switch free {
		case 0:
			if k != len(hints)-1 {
				return fmt.Sprintf("hint %d (number %d) is the conflict, but %d hints follow it", h, k+1, len(hints)-1-k)
			}
			return ""
		case 1:
			c.assign(unit)
		default:
			return fmt.Sprintf("hint %d (number %d) is not unit: %d literals unassigned", h, k+1, free)
		}
	}
	return "the hints end without a conflict"
}

func (c *Checker) val(l int) int8 {
	if l > 0 {
		return c.value[l]
	}
	return -c.value[-l]
}

func (c *Checker) assign(l int) {
	v := l
	if l < 0 {
		v = -l
	}
	if l > 0 {
		c.value[v] = 1
	} else {
		c.value[v] = -1
	}
	c.trail = append(c.trail, v)
}

func (c *Checker) unassign() {
	for _, v := range c.trail {
		c.value[v] = 0
	}
	c.trail = c.trail[:0]
}

// CheckFiles reads the formula and checks the proof, and returns the
// checker holding the clauses at the proof's end.
func CheckFiles(ctx context.Context, formula, proof string) (*Checker, error) {
	c, err := ReadFormula(formula)
	if err != nil {
		return nil, err
	}
	if err := c.CheckFile(ctx, proof); err != nil {
		return nil, err
	}
	return c, nil
}

// ReadFormula reads a DIMACS file (a regular file: OpenRegular).
func ReadFormula(path string) (*Checker, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDIMACS(bufio.NewReaderSize(f, 1<<16), path)
}

// CheckFile checks the proof in file path (a regular file:
// OpenRegular) against the clauses of c.
func (c *Checker) CheckFile(ctx context.Context, path string) error {
	f, err := OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return c.Check(ctx, bufio.NewReaderSize(f, 1<<16), path)
}

// OpenRegular opens a file to read when it is a regular file (a
// symbolic link is followed): a named pipe, a device or a directory is
// refused before it is opened, so that no read blocks or never ends.
func OpenRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file (%v)", path, ErrRefused, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w: not a regular file", path, ErrRefused)
	}
	return f, nil
}
