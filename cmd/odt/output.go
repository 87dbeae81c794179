package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// outFile is the destination of a command's result: stdout (no path, or
// "-"), or a file written atomically. Opening it checks the destination
// before any work starts — a missing or unwritable directory is an error
// at once, not after a long solve — by creating the temporary file the
// result is later written to, in the destination's directory. commit
// writes the result there and renames it over the path, so that a reader
// sees the old file or the whole new one, never a part; discard (on an
// error or an interrupt) removes it. A path that exists and is not a
// regular file (/dev/null, a named pipe, a terminal) is written in place.
//
// The new file has the usual mode of a created file (0666 less the
// umask), or the mode of the file it replaces.
type outFile struct {
	path   string    // "" for stdout
	stdout io.Writer // the command's stdout
	direct bool      // path is not a regular file: written in place

	mu  sync.Mutex
	tmp *os.File // the temporary file until it is renamed or removed
}

// openOutput opens the destination path ("" or "-": stdout).
func openOutput(path string, stdout io.Writer) (*outFile, error) {
	o := &outFile{stdout: stdout}
	if path == "" || path == "-" {
		return o, nil
	}
	o.path = path
	mode := fs.FileMode(0o666) // less the umask, applied by the kernel
	keep := false
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return nil, &fs.PathError{Op: "output", Path: path, Err: errors.New("is a directory")}
	case err == nil && !st.Mode().IsRegular():
		// Opened now for writing, so that a refusal comes before the
		// work; a named pipe with no reader is not waited for here.
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil && !isNoReader(err) {
			return nil, err
		}
		if f != nil {
			f.Close()
		}
		o.direct = true
		return o, nil
	case err == nil:
		mode, keep = st.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &fs.PathError{Op: "output", Path: path, Err: fmt.Errorf("directory %s does not exist", dir)}
		}
		return nil, err
	} else if !st.IsDir() {
		return nil, &fs.PathError{Op: "output", Path: path, Err: fmt.Errorf("%s is not a directory", dir)}
	}
	f, err := createTemp(dir, "."+filepath.Base(path)+".tmp", mode)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "output", Path: path, Err: fmt.Errorf("cannot create a file in %s: %w", dir, err)}
	}
	if keep {
		// The umask applied at creation; the replaced file's mode is kept
		// as it was.
		if err := f.Chmod(mode); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	o.tmp = f
	return o, nil
}

// isNoReader reports the error of opening a named pipe for writing
// without waiting when it has no reader yet.
func isNoReader(err error) bool { return errors.Is(err, syscall.ENXIO) }

// createTemp creates a new file prefix+N in dir with mode perm (less the
// umask); unlike os.CreateTemp, which makes it 0600.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	seed := uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<32
	for range 1000 {
		seed = seed*6364136223846793005 + 1442695040888963407
		name := filepath.Join(dir, prefix+strconv.FormatUint(seed>>40, 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, prefix+"*"), Err: fs.ErrExist}
}

// commit writes the result with write and makes it the destination's
// content. A write error discards the temporary file and leaves an
// existing file as it was. Output to stdout is buffered, so that an error
// while printing prints nothing (streaming: see commitStream).
//
// A result that cannot be written to its file (a full disk, a rename
// refused) is not lost: it is printed to stdout instead, and the error
// (an outputFailure, exit 1) says so.
func (o *outFile) commit(write func(w io.Writer) error) error {
	if o.path == "" {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return err
		}
		_, err := o.stdout.Write(buf.Bytes())
		return err
	}
	err := o.commitStream(write)
	var of *outputFailure
	if !errors.As(err, &of) {
		return err // the result itself failed, or the output was discarded
	}
	var buf bytes.Buffer
	if werr := write(&buf); werr != nil {
		return err
	}
	if _, werr := o.stdout.Write(buf.Bytes()); werr != nil {
		return fmt.Errorf("%w; printing it to stdout failed too: %w", err, werr)
	}
	return fmt.Errorf("%w; the result is printed to stdout instead", err)
}

// outputFailure is an error writing a result that was made: a runtime
// failure (exit 1: a full disk, a rename refused), not bad input, though
// it wraps the *fs.PathError of the write.
type outputFailure struct {
	path string
	err  error
}

func (e *outputFailure) Error() string {
	return fmt.Sprintf("cannot write the result to %s: %v", e.path, e.err)
}

func (e *outputFailure) Unwrap() error { return e.err }

// commitStream is commit without buffering stdout (a formulation may be
// gigabytes).
func (o *outFile) commitStream(write func(w io.Writer) error) error {
	switch {
	case o.path == "":
		bw := bufio.NewWriterSize(o.stdout, 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	case o.direct:
		f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
		if err != nil {
			return &outputFailure{o.path, err}
		}
		fw := &failWriter{w: f}
		err = write(fw)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return fw.classify(o.path, err)
	}
	o.mu.Lock()
	f := o.tmp
	o.mu.Unlock()
	if f == nil {
		return fmt.Errorf("%s: the output was discarded", o.path)
	}
	fw := &failWriter{w: f}
	bw := bufio.NewWriterSize(fw, 1<<16)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = &outputFailure{o.path, cerr}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.tmp == nil {
		return fmt.Errorf("%s: the output was discarded", o.path)
	}
	if err == nil {
		if rerr := os.Rename(f.Name(), o.path); rerr != nil {
			err = &outputFailure{o.path, rerr}
		}
	}
	if err != nil {
		os.Remove(f.Name())
	}
	o.tmp = nil
	return fw.classify(o.path, err)
}

// failWriter remembers the first error of the file it writes to, so
// that an error of the write function can be told apart from a failure
// of the file (which is an outputFailure).
type failWriter struct {
	w   io.Writer
	err error
}

func (fw *failWriter) Write(p []byte) (int, error) {
	n, err := fw.w.Write(p)
	if err != nil && fw.err == nil {
		fw.err = err
	}
	return n, err
}

// classify turns err into an outputFailure when the file's own write
// failed (whatever the write function made of it).
func (fw *failWriter) classify(path string, err error) error {
	var of *outputFailure
	if err == nil || errors.As(err, &of) || fw.err == nil {
		return err
	}
	return &outputFailure{path, fw.err}
}

// discard removes the temporary file, if any is left; it may be called
// at any time, from any goroutine, more than once (the path's existing
// file is never touched).
func (o *outFile) discard() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
}

// writeResult writes a command's result to path ("" or "-": stdout);
// see outFile.
func writeResult(path string, stdout io.Writer, write func(w io.Writer) error) error {
	o, err := openOutput(path, stdout)
	if err != nil {
		return err
	}
	defer o.discard()
	return o.commit(write)
}
