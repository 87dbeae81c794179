package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/odtkit/odtkit/internal/memcap"
)

// ErrTooLarge is wrapped by the error of a solver whose output or answer
// file passes the cap on what is kept of it; it wraps
// model.ErrMemoryLimit (memcap.ErrLimit), so that a solve stops with status memory-limit.
var ErrTooLarge = fmt.Errorf("%w: a solver's output passed the memory cap", memcap.ErrLimit)

// Capture is the standard output of a solver, read as it is written and
// kept only in part: the lines an answer is read from (those whose first
// word is in Words), of the words in Last only the last line, and of the
// word Block only the last block (a Block line after a line of another
// word starts a new block: a solver that prints one model per
// improvement). Every other line is dropped as it streams by, so a
// solver's log or garbage costs no memory. Limit caps the bytes kept
// (0 = none): past it Write fails with an error wrapping ErrTooLarge and
// calls OnLimit (which stops the solver).
type Capture struct {
	Words   []string
	Last    []string
	Block   string
	Limit   int64
	OnLimit func()

	kept  map[string][]byte // per word of Last, its last line
	lines bytes.Buffer      // kept lines of the other words, in order
	block bytes.Buffer      // the current block
	head  []byte            // the start of the current line, until its first word is known
	word  string            // first word of the current line (once known)
	mode  int               // of the current line: 0 deciding, 1 keeping, 2 dropping
	prev  string            // first word of the last line kept or dropped
	total int64             // bytes written
	start []byte            // the first bytes written, for messages
	err   error
}

const (
	deciding = iota
	keeping
	dropping
)

// maxStart is how much of the output Start keeps.
const maxStart = 4096

// Start is the beginning of the output as written (every line), for
// messages about an output that is no answer.
func (c *Capture) Start() []byte { return c.start }

// maxWord is the longest first word Capture looks for; a line whose
// first maxWord bytes hold no blank is dropped.
const maxWord = 16

// Write keeps what the answer needs of p.
func (c *Capture) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n := len(p)
	c.total += int64(n)
	if room := maxStart - len(c.start); room > 0 {
		c.start = append(c.start, p[:min(room, len(p))]...)
	}
	for len(p) > 0 {
		switch c.mode {
		case deciding:
			if len(c.head) == 0 && (p[0] == ' ' || p[0] == '\t') {
				p = p[1:] // blanks before the first word
				continue
			}
			i := bytes.IndexAny(p, " \t\r\n")
			if i < 0 && len(c.head)+len(p) < maxWord {
				c.head = append(c.head, p...)
				p = nil
				continue
			}
			if i < 0 {
				i = len(p)
			}
			c.head = append(c.head, p[:i]...)
			p = p[i:]
			c.begin(string(bytes.TrimSpace(c.head)))
			c.head = c.head[:0]
		case keeping, dropping:
			i := bytes.IndexByte(p, '\n')
			end := len(p)
			if i >= 0 {
				end = i + 1
			}
			if c.mode == keeping {
				c.add(p[:end])
			}
			p = p[end:]
			if i >= 0 {
				c.mode = deciding
			}
		}
		if c.err != nil {
			return n, c.err
		}
	}
	return n, nil
}

// begin begins a line whose first word is w (its text so far).
func (c *Capture) begin(w string) {
	c.word = w
	keep := w == c.Block && w != ""
	for _, x := range c.Words {
		keep = keep || x == w
	}
	for _, x := range c.Last {
		if x == w {
			keep = true
			delete(c.kept, w)
		}
	}
	if w == c.Block && c.prev != w {
		c.block.Reset()
	}
	if w != "" {
		c.prev = w
	}
	c.mode = dropping
	if keep {
		c.mode = keeping
		c.add([]byte(w))
	}
}

// add keeps b as part of the current line.
func (c *Capture) add(b []byte) {
	switch {
	case c.word == c.Block:
		c.block.Write(b)
	case c.isLast(c.word):
		if c.kept == nil {
			c.kept = map[string][]byte{}
		}
		c.kept[c.word] = append(c.kept[c.word], b...)
	default:
		c.lines.Write(b)
	}
	if c.Limit > 0 && c.size() > c.Limit {
		c.err = fmt.Errorf("%w: it kept more than %.1f MiB of it (the answer lines alone)", ErrTooLarge, float64(c.Limit)/(1<<20))
		if c.OnLimit != nil {
			c.OnLimit()
		}
	}
}

func (c *Capture) isLast(w string) bool {
	for _, x := range c.Last {
		if x == w {
			return true
		}
	}
	return false
}

func (c *Capture) size() int64 {
	n := int64(c.lines.Len() + c.block.Len())
	for _, b := range c.kept {
		n += int64(len(b))
	}
	return n
}

// Err is the error of the first Write past the cap, if any.
func (c *Capture) Err() error { return c.err }

// Written is the number of bytes the solver wrote.
func (c *Capture) Written() int64 { return c.total }

// Bytes is what was kept: the kept lines in order, each Last word's last
// line, then the last block.
func (c *Capture) Bytes() []byte {
	var out bytes.Buffer
	out.Write(c.lines.Bytes())
	ensureNewline(&out)
	for _, w := range c.Last {
		out.Write(c.kept[w])
		ensureNewline(&out)
	}
	out.Write(c.block.Bytes())
	ensureNewline(&out)
	return out.Bytes()
}

func ensureNewline(b *bytes.Buffer) {
	if n := b.Len(); n > 0 && b.Bytes()[n-1] != '\n' {
		b.WriteByte('\n')
	}
}

// ReadFile reads a solver's answer file of at most limit bytes (0 = no
// cap); a larger file is an error wrapping ErrTooLarge, and nothing of
// it is read.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if limit > 0 && fi.Size() > limit {
		return nil, fmt.Errorf("%w: its answer file %s has %.1f MiB, above the cap of %.1f MiB", ErrTooLarge, path, float64(fi.Size())/(1<<20), float64(limit)/(1<<20))
	}
	var b bytes.Buffer
	b.Grow(int(fi.Size()) + 1)
	r := io.Reader(f)
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	if _, err := b.ReadFrom(r); err != nil {
		return nil, err
	}
	if limit > 0 && int64(b.Len()) > limit {
		return nil, fmt.Errorf("%w: its answer file %s grew past the cap of %.1f MiB", ErrTooLarge, path, float64(limit)/(1<<20))
	}
	return b.Bytes(), nil
}

// IsTooLarge reports whether err is a cap's error.
func IsTooLarge(err error) bool { return errors.Is(err, ErrTooLarge) }

// Head keeps the first N bytes written to it (a solver's standard error,
// for messages) and drops the rest.
type Head struct {
	N int
	b []byte
}

// Write keeps what fits in the first N bytes.
func (h *Head) Write(p []byte) (int, error) {
	if room := h.N - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Bytes is what was kept.
func (h *Head) Bytes() []byte { return h.b }

// Tail keeps the last N bytes written to it (a solver's log, whose end
// says why it stopped) and drops the rest.
type Tail struct {
	N int
	b []byte
}

// Write keeps the last N bytes.
func (t *Tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.N {
		t.b = append(t.b[:0], p[len(p)-t.N:]...)
		return n, nil
	}
	if over := len(t.b) + len(p) - t.N; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	t.b = append(t.b, p...)
	return n, nil
}

// String is what was kept.
func (t *Tail) String() string { return string(t.b) }

// WatchSize calls over once the file at path grows past limit bytes
// (checked every 50 ms until the returned stop is called; limit 0: no
// watch): a solver writing an answer file larger than the memory cap is
// stopped while it writes.
func WatchSize(path string, limit int64, over func()) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if fi, err := os.Stat(path); err == nil && fi.Size() > limit {
					over()
					return
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}
