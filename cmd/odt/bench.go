package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/odtkit/odtkit/cmd/odt/internal/bench"
)

func runBench(e env, args []string) error {
	if len(args) > 0 && args[0] == "merge" {
		return runBenchMerge(e, args[1:])
	}
	c := newFlags("bench", "odt bench --backends A,B,... [flags] DATA...\n       odt bench merge [--out DIR] RESULTS...",
		"Runs every combination of backend, data file, depth and repeat, each as its own\n"+
			"`odt solve` process (a crash, hang or memory blow-up of one run is reported, not fatal),\n"+
			"then writes under --out: runs.jsonl (one JSON line per run), summary.txt/.md/.csv (per\n"+
			"dataset and depth, each backend's objective, bound, proof time and primal integral\n"+
			"against the grid's best objective) and anytime pictures (anytime-*.svg/.png).\n"+
			"Backends that both prove optimality must agree: a disagreement is printed as a\n"+
			"CROSS-CHECK ERROR and the exit code is 1. --shard I/N runs the I-th of N\n"+
			"deterministic slices of the grid; `odt bench merge` combines shard outputs.\n\n"+
			"Learning protocols: --split 50/25/25 --seeds 1-5 (stratified train/validation/test per\n"+
			"seed) or --cv K (stratified folds); with --tune each run tunes over the --depth,\n"+
			"--min-support, --alpha and --skeleton lists on validation (or --tune-folds inner folds)\n"+
			"and refits on train+valid. Splits are written to DIR/splits/NAME-seedS.json; the test\n"+
			"accuracy per backend goes to accuracy.txt/.md/.csv and test-accuracy.svg/.png.", 1, -1)
	var (
		backends, depths, shard, out string
		threadList                   string
		timeLimit                    time.Duration
		repeat, memLimit             int
		quiet                        bool
		opts                         optFlag
		pl                           protocolFlags
	)
	c.StringVar(&backends, "backends", "", "comma-separated backend `NAMES` (see odt backends)")
	c.StringVar(&depths, "depth", "3", "comma-separated maximum `DEPTHS` (0: a single leaf); unless given, min-depth and min-size backends run with no depth limit, as in odt solve")
	c.DurationVar(&timeLimit, "time-limit", 60*time.Second, "time limit of each run (`DURATION`)")
	c.StringVar(&threadList, "threads", "", "comma-separated thread `COUNTS` (e.g. 1,2): a grid dimension, each run's solve gets --threads N (default: none given)")
	c.IntVar(&repeat, "repeat", 1, "run each combination `N` times (seed = repeat number)")
	c.StringVar(&shard, "shard", "", "run only slice `I/N` of the grid (e.g. 2/5)")
	c.IntVar(&memLimit, "memory-limit", 0, "kill a run whose resident memory exceeds `MB` (0 = none)")
	c.Var(&opts, "opt", "backend option `key=value` passed to every run (repeatable)")
	c.outFlag(&out, "output `DIR` (default: a new folder bench-YYYYMMDD-HHMMSS here)")
	c.quietFlag(&quiet)
	pl.declare(c)
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	bs := bench.ParseList(backends)
	if len(bs) == 0 {
		return usagef("--backends is required (e.g. --backends dl85,cart)")
	}
	ds, err := bench.ParseInts(depths)
	if err != nil {
		return usagef("--depth: %v", err)
	}
	if repeat < 1 || timeLimit < 0 || memLimit < 0 {
		return usagef("--repeat must be at least 1; --time-limit and --memory-limit must not be negative")
	}
	pl.depthSet = isSet(c, "depth")
	if err := pl.check(ds, repeat); err != nil {
		return err
	}
	var threads []int
	if isSet(c, "threads") {
		if threads, err = bench.ParseThreads(threadList); err != nil {
			return usagef("--threads %q: %v", threadList, err)
		}
	}
	cells := bench.Grid(pos, bs, ds, repeat)
	if pl.protocol != "" {
		cells = bench.ProtocolGrid(pos, bs, ds, pl.seeds, pl.cv, pl.protocol, pl.tune)
	}
	cells = bench.WithThreads(pl.depthless(cells), threads)
	if shard != "" {
		i, n, err := bench.ParseShard(shard)
		if err != nil {
			return usagef("--shard: %v", err)
		}
		cells = bench.Shard(cells, i, n)
	}
	if out == "" {
		out = "bench-" + time.Now().Format("20060102-150405")
	}
	if err := pl.writeSplits(cells, out); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot locate the odt binary to run solves: %w", err)
	}
	var extra []string
	for k, v := range opts.opts {
		extra = append(extra, "--opt", k+"="+v)
	}
	rn := &bench.Runner{Exe: exe, TimeLimit: timeLimit, MemoryLimitMB: memLimit, Args: extra, Prepare: pl.prepare, Validate: true}
	prog := e.stderr
	if quiet {
		prog = nil
	} else {
		dims := pl.describe(repeat)
		if len(threads) > 0 {
			dims += " × threads " + threadList
		}
		fmt.Fprintf(prog, "odt bench: %d runs (%s × %d data files × depths %s × %s), time limit %s each, results in %s\n",
			len(cells), strings.Join(bs, ","), len(pos), depths, dims, timeLimit, out)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	runs, err := bench.Execute(ctx, rn, cells, out, prog)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return benchReport(e, out, runs)
}

func runBenchMerge(e env, args []string) error {
	c := newFlags("bench merge", "odt bench merge [--out DIR] RESULTS...",
		"Combines the runs.jsonl of several shards (files, or the folders holding them) into one\n"+
			"table and set of pictures, as if the whole grid had run at once.", 1, -1)
	var out string
	c.outFlag(&out, "output `DIR` (default: a new folder bench-merged-YYYYMMDD-HHMMSS here)")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	runs, err := bench.ReadRunFiles(pos)
	if err != nil {
		return badInput(err)
	}
	if out == "" {
		out = "bench-merged-" + time.Now().Format("20060102-150405")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, bench.RunsFile))
	if err != nil {
		return err
	}
	if err := bench.WriteRuns(f, runs); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return benchReport(e, out, runs)
}

// benchReport writes the tables and pictures, prints the table, and fails
// when proven optima disagree.
func benchReport(e env, dir string, runs []bench.Run) error {
	s, files, err := bench.Report(dir, runs, e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "odt bench: wrote %s and %d more files in %s\n", bench.RunsFile, len(files), dir)
	if len(s.Conflicts) > 0 {
		return fmt.Errorf("%d cross-check error(s): backends that proved optimality disagree (see the table)", len(s.Conflicts))
	}
	return nil
}
