package proc

import (
	"errors"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// TestCaptureKeepsTheAnswer: written in pieces of every size, an output
// keeps its status lines, its last "o" line and its last "v" block, and
// drops the rest, however long its lines.
func TestCaptureKeepsTheAnswer(t *testing.T) {
	out := "c clasp\n" + strings.Repeat("y", 100000) + "\no 9\nv 1 2\nv 3\nc better\no 4\n  v -1 2\nv -3 0\ns OPTIMUM FOUND\n"
	want := "s OPTIMUM FOUND\no 4\nv -1 2\nv -3 0\n"
	for _, piece := range []int{1, 3, 7, 64, len(out)} {
		c := &Capture{Words: []string{"s"}, Last: []string{"o"}, Block: "v"}
		for s := out; s != ""; {
			n := min(piece, len(s))
			if _, err := c.Write([]byte(s[:n])); err != nil {
				t.Fatal(err)
			}
			s = s[n:]
		}
		if got := string(c.Bytes()); got != want {
			t.Errorf("pieces of %d: kept %q, want %q", piece, got, want)
		}
		if c.Written() != int64(len(out)) || !strings.HasPrefix(string(c.Start()), "c clasp\nyyy") {
			t.Errorf("pieces of %d: written %d, start %.20q", piece, c.Written(), c.Start())
		}
	}
}

// TestCaptureLimit: past its cap a capture fails with the memory limit's
// error and calls OnLimit once; garbage lines count nothing.
func TestCaptureLimit(t *testing.T) {
	calls := 0
	c := &Capture{Words: []string{"s"}, Block: "v", Limit: 100, OnLimit: func() { calls++ }}
	if _, err := c.Write([]byte(strings.Repeat("y\n", 10000))); err != nil {
		t.Fatalf("garbage counted against the cap: %v", err)
	}
	_, err := c.Write([]byte("v " + strings.Repeat("1 ", 100) + "\n"))
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, model.ErrMemoryLimit) || calls != 1 {
		t.Fatalf("past the cap: %v, OnLimit called %d times", err, calls)
	}
	if _, err := c.Write([]byte("v 1\n")); err == nil || calls != 1 {
		t.Errorf("after the cap: %v, OnLimit called %d times", err, calls)
	}
}

// TestTailAndHead keep the ends of a log.
func TestTailAndHead(t *testing.T) {
	tl, hd := &Tail{N: 5}, &Head{N: 5}
	for _, s := range []string{"abc", "defgh", "ij"} {
		tl.Write([]byte(s))
		hd.Write([]byte(s))
	}
	if tl.String() != "fghij" || string(hd.Bytes()) != "abcde" {
		t.Errorf("tail %q, head %q", tl.String(), hd.Bytes())
	}
}
