package model

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// openInput opens a data file for reading under ctx. A named pipe (FIFO)
// blocks in open until a writer comes and in read until it writes; both
// waits end when ctx does (the error then wraps the context's cause), so
// that a time limit or an interrupt is honoured while reading one. A
// regular file opens and reads as usual.
func openInput(ctx context.Context, path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path) // blocks until a writer opens the pipe
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		// Become the writer the open waits for, so that it returns; then
		// close both ends.
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
			w.Close()
		}
		return nil, stopErr(ctx, path, 0)
	}
}

// ctxReader reads f until ctx ends: a pending read of a pipe (which the
// Go runtime polls) is woken by a past deadline, and the read then fails
// with errStopped. Reads of a regular file are not interrupted (they do
// not wait); the readers look at ctx between rows.
type ctxReader struct {
	f       *os.File
	stopped bool
}

var errStopped = errors.New("reading stopped")

func (r *ctxReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		r.stopped = true
		return n, errStopped
	}
	return n, err
}

// watch makes a pending read of f return once ctx ends (when f supports
// deadlines: pipes do); the returned stop ends the watch.
func (r *ctxReader) watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { r.f.SetReadDeadline(time.Unix(1, 0)) })
}

// compression names the compressed format data starts with ("" when it
// does not look compressed): the readers take plain text only, and the
// bytes of a compressed file would otherwise be reported as a malformed
// field.
func compression(br *bufio.Reader) string {
	b, _ := br.Peek(10)
	switch {
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return "gzip"
	case len(b) >= 10 && bytes.HasPrefix(b, []byte("BZh")) && b[3] >= '1' && b[3] <= '9' &&
		bytes.Equal(b[4:10], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}):
		return "bzip2"
	case bytes.HasPrefix(b, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return "xz"
	case bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd"
	case bytes.HasPrefix(b, []byte{'P', 'K', 0x03, 0x04}):
		return "zip"
	}
	return ""
}

// decompressHint is how to get plain text out of a compressed format.
var decompressHint = map[string]string{
	"gzip": "gunzip -k FILE", "bzip2": "bunzip2 -k FILE", "xz": "unxz -k FILE",
	"zstd": "unzstd FILE", "zip": "unzip FILE",
}
