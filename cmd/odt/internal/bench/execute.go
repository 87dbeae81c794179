package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// Execute runs the cells one after another (so timings do not compete),
// appending each run to dir/runs.jsonl as soon as it ends, so that an
// interrupted grid keeps what it did. Progress goes to progress (may be nil).
//
// When rn.Validate is set the grid is checked first (see Validate). A
// SIGINT or SIGTERM received meanwhile is forwarded to the running
// solve's process group, which prints its best model; that run is
// recorded, no further run starts, and Execute returns the runs with
// context.Canceled. A second signal kills the running solve at once.
func Execute(ctx context.Context, rn *Runner, cells []Cell, dir string, progress io.Writer) ([]Run, error) {
	if rn.Validate {
		if err := Validate(ctx, rn, cells); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, RunsFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		for n := 0; ; {
			select {
			case <-finished:
				return
			case s := <-sigs:
				if n++; n == 1 {
					cancel(Signal{s})
				} else if p := rn.running(); p != nil {
					killGroup(p)
				}
			}
		}
	}()
	var runs []Run
	for i, c := range cells {
		if ctx.Err() != nil {
			return runs, context.Canceled
		}
		run := rn.Run(ctx, c)
		runs = append(runs, run)
		if err := WriteRuns(f, runs[len(runs)-1:]); err != nil {
			return runs, err
		}
		if progress != nil {
			fmt.Fprintf(progress, "%s %d/%d %s %s %s: %s\n", bar(i+1, len(cells), 20), i+1, len(cells),
				c.Backend, c.Name(), c.where(), describe(run))
		}
	}
	return runs, nil
}

func bar(done, total, width int) string {
	k := done * width / max(total, 1)
	return "[" + strings.Repeat("#", k) + strings.Repeat(".", width-k) + "]"
}

func describe(r Run) string {
	if r.Failed() {
		return fmt.Sprintf("%s (%s)", r.Status, r.Message)
	}
	s := fmt.Sprintf("%s, objective %v, %.2fs, %.0f MB", r.Status, *r.Objective, r.Seconds, r.PeakMB)
	if r.TestAccuracy != nil {
		s += fmt.Sprintf(", test accuracy %.4f", *r.TestAccuracy)
	}
	return s
}

// Report writes the summary table (summary.txt, summary.md, summary.csv)
// and the pictures into dir, prints the text table to out, and returns
// the summary; its Conflicts are cross-check errors.
func Report(dir string, runs []Run, out io.Writer) (Summary, []string, error) {
	s := Summarize(runs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return s, nil, err
	}
	writers := map[string]func(io.Writer) error{
		"summary.txt": s.WriteText, "summary.md": s.WriteMarkdown, "summary.csv": s.WriteCSV,
	}
	var files []string
	for _, name := range []string{"summary.txt", "summary.md", "summary.csv"} {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			return s, files, err
		}
		err = writers[name](f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return s, files, fmt.Errorf("%s: %w", p, err)
		}
		files = append(files, p)
	}
	pics, err := WritePictures(dir, runs, s)
	files = append(files, pics...)
	if err != nil {
		return s, files, err
	}
	if err := s.WriteText(out); err != nil {
		return s, files, err
	}
	if acc := Accuracy(runs, s.Backends); acc != nil {
		more, err := writeAccuracy(dir, runs, acc, s.Backends, out)
		files = append(files, more...)
		if err != nil {
			return s, files, err
		}
	}
	return s, files, nil
}
