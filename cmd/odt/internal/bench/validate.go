package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
)

// InvalidError says which backend, option or data file of a grid is
// bad, with the message of the solve that refused it. It wraps
// backend.ErrInvalid (and odtkit.ErrInvalid): bad usage, exit code 2.
type InvalidError struct {
	What string // e.g. `backend "dl58"` or `data file "x.csv"`
	Msg  string
}

func (e *InvalidError) Error() string { return "odt bench: " + e.What + ": " + e.Msg }

// Unwrap makes the error match backend.ErrInvalid and odtkit.ErrInvalid.
func (e *InvalidError) Unwrap() []error { return []error{backend.ErrInvalid, odtkit.ErrInvalid} }

// probeLimit bounds one check run.
const probeLimit = 60 * time.Second

// Validate checks a grid before its first run: every data file exists
// and is a regular file (else an *fs.PathError), every backend is
// accepted by `odt solve` on the smallest data file, and every other data
// file is accepted with the first backend (else an *InvalidError naming
// the backend or file). A check is `odt solve --check` (reads the data
// and checks the request without solving; a time limit would stop the
// reading of a large file before the backend is checked) with the
// arguments the cell's own run will have (the runner's Args and what
// Prepare gives: skeleton, alpha, split file): only a refusal (exit code
// 2) counts; other failures are left to the grid, which records them.
func Validate(ctx context.Context, rn *Runner, cells []Cell) error {
	if len(cells) == 0 {
		return nil
	}
	var files, backends []string
	depth := cells[0].Depth
	size := map[string]int64{}
	for _, c := range cells {
		if !slices.Contains(files, c.Dataset) {
			st, err := os.Stat(c.Dataset)
			if err != nil {
				return err
			}
			if !st.Mode().IsRegular() {
				return &fs.PathError{Op: "read", Path: c.Dataset, Err: errors.New("not a regular file")}
			}
			files = append(files, c.Dataset)
			size[c.Dataset] = st.Size()
		}
		if !slices.Contains(backends, c.Backend) {
			backends = append(backends, c.Backend)
		}
		depth = min(depth, c.Depth)
	}
	small := slices.MinFunc(files, func(a, b string) int { return int(min(max(size[a]-size[b], -1), 1)) })
	// pick is the first run of the grid on file with backend b, or
	// failing that (a shard need not hold every pair) the first that
	// matches other.
	pick := func(file, b string, other func(Cell) bool) Cell {
		i := slices.IndexFunc(cells, func(c Cell) bool { return c.Dataset == file && c.Backend == b })
		if i < 0 {
			i = slices.IndexFunc(cells, other)
		}
		c := cells[i]
		c.Depth = min(c.Depth, depth)
		return c
	}
	for _, b := range backends {
		c := pick(small, b, func(c Cell) bool { return c.Backend == b })
		if err := rn.probe(ctx, c); err != nil {
			return &InvalidError{What: fmt.Sprintf("backend %q with options %q", b, rn.Args), Msg: err.Error()}
		}
	}
	for _, f := range files {
		if f == small {
			continue
		}
		c := pick(f, backends[0], func(c Cell) bool { return c.Dataset == f })
		if err := rn.probe(ctx, c); err != nil {
			return &InvalidError{What: fmt.Sprintf("data file %q", f), Msg: err.Error()}
		}
	}
	return nil
}

// probe runs one check solve; it returns the solve's message when it
// exits with code 2.
func (rn *Runner) probe(ctx context.Context, c Cell) error {
	ctx, cancel := context.WithTimeout(ctx, probeLimit)
	defer cancel()
	args := []string{"solve", "--backend", c.Backend, "--check", "--quiet"}
	if c.Depth >= 0 { // model.NoDepthLimit: the backend's own (a diagram's skeleton)
		args = append(args, "--depth", strconv.Itoa(c.Depth))
	}
	args = append(args, rn.Args...)
	if rn.Prepare != nil {
		extra, _ := rn.Prepare(c)
		args = append(args, extra...)
	}
	args = append(args, c.Dataset)
	cmd := exec.CommandContext(ctx, rn.Exe, args...)
	newGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd.Process); return nil }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		if msg := lastLine(stderr.String()); msg != "" {
			return errors.New(msg)
		}
		return err
	}
	return nil
}
