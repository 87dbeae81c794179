package drat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// step is one step of a DRAT proof: a clause added or deleted.
type step struct {
	del  bool
	lits []int32 // DIMACS literals
	// at is where the step starts: the line (text) or the byte offset
	// (binary), for messages.
	at int64
}

// reader reads the steps of a DRAT proof, text or binary.
type reader struct {
	r      *bufio.Reader
	name   string
	binary bool
	line   int64 // text: the current line
	off    int64 // binary: the offset of the next byte
	vars   int   // the formula's variables: a proof may name no other
	buf    []int32
}

func newReader(r io.Reader, name string, vars int) (*reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(1 << 12)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &reader{r: br, name: name, binary: isBinary(head), line: 1, vars: vars}, nil
}

// isBinary tells the binary format from text by the proof's start: a
// binary step ends with a zero byte, which text never holds, and a
// binary addition starts with 'a', which text never does.
func isBinary(head []byte) bool {
	if len(head) > 0 && head[0] == 'a' {
		return true
	}
	return bytes.IndexByte(head, 0) >= 0
}

// next reads the next step; io.EOF at the end of the proof.
func (d *reader) next(st *step) error {
	if d.binary {
		return d.nextBinary(st)
	}
	return d.nextText(st)
}

func (d *reader) errorf(at int64, format string, a ...any) error {
	where := fmt.Sprintf("line %d", at)
	if d.binary {
		where = fmt.Sprintf("byte %d", at)
	}
	return &Error{File: d.name, Where: where, Reason: fmt.Sprintf(format, a...)}
}

func (d *reader) nextBinary(st *step) error {
	st.at = d.off
	c, err := d.r.ReadByte()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	d.off++
	switch c {
	case 'a':
		st.del = false
	case 'd':
		st.del = true
	default:
		return d.errorf(st.at, "a binary step starts with 'a' or 'd', not byte %d", c)
	}
	d.buf = d.buf[:0]
	for {
		var u uint64
		for shift := uint(0); ; shift += 7 {
			b, err := d.r.ReadByte()
			if err != nil {
				return d.errorf(st.at, "the step is cut short (no terminating 0)")
			}
			d.off++
			if shift > 35 {
				return d.errorf(st.at, "a literal's number is too long")
			}
			u |= uint64(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		if u == 0 {
			break
		}
		v := u >> 1
		if v == 0 {
			return d.errorf(st.at, "literal code %d is out of range", u)
		}
		if v > uint64(d.vars) {
			return d.errorf(st.at, "variable %d beyond the formula's %d", v, d.vars)
		}
		l := int32(v)
		if u&1 == 1 {
			l = -l
		}
		d.buf = append(d.buf, l)
	}
	st.lits = d.buf
	return nil
}

func (d *reader) nextText(st *step) error {
	d.buf = d.buf[:0]
	st.del = false
	started := false
	for {
		c, err := d.r.ReadByte()
		if err == io.EOF {
			if started {
				return d.errorf(st.at, "the last step has no terminating 0")
			}
			return io.EOF
		}
		if err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		switch {
		case c == '\n':
			d.line++
		case c == ' ' || c == '\t' || c == '\r':
		case c == 'c' && !started:
			// A comment: skip the line.
			for {
				_, err := d.r.ReadSlice('\n')
				if err == nil {
					d.line++
					break
				}
				if err == io.EOF {
					break
				}
				if !errors.Is(err, bufio.ErrBufferFull) {
					return fmt.Errorf("%s: %w", d.name, err)
				}
			}
		case c == 'd' && !started:
			st.del, started, st.at = true, true, d.line
		case c == '-' || (c >= '0' && c <= '9'):
			if !started {
				started, st.at = true, d.line
			}
			neg := c == '-'
			var v int64
			digits := 0
			if !neg {
				v, digits = int64(c-'0'), 1
			}
			for {
				b, err := d.r.ReadByte()
				if err != nil && err != io.EOF {
					return fmt.Errorf("%s: %w", d.name, err)
				}
				if err == io.EOF || b < '0' || b > '9' {
					if err == nil {
						d.r.UnreadByte()
					}
					break
				}
				v = v*10 + int64(b-'0')
				digits++
				if v > int64(d.vars) {
					return d.errorf(d.line, "a variable beyond the formula's %d", d.vars)
				}
			}
			if digits == 0 {
				return d.errorf(d.line, "a lone '-' is not a literal")
			}
			if v > int64(d.vars) {
				return d.errorf(d.line, "variable %d beyond the formula's %d", v, d.vars)
			}
			if v == 0 {
				st.lits = d.buf
				return nil
			}
			l := int32(v)
			if neg {
				l = -l
			}
			d.buf = append(d.buf, l)
		default:
			return d.errorf(d.line, "unexpected character %q in a text DRAT proof", c)
		}
	}
}
