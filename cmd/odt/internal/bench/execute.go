package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
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
		if rn.Expect != nil {
			rn.Expect.Mark(&run)
		}
		if err := keepOutput(dir, &run); err != nil {
			return runs, err
		}
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

// OutputDir is the folder, inside a result folder, of the runs' outputs,
// and ProofDir that of their proofs (bench --certify).
const (
	OutputDir = "runs"
	ProofDir  = "proofs"
)

// outputName names a run's files: NNNN-SERIES-DATA-dDEPTH-rREPEAT, with
// -sSEED-fFOLD for learning protocols.
func outputName(run *Run) string {
	name := fmt.Sprintf("%04d-%s-%s-%s-r%d", run.Index, fileSafe(run.Series()), fileSafe(run.Name()), "d"+runDepth(run), run.Repeat)
	if run.Protocol != "" {
		name += fmt.Sprintf("-s%d-f%d", run.Seed, run.Fold)
	}
	return name
}

// keepOutput writes what the run's process printed to
// dir/runs/NNNN-BACKEND-DATA-dD-rR.json (its result) or .txt (its
// messages, when it gave no result) and records the file in run.Output.
func keepOutput(dir string, run *Run) error {
	body, ext := run.stdout, ".json"
	if run.Failed() || len(body) == 0 {
		body, ext = append(slices.Clip(run.stdout), run.stderr...), ".txt"
	}
	if len(body) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, OutputDir), 0o755); err != nil {
		return err
	}
	rel := OutputDir + "/" + outputName(run) + ext
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), body, 0o644); err != nil {
		return err
	}
	run.Output = rel
	return nil
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

// ReportOptions set what Report writes beyond the per-cell tables.
type ReportOptions struct {
	// Shift is the shifted geometric mean's shift in seconds
	// (DefaultSGMShift when ≤ 0).
	Shift float64
	// Meta is the settings record shown in the HTML report (nil: none
	// recorded).
	Meta *Meta
	// LaTeX also writes the tables as LaTeX and every picture as PDF.
	LaTeX bool
	// Pairs are the pairs of series compared by scatter plots (nil: all).
	Pairs [][2]string
	// Time is the clock of the aggregate, the pictures and the
	// per-instance table ("" is Wall).
	Time Clock
}

// Report writes into dir the per-cell table (summary.txt, .md, .csv), the
// aggregate per backend (aggregate.txt, .md, .csv), the anytime and
// comparison pictures (SVG and PNG), the accuracy table of learning
// protocols, optionally LaTeX tables, and report.html tying them
// together; it prints the per-cell and aggregate tables to out and
// returns the summary (its Conflicts are cross-check errors) and the
// files written.
func Report(dir string, runs []Run, out io.Writer, opt ReportOptions) (Summary, []string, error) {
	runs = uniformThreads(runs)
	s := Summarize(runs)
	shift := opt.Shift
	if shift <= 0 {
		shift = DefaultSGMShift
	}
	clock := opt.Time
	if clock == "" {
		clock = Wall
	}
	formats := pictureFormats(opt.LaTeX)
	agg := Aggregate(runs, shift, clock)
	wide := Instances(s, clock)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return s, nil, err
	}
	writers := []namedWriter{
		{"summary.txt", s.WriteText}, {"summary.md", s.WriteMarkdown}, {"summary.csv", s.WriteCSV},
		{"aggregate.txt", func(w io.Writer) error { return WriteAggregateText(w, agg, shift, clock) }},
		{"aggregate.md", func(w io.Writer) error { return WriteAggregateMarkdown(w, agg, shift, clock) }},
		{"aggregate.csv", func(w io.Writer) error { return WriteAggregateCSV(w, agg) }},
		{"instances.csv", wide.WriteCSV}, {"instances.md", wide.WriteMarkdown},
	}
	if opt.LaTeX {
		writers = append(writers,
			namedWriter{"aggregate.tex", func(w io.Writer) error { return WriteAggregateLaTeX(w, agg, shift, clock) }},
			namedWriter{"cells.tex", s.WriteLaTeX}, namedWriter{"instances.tex", wide.WriteLaTeX})
	}
	ft := FormulationTable(runs)
	if ft != nil {
		writers = append(writers,
			namedWriter{"formulation.txt", func(w io.Writer) error { return WriteFormulationText(w, ft) }},
			namedWriter{"formulation.md", func(w io.Writer) error { return WriteFormulationMarkdown(w, ft) }},
			namedWriter{"formulation.csv", func(w io.Writer) error { return WriteFormulationCSV(w, ft) }})
	}
	var files []string
	for _, wr := range writers {
		p := filepath.Join(dir, wr.name)
		if err := writeFile(p, wr.write); err != nil {
			return s, files, err
		}
		files = append(files, p)
	}
	pics, err := WritePictures(dir, runs, s, formats)
	files = append(files, pics...)
	if err != nil {
		return s, files, err
	}
	cmp, err := WriteComparePictures(dir, runs, opt.Pairs, clock, formats)
	files = append(files, cmp...)
	if err != nil {
		return s, files, err
	}
	if err := s.WriteText(out); err != nil {
		return s, files, err
	}
	fmt.Fprintln(out)
	if err := WriteAggregateText(out, agg, shift, clock); err != nil {
		return s, files, err
	}
	var accPics []string
	if acc := Accuracy(runs, s.Backends); acc != nil {
		more, err := writeAccuracy(dir, runs, acc, s.Backends, out, formats)
		files = append(files, more...)
		accPics = more
		if err != nil {
			return s, files, err
		}
	}
	var svgs []string
	for _, f := range append(append(cmp, accPics...), pics...) {
		if strings.HasSuffix(f, ".svg") {
			svgs = append(svgs, f)
		}
	}
	page, err := WriteHTML(dir, runs, s, agg, wide, ft, opt.Meta, shift, clock, svgs)
	if err != nil {
		return s, files, err
	}
	files = append(files, page)
	return s, files, nil
}

// uniformThreads returns runs with the thread count dropped (0) from the
// series of every backend or configuration whose runs all have the same
// one, so that labels name a thread count only where runs differ in it.
func uniformThreads(runs []Run) []Run {
	counts := map[string][]int{}
	for i := range runs {
		name := runs[i].Cell
		name.Threads = 0
		s := name.Series()
		if !slices.Contains(counts[s], runs[i].Threads) {
			counts[s] = append(counts[s], runs[i].Threads)
		}
	}
	out := slices.Clone(runs)
	for i := range out {
		name := out[i].Cell
		name.Threads = 0
		if len(counts[name.Series()]) == 1 {
			out[i].Threads = 0
		}
	}
	return out
}

// namedWriter writes one file of a report.
type namedWriter struct {
	name  string
	write func(io.Writer) error
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
