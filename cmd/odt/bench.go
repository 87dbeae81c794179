package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/cmd/odt/internal/bench"
	"github.com/odtkit/odtkit/model"
)

func runBench(e env, args []string) error {
	if len(args) > 0 && args[0] == "merge" {
		return runBenchMerge(e, args[1:])
	}
	if len(args) > 0 && args[0] == "report" {
		return runBenchReport(e, args[1:])
	}
	c := newFlags("bench", "odt bench --backends A,B,... [flags] DATA...\n       odt bench merge [--out DIR] RESULTS...\n       odt bench report [--out DIR] [--latex] RESULTS...",
		"Runs every combination of backend, data file, depth and repeat, each as its own\n"+
			"`odt solve` process (a crash, hang or memory blow-up of one run is reported, not fatal),\n"+
			"then writes under --out: runs.jsonl (one JSON line per run), runs/ (each run's output),\n"+
			"meta.json (machine, odt revision, command, limits), summary.txt/.md/.csv (per dataset\n"+
			"and depth, each backend's objective, bound, proof time and primal integral against the\n"+
			"grid's best objective), aggregate.txt/.md/.csv (per backend and depth: solved, time-outs,\n"+
			"memory-outs, failures, PAR-2, shifted geometric mean, wins, the virtual best solver),\n"+
			"instances.md/.csv (the wide table: per data set and depth, each series' objective,\n"+
			"bound, status and time), pictures (cactus, performance profile, pairwise scatter,\n"+
			"anytime; SVG and PNG) and\n"+
			"report.html, one self-contained page with all of it. `odt bench report` rebuilds these\n"+
			"from runs.jsonl without running anything.\n"+
			"Backends that both prove optimality must agree: a disagreement is printed as a\n"+
			"CROSS-CHECK ERROR and the exit code is 1. --shard I/N runs the I-th of N\n"+
			"deterministic slices of the grid; `odt bench merge` combines shard outputs.\n\n"+
			"Learning protocols: --split 50/25/25 --seeds 1-5 (stratified train/validation/test per\n"+
			"seed) or --cv K (stratified folds); with --tune each run tunes over the --depth,\n"+
			"--min-support, --alpha and --skeleton lists on validation (or --tune-folds inner folds)\n"+
			"and refits on train+valid. Splits are written to DIR/splits/NAME-seedS.json; the test\n"+
			"accuracy per backend goes to accuracy.txt/.md/.csv and test-accuracy.svg/.png.", 1, -1)
	var (
		configs                      configFlag
		objective                    string
		backends, depths, shard, out string
		threadList                   string
		timeLimit                    time.Duration
		repeat, memLimit             int
		quiet, certify               bool
		shift                        float64
		scatter, exportSizes         string
		opts                         optFlag
		pl                           protocolFlags
		df                           dataFlags
		rf                           reportFlags
	)
	c.StringVar(&backends, "backends", "", "comma-separated backend `NAMES` (see odt backends)")
	c.Var(&configs, "config", "named configuration `NAME=BACKEND[:key=value,...]`, run as its own column beside --backends "+
		"(repeatable; key objective=OBJ sets its objective, other keys are its --opt values)")
	c.StringVar(&objective, "objective", "", "comma-separated `OBJECTIVES` (error, min-depth, min-size, min-nodes, diagram): each backend runs each listed one it solves (default: its main one)")
	c.StringVar(&depths, "depth", "3", "comma-separated maximum `DEPTHS` (0: a single leaf); unless given, 3 for the error objective and no depth limit for min-depth, min-size, min-nodes and diagram runs, as in odt solve")
	c.durationVar(&timeLimit, "time-limit", 60*time.Second, "time limit of each run (`DURATION`)")
	c.StringVar(&threadList, "threads", "", "comma-separated thread `COUNTS` (e.g. 1,2): a grid dimension, each run's solve gets --threads N (default: none given)")
	c.IntVar(&repeat, "repeat", 1, "run each combination `N` times (seed = repeat number)")
	c.StringVar(&shard, "shard", "", "run only slice `I/N` of the grid (e.g. 2/5)")
	c.IntVar(&memLimit, "memory-limit", 0, "kill a run whose resident memory exceeds `MB` (0 = none)")
	c.Var(&opts, "opt", "backend option `key=value` passed to every run (repeatable)")
	c.Float64Var(&shift, "sgm-shift", bench.DefaultSGMShift, "shift of the aggregate's shifted geometric mean of times (`SECONDS`)")
	c.StringVar(&scatter, "scatter", "", "scatter plots of these `PAIRS` only, e.g. dl85:blossom,dl85:cart (default: every pair)")
	c.BoolVar(&certify, "certify", false, "runs of backends that can (sat-odt, sat-odd, sat-depth, sat-size) write and check LRAT proofs of their optimum in DIR/proofs/ (--opt certify); the aggregate counts the certified runs and the formulation table shows proof sizes and check times")
	c.StringVar(&exportSizes, "export-sizes", "", "also export each cell's formulation (the first repeat, not timed) in the first of these `FORMATS` its backend writes (e.g. wcnf,dimacs,mps) and show its size beside the solved one in the formulation table")
	c.outFlag(&out, "output `DIR` (default: a new folder bench-YYYYMMDD-HHMMSS here)")
	c.quietFlag(&quiet)
	pl.declare(c)
	df.declare(c)
	rf.declare(c)
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	clock, expect, err := rf.resolve(nil)
	if err != nil {
		return err
	}
	switch strings.ToLower(df.format) {
	case "", "csv", "text", "txt", "dl8", "dl85":
	default:
		return usagef("--data-format %q: want csv or text", df.format)
	}
	bs := bench.ParseList(backends)
	for _, cf := range configs.list {
		if slices.Contains(bs, cf.Name) {
			return usagef("--config %s: the name is already a column of the grid", cf.Name)
		}
		if _, ok := odtkit.DefaultRegistry().Get(cf.Name); ok {
			return usagef("--config %s: the name is a backend's; choose another", cf.Name)
		}
		bs = append(bs, cf.Name)
	}
	if len(bs) == 0 {
		return usagef("--backends or --config is required (e.g. --backends dl85,cart)")
	}
	objectives := bench.ParseList(objective)
	for _, o := range objectives {
		switch model.Objective(o) {
		case model.MinError, model.MinDepth, model.MinSize, model.MinNodes, model.DiagramError:
		default:
			return usagef("--objective %q: want error, min-depth, min-size, min-nodes or diagram", o)
		}
	}
	ds, err := bench.ParseInts(depths)
	if err != nil {
		return usagef("--depth: %v", err)
	}
	if repeat < 1 || timeLimit < 0 || memLimit < 0 {
		return usagef("--repeat must be at least 1; --time-limit and --memory-limit must not be negative")
	}
	if !(shift > 0) || math.IsInf(shift, 0) {
		return usagef("--sgm-shift %v: want a positive number of seconds", shift)
	}
	exportFormats := bench.ParseList(exportSizes)
	for _, f := range exportFormats {
		switch f {
		case "dimacs", "wcnf", "opb", "mps", "lp":
		default:
			return usagef("--export-sizes %q: want formats among dimacs, wcnf, opb, mps and lp", f)
		}
	}
	pairs, err := bench.ParsePairs(scatter)
	if err != nil {
		return usagef("--scatter: %v", err)
	}
	for _, pr := range pairs {
		for _, s := range pr {
			if !slices.Contains(bs, s) {
				return usagef("--scatter %s:%s: %s is not a backend or configuration of the grid", pr[0], pr[1], s)
			}
		}
	}
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
	cells = bench.ApplyConfigs(cells, configs.list)
	cells, err = bench.WithObjectives(cells, objectives, func(b, o string) bool {
		in, ok := odtkit.DefaultRegistry().Get(b)
		return ok && in.Info().Accepts(model.Objective(o))
	})
	if err != nil {
		return usagef("--objective: %v", err)
	}
	var globalOpts []string
	for k, v := range opts.opts {
		globalOpts = append(globalOpts, k+"="+v)
	}
	slices.Sort(globalOpts)
	for _, b := range bs {
		noteRespelled(e.stderr, "bench", b, opts.opts)
	}
	for _, cf := range configs.list {
		m := map[string]string{}
		for _, kv := range cf.Options {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		noteRespelled(e.stderr, "bench", cf.Backend, m)
	}
	for i, cl := range cells {
		cl.Options = append(slices.Clone(globalOpts), cl.Options...)
		if cl.ObjectiveName == "" {
			cl.ObjectiveName = mainObjective(cl.Backend)
		}
		if !isSet(c, "depth") && cl.ObjectiveName != "" && cl.ObjectiveName != string(model.MinError) {
			cl.Depth = bench.NoDepth
		}
		cells[i] = cl
	}
	cells = bench.WithThreads(pl.depthless(cells), threads)
	bench.LabelCells(cells) // the whole grid, so that every shard names a file alike
	if shard != "" {
		i, n, err := bench.ParseShard(shard)
		if err != nil {
			return usagef("--shard: %v", err)
		}
		cells = bench.Shard(cells, i, n)
	}
	if out == "-" {
		return usagef("--out is the folder bench writes its files in; - (stdout) does not apply (the table goes to stdout anyway)")
	}
	if out == "" {
		out = "bench-" + time.Now().Format("20060102-150405")
	}
	pl.data = &df
	if err := pl.writeSplits(cells, out); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot locate the odt binary to run solves: %w", err)
	}
	var extra []string
	for _, cl := range cells {
		for _, o := range cl.Options {
			extra = append(extra, "--opt", o)
		}
	}
	// How to read the data files is the same for every run.
	var dataArgs []string
	for _, f := range []struct{ name, v string }{{"--label", df.label}, {"--weight", df.weight}, {"--data-format", df.format}} {
		if f.v != "" {
			dataArgs = append(dataArgs, f.name, f.v)
		}
	}
	v := buildVersion()
	rev := v.Revision
	if v.Modified && rev != "" {
		rev += "+modified"
	}
	rn := &bench.Runner{Exe: exe, TimeLimit: timeLimit, MemoryLimitMB: memLimit, Args: dataArgs, Prepare: pl.prepare, Validate: true, Revision: rev, Expect: expect, ExportFormats: exportFormats}
	if certify {
		abs, err := filepath.Abs(filepath.Join(out, bench.ProofDir))
		if err != nil {
			return err
		}
		rn.ProofDir = abs
		rn.Certifies = func(b string) bool {
			in, ok := odtkit.DefaultRegistry().Get(b)
			return ok && slices.ContainsFunc(in.Info().Params, func(p backend.Param) bool { return p.Name == odtkit.CertifyOption })
		}
	}
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
	meta := newMeta(ctx, timeLimit, memLimit, extra, shift)
	meta.Time = string(clock)
	if expect != nil {
		meta.Expect = expect.Path
	}
	for _, c := range cells {
		if !slices.Contains(meta.Seeds, c.SeedOf()) {
			meta.Seeds = append(meta.Seeds, c.SeedOf())
		}
	}
	runs, err := bench.Execute(ctx, rn, cells, out, prog)
	if err != nil && !errors.Is(err, context.Canceled) {
		if isIOFailure(err) {
			// The grid ends at the first write that fails (a full
			// disk): what was written before it is kept.
			return fmt.Errorf("%w; the grid stopped: the %d runs before are in %s (odt bench report %s makes the tables from them)", err, len(runs), filepath.Join(out, bench.RunsFile), out)
		}
		return err
	}
	meta.End = time.Now()
	if _, err := bench.WriteMeta(out, meta); err != nil {
		return err
	}
	return benchReport(e, out, runs, bench.ReportOptions{Shift: shift, Meta: meta, Pairs: pairs, Time: clock}, quiet)
}

// reportFlags are the flags that set how runs are counted: the clock of
// times and the table of expected optima.
type reportFlags struct {
	clock, expect string
	cmd           *cmdFlags
}

func (f *reportFlags) declare(c *cmdFlags) {
	f.cmd = c
	c.StringVar(&f.clock, "time", "wall", "the time aggregates, pictures and tables count runs with: `wall` (the process's wall-clock time) or cpu (its user + system CPU time); runs.jsonl keeps both")
	c.StringVar(&f.expect, "expect", "", "tab-separated `FILE` of expected optima (columns dataset, depth, optimum, optionally objective): each run is marked correct, incorrect or unknown, and an incorrect one makes the exit code 1")
}

// resolve reads the flags: the clock (when --time is not given, the one
// meta recorded, else wall) and the expectations (nil without --expect).
func (f *reportFlags) resolve(meta *bench.Meta) (bench.Clock, *bench.Expectations, error) {
	v := f.clock
	if !isSet(f.cmd, "time") && meta != nil && meta.Time != "" {
		v = meta.Time
	}
	clock, err := bench.ParseClock(v)
	if err != nil {
		return "", nil, usagef("--time %v", err)
	}
	if f.expect == "" {
		return clock, nil, nil
	}
	ex, err := bench.ReadExpectations(f.expect)
	if err != nil {
		return "", nil, badInput(err)
	}
	return clock, ex, nil
}

// mark checks runs against ex (when given) and records it in meta.
func mark(runs []bench.Run, ex *bench.Expectations, meta *bench.Meta) {
	if ex == nil {
		return
	}
	for i := range runs {
		ex.Mark(&runs[i])
	}
	if meta != nil {
		meta.Expect = ex.Path
	}
}

// configFlag collects --config values.
type configFlag struct{ list []bench.Config }

func (f *configFlag) String() string {
	if f == nil {
		return ""
	}
	var names []string
	for _, c := range f.list {
		names = append(names, c.Name)
	}
	return strings.Join(names, ",")
}

func (f *configFlag) Set(s string) error {
	c, err := bench.ParseConfig(s)
	if err != nil {
		return err
	}
	if _, ok := odtkit.DefaultRegistry().Get(c.Backend); !ok {
		return fmt.Errorf("configuration %s: unknown backend %q (see odt backends)", c.Name, c.Backend)
	}
	for _, o := range f.list {
		if o.Name == c.Name {
			return fmt.Errorf("configuration %s given twice", c.Name)
		}
	}
	f.list = append(f.list, c)
	return nil
}

// mainObjective is a backend's main objective ("" when unknown).
func mainObjective(name string) string {
	if b, ok := odtkit.DefaultRegistry().Get(name); ok && len(b.Info().Objectives) > 0 {
		return string(b.Info().Objectives[0])
	}
	return ""
}

// newMeta records the setting of a bench run: this machine, this binary,
// the command line and the limits; Start is now.
func newMeta(ctx context.Context, timeLimit time.Duration, memLimit int, extra []string, shift float64) *bench.Meta {
	v := buildVersion()
	m := &bench.Meta{Version: v.Version, Revision: v.Revision, Go: v.Go, Tags: v.Tags, Command: os.Args,
		TimeLimit: timeLimit.Seconds(), MemoryLimitMB: memLimit, SGMShift: shift, Start: time.Now()}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	if v.Modified {
		m.Revision += "+modified"
	}
	bench.MachineMeta(m)
	m.Host, _ = os.Hostname()
	m.Solvers = bench.ExternalSolvers(ctx, extra)
	return m
}

func runBenchMerge(e env, args []string) error {
	c := newFlags("bench merge", "odt bench merge [--out DIR] [--force] RESULTS...",
		"Combines the runs.jsonl of several shards (files, or the folders holding them) into one\n"+
			"table and set of pictures, as if the whole grid had run at once: it copies each run's\n"+
			"output into DIR/runs/ and writes a meta.json with the shards' common settings and each\n"+
			"shard's command, host, revision, start and end. Shards whose settings differ (time or\n"+
			"memory limit, odt revision or build, external solvers, the grid's options, backends,\n"+
			"data or depths) are refused, naming the difference, unless --force.", 1, -1)
	var out string
	var quiet, force bool
	var rf reportFlags
	c.outFlag(&out, "output `DIR` (default: a new folder bench-merged-YYYYMMDD-HHMMSS here)")
	c.BoolVar(&force, "force", false, "merge shards whose settings differ (meta.json lists the differences)")
	c.quietFlag(&quiet)
	rf.declare(c)
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if out == "-" {
		return usagef("--out is the folder bench merge writes its files in; - (stdout) does not apply (the table goes to stdout anyway)")
	}
	runs, err := bench.ReadRunFiles(pos)
	if err != nil {
		return badInput(err)
	}
	metas, err := readMetas(pos)
	if err != nil {
		return badInput(err)
	}
	meta, diffs := bench.MergeMeta(pos, metas, os.Args)
	diffs = append(diffs, bench.RunDifferences(runs)...)
	if len(diffs) > 0 && !force {
		return usagef("the shards differ in their settings, so their runs do not compare (give --force to merge anyway):\n  %s", strings.Join(diffs, "\n  "))
	}
	if meta != nil {
		meta.Differences = diffs
	}
	clock, expect, err := rf.resolve(meta)
	if err != nil {
		return err
	}
	mark(runs, expect, meta)
	if meta != nil {
		meta.Time = string(clock)
	}
	if out == "" {
		out = "bench-merged-" + time.Now().Format("20060102-150405")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	notes, err := bench.CarryOutputs(out, runs)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "odt bench merge: "+n)
	}
	if err := writeRunsFile(out, runs); err != nil {
		return err
	}
	if meta != nil {
		if _, err := bench.WriteMeta(out, meta); err != nil {
			return err
		}
	}
	return benchReport(e, out, runs, bench.ReportOptions{Meta: meta, Time: clock}, quiet)
}

// readMetas reads the settings record of each result folder among paths
// (of the folder holding a runs.jsonl given as a file); nil where a
// folder has none.
func readMetas(paths []string) ([]*bench.Meta, error) {
	metas := make([]*bench.Meta, len(paths))
	for i, p := range paths {
		dir := p
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			dir = filepath.Dir(p)
		}
		m, err := bench.ReadMeta(dir)
		if err != nil {
			return nil, err
		}
		metas[i] = m
	}
	return metas, nil
}

func runBenchReport(e env, args []string) error {
	c := newFlags("bench report", "odt bench report [--out DIR] [--latex] [--sgm-shift S] RESULTS...",
		"Rebuilds every table, picture and report.html from the runs.jsonl of one result folder or\n"+
			"of several (merged shards), without running anything. --out defaults to the one folder\n"+
			"given; with several, a new folder bench-report-YYYYMMDD-HHMMSS here. --latex also\n"+
			"writes aggregate.tex, cells.tex and instances.tex (booktabs and siunitx tables) and every\n"+
			"picture as PDF, for a paper.", 1, -1)
	var (
		out, scatter string
		latex        bool
		shift        float64
		rf           reportFlags
	)
	c.outFlag(&out, "output `DIR` (default: the result folder, when one is given)")
	c.BoolVar(&latex, "latex", false, "also write aggregate.tex, cells.tex and instances.tex (booktabs, siunitx) and the pictures as PDF")
	c.Float64Var(&shift, "sgm-shift", bench.DefaultSGMShift, "shift of the shifted geometric mean of times (`SECONDS`)")
	c.StringVar(&scatter, "scatter", "", "scatter plots of these `PAIRS` only, e.g. dl85:blossom (default: every pair)")
	rf.declare(c)
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if !(shift > 0) || math.IsInf(shift, 0) {
		return usagef("--sgm-shift %v: want a positive number of seconds", shift)
	}
	pairs, err := bench.ParsePairs(scatter)
	if err != nil {
		return usagef("--scatter: %v", err)
	}
	runs, err := bench.ReadRunFiles(pos)
	if err != nil {
		return badInput(err)
	}
	metas, err := readMetas(pos)
	if err != nil {
		return badInput(err)
	}
	meta := metas[0]
	if len(pos) > 1 {
		meta, _ = bench.MergeMeta(pos, metas, os.Args)
	}
	clock, expect, err := rf.resolve(meta)
	if err != nil {
		return err
	}
	mark(runs, expect, meta)
	if out == "" {
		if st, err := os.Stat(pos[0]); len(pos) == 1 && err == nil && st.IsDir() {
			out = pos[0]
		} else {
			out = "bench-report-" + time.Now().Format("20060102-150405")
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	notes, err := bench.CarryOutputs(out, runs)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "odt bench report: "+n)
	}
	// The runs are written where they are not yet, and again when they
	// were just checked against expected optima (runs.jsonl then holds
	// the verdicts).
	if _, err := os.Stat(filepath.Join(out, bench.RunsFile)); os.IsNotExist(err) || expect != nil {
		if err := writeRunsFile(out, runs); err != nil {
			return err
		}
	}
	return benchReport(e, out, runs, bench.ReportOptions{Shift: shift, Meta: meta, LaTeX: latex, Pairs: pairs, Time: clock}, false)
}

// writeRunsFile writes runs to dir/runs.jsonl.
func writeRunsFile(dir string, runs []bench.Run) error {
	f, err := os.Create(filepath.Join(dir, bench.RunsFile))
	if err != nil {
		return err
	}
	if err := bench.WriteRuns(f, runs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchReport writes the tables and pictures, prints the table, and fails
// when proven optima disagree.
func benchReport(e env, dir string, runs []bench.Run, opt bench.ReportOptions, quiet bool) error {
	s, files, err := bench.Report(dir, runs, e.stdout, opt)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "odt bench: wrote %s and %d more files in %s\n", bench.RunsFile, len(files), dir)
	}
	var errs []error
	if len(s.Conflicts) > 0 {
		errs = append(errs, fmt.Errorf("%d cross-check error(s): backends that proved optimality disagree (see the table)", len(s.Conflicts)))
	}
	if len(s.Incorrect) > 0 {
		errs = append(errs, fmt.Errorf("%d incorrect result(s): runs that contradict the expected optima (INCORRECT in the table)", len(s.Incorrect)))
	}
	return errors.Join(errs...)
}
