//go:build unix

package model_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// A named pipe nobody writes to, or whose writer sends nothing, is read
// until the context ends: the error wraps the context's cause, soon.
func TestReadFileContextPipe(t *testing.T) {
	for _, writer := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "pipe.csv")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
		if writer {
			go func() {
				// A writer that opens the pipe, writes a header and waits.
				f, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				defer f.Close()
				f.WriteString("a,y\n")
				time.Sleep(3 * time.Second)
			}()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		_, err := model.ReadFileContext(ctx, p, model.ReadOptions{})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("writer %v: %v, want an error wrapping the deadline", writer, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("writer %v: returned after %v, want soon after the 300ms deadline", writer, took)
		}
	}
}

// A pipe whose writer sends the data and closes is read as a file.
func TestReadFileContextPipeData(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.csv")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("a,y\n1,x\n2,z\n")
		f.Close()
	}()
	d, err := model.ReadFileContext(context.Background(), p, model.ReadOptions{})
	if err != nil || d.Rows() != 2 {
		t.Fatalf("%v, %v; want 2 rows", d, err)
	}
}
