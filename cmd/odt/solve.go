package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/model"
)

func runSolve(e env, args []string) error {
	start := time.Now() // the time limit's clock starts here
	c := newFlags("solve", "odt solve [flags] DATA",
		"Learns a decision tree (or diagram) from DATA (.csv with a header, label last or --label;\n"+
			"or whitespace text with the label first) with the chosen backend, verifies it on the\n"+
			"data, and prints the result. Progress (each improving model) goes to stderr.\n\n"+
			"--depth is the maximum depth for every objective (0: a single leaf): 3 by default for the\n"+
			"error objective, no limit for min-depth, min-size and min-nodes (a diagram's skeleton gives its depth).\n"+
			"A depth larger than can change the optimum (more than the data's distinct tests, than\n"+
			"rows/--min-support - 1, than the leaves a --leaf-cost pays for, than --max-nodes) is\n"+
			"searched at that smaller depth; the output says so (\"searched to depth\", JSON\n"+
			"depth_reduced). A result is optimal when its lower bound meets its objective.", 1, 1)
	var (
		backend, format, out   string
		timeLimit              time.Duration
		quiet, check           bool
		rule, relax, satSolver string
		certify                string
		gap, absGap            string
		force                  bool
		seed                   int64
		threads, memLimit      int
		opts                   optFlag
		df                     dataFlags
		pf                     = problemFlags{lists: true}
		lf                     learnFlags
	)
	c.StringVar(&backend, "backend", "auto", "backend `NAME` (see odt backends), or auto")
	pf.declare(c, true)
	lf.declare(c)
	c.durationVar(&timeLimit, "time-limit", 0, "stop after `DURATION` (e.g. 30s, 5m) and report the best model found (0 = none)")
	df.declare(c)
	c.StringVar(&format, "format", "text", "output `format`: text, json or dot")
	c.outFlag(&out, "write the result to `FILE` instead of stdout")
	c.quietFlag(&quiet)
	c.Var(&opts, "opt", "backend option `key=value` (repeatable; see odt backends)")
	c.StringVar(&rule, "rule", "", "shorthand for --opt rule=`VALUE`")
	c.StringVar(&relax, "relax", "", "shorthand for --opt relax=`VALUE`")
	c.StringVar(&satSolver, "sat-solver", "", "shorthand for --opt sat-solver=`VALUE`")
	c.StringVar(&gap, "gap", "", "stop once the model is proven within the relative gap `G` of the optimum, status gap (dl85, cadl85, blossom, contree; the MILP backends' gap); shorthand for --opt gap=G")
	c.StringVar(&absGap, "abs-gap", "", "stop once the model is proven within `A` errors (weighted) of the optimum, status gap (dl85, cadl85, blossom, contree); shorthand for --opt abs-gap=A")
	c.StringVar(&certify, "certify", "", "write the formula and LRAT proof of every refutation the optimum rests on to `DIR` and check them before printing (sat-odt, sat-odd, sat-depth, sat-size on odtkit's CDCL); odt certify DIR checks them again")
	c.BoolVar(&force, "force", false, "with --certify DIR: replace the certificate DIR holds (a DIR holding anything else is refused)")
	c.Int64Var(&seed, "seed", 0, "random `seed` for randomised backends and for --holdout's split")
	c.IntVar(&threads, "threads", 0, "search workers `N` for backends that list --threads in odt backends, and HiGHS's threads (0 = the CPUs the process may use)")
	c.BoolVar(&check, "check", false, "read the data and check the backend, problem and options as a solve would, then exit without solving (exit 0: accepted, 2: refused)")
	c.IntVar(&memLimit, "memory-limit", 0, "memory cap in `MB`: a run reaching it stops with status memory-limit and its best model (0 = 80% of the machine's memory)")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if err := checkFormat(format, outputFormats("solve")...); err != nil {
		return err
	}
	if timeLimit < 0 || threads < 0 || memLimit < 0 {
		return usagef("--time-limit, --threads and --memory-limit must not be negative")
	}
	problem, err := pf.problem()
	if err != nil {
		return err
	}
	problem = pf.forBackend(problem, backend)
	if err := lf.check(); err != nil {
		return err
	}
	options := odtkit.Options{}
	for k, v := range opts.opts {
		options[k] = v
	}
	// The sugar flags are passed only when given, so that backends
	// without such an option are not bothered by them.
	for name, v := range map[string]string{"rule": rule, "relax": relax, "sat-solver": satSolver, "certify": certify, "gap": gap, "abs-gap": absGap} {
		if isSet(c, name) {
			options[name] = v
		}
	}
	if force {
		options[odtkit.CertifyForceOption] = "true"
	}
	noteRespelled(e.stderr, "solve", backend, options)
	// The certificate directory is checked before any work: missing,
	// empty, or a certificate to replace with --force.
	if dir := options[odtkit.CertifyOption]; dir != "" {
		if err := odtkit.CheckCertificateDir(dir, options[odtkit.CertifyForceOption] == "true"); err != nil {
			return badInput(err)
		}
	}
	ctx, intr, stop := interruptContext(context.Background(), e.stderr, "stopping with the best model so far")
	defer stop()
	// The output is checked (its temporary file made) before any work, so
	// that a path that cannot be written is refused now, not after the
	// solve; it is removed on any failure and by a second interrupt.
	dest, err := openOutput(out, e.stdout)
	if err != nil {
		return err
	}
	defer dest.discard()
	intr.atQuit(dest.discard)
	memCap := memoryCapMB(memLimit, e.stderr)
	setHeapLimit(memCap)
	// The time limit covers the whole run: reading the data (and a --test
	// file), the split and the solve. A grid of problems gives each solve
	// the whole limit, as documented; its reading is still under the limit.
	runCtx := ctx
	if timeLimit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, start.Add(timeLimit))
		defer cancel()
	}
	prog := newProgress(e.stderr, quiet)
	data, err := df.readContext(runCtx, pos[0])
	var split heldOut
	if err == nil {
		split, err = lf.split(runCtx, data, &df, seed)
	}
	if err == nil && runCtx.Err() != nil {
		err = fmt.Errorf("%s: stopped before the solve: %w", pos[0], context.Cause(runCtx))
	}
	if err != nil {
		if runCtx.Err() != nil && errors.Is(err, context.Cause(runCtx)) {
			return stoppedBeforeSolve(e, runCtx, err, timeLimit, start, dest, format, backend, problem, pos[0])
		}
		return err
	}
	prog.printf("read %s: %d rows, %d features, %d classes", data.Name, data.Rows(), data.NumFeatures(), data.NumClasses())
	readSeconds := time.Since(start).Seconds()
	candidates := pf.grid().Problems(problem)
	settings := odtkit.Settings{Backend: backend, TimeLimit: timeLimit, Options: options, Seed: seed,
		Threads: threads, MemoryLimitMB: memCap, OnIncumbent: prog.incumbent}
	if check {
		for _, p := range candidates {
			if err := odtkit.Check(data, p, settings); err != nil {
				return err
			}
		}
		return nil
	}
	if isSet(c, "certify") && len(candidates) > 1 {
		return usagef("--certify certifies one solve, not a grid of %d problems", len(candidates))
	}
	solveCtx := ctx
	if len(candidates) == 1 {
		// One solve: it has what the reading left of the limit (runCtx's
		// deadline; the registry adds none of its own).
		solveCtx, settings.TimeLimit = runCtx, 0
	}
	res, err := lf.run(solveCtx, data, split, candidates, settings, prog)
	if err != nil {
		return err
	}
	if res.Stats == nil {
		res.Stats = map[string]any{}
	}
	res.Stats["read_seconds"] = readSeconds
	// A failure after the search keeps its result: the result is written
	// (its "certified" says what the proof did), then the failure is the
	// exit code.
	var after error
	if isSet(c, "certify") && res.Optimal && !res.Certified {
		after = fmt.Errorf("--certify: the optimum of %s is not certified (the result is written, certified false)", res.Backend)
	}
	found := "objective " + fmtNum(res.Objective)
	if res.Model == nil {
		found = "no model found"
	}
	prog.printf("done: backend %s, status %s, %s, lower bound %s, %.3fs",
		res.Backend, res.Status, found, fmtNum(res.LowerBound), res.Seconds)
	if err := dest.commit(func(w io.Writer) error { return printResult(w, format, res, data) }); err != nil {
		if after != nil {
			return fmt.Errorf("%w; %w", after, err)
		}
		return err
	}
	return after
}

// stoppedBeforeSolve reports a run whose time limit or interrupt came
// before the solve (while reading the data or splitting it): there is no
// model. It says so on stderr and prints a result with the stop's status
// (time-limit or cancelled) and no model; the exit code is 0, as for any
// solve that ends without a model.
func stoppedBeforeSolve(e env, ctx context.Context, cause error, limit time.Duration, start time.Time,
	dest *outFile, format, backend string, problem model.Problem, path string) error {
	status := model.StoppedStatus(ctx)
	why := "interrupted"
	if status == model.StatusTimeLimit {
		why = fmt.Sprintf("time limit %v reached", limit)
	}
	fmt.Fprintf(e.stderr, "odt solve: %s before the solve (%v): no model\n", why, cause)
	res := &model.Result{Backend: backend, Problem: problem.Normalized(), Status: status, RelGap: 1,
		Seconds: time.Since(start).Seconds(), Incumbents: []model.Incumbent{},
		Stats: map[string]any{"stopped": fmt.Sprintf("%s before the solve: %v", why, cause)}}
	if format == "dot" {
		return fmt.Errorf("no model found (status %s); nothing to draw", status)
	}
	return dest.commit(func(w io.Writer) error {
		return printResult(w, format, res, &model.Dataset{Name: path})
	})
}

// isSet reports whether the flag was given on the command line.
func isSet(c *cmdFlags, name string) bool {
	set := false
	c.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// outputFormats lists the values a command's --format takes (nil for a
// command without one); the command checks its flag against this list and
// the completion scripts offer it.
func outputFormats(cmd string) []string {
	switch cmd {
	case "solve", "decode":
		return []string{"text", "json", "dot"}
	case "eval":
		return []string{"text", "json"}
	case "backends":
		return []string{"text", "markdown", "json"}
	}
	return nil
}

func checkFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usagef("--format %q: want %s", format, strings.Join(allowed, ", "))
}

// progress prints progress lines on stderr unless quiet.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	quiet bool
	start time.Time
}

func newProgress(w io.Writer, quiet bool) *progress {
	return &progress{w: w, quiet: quiet, start: time.Now()}
}

func (p *progress) printf(format string, a ...any) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "odt: [%8.3fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, a...))
}

// incumbent reports an improving model (the time is the selector's).
func (p *progress) incumbent(inc model.Incumbent) {
	if p.quiet {
		return
	}
	shape := ""
	if g := inc.Model; g != nil {
		shape = fmt.Sprintf(" (%s, depth %d, %d internal nodes)", g.Kind, g.Depth(), g.InternalNodes())
	}
	if inc.LowerBound > 0 {
		shape += ", lower bound " + fmtNum(inc.LowerBound)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "odt: [%8.3fs] incumbent objective %s%s\n", inc.Seconds, fmtNum(inc.Objective), shape)
}

func fmtNum(x float64) string { return fmt.Sprintf("%.10g", x) }

// printResult writes a result in the chosen format.
func printResult(w io.Writer, format string, res *model.Result, data *model.Dataset) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "dot":
		if res.Model == nil {
			return fmt.Errorf("no model found (status %s); nothing to draw", res.Status)
		}
		_, err := io.WriteString(w, res.Model.DOT())
		return err
	}
	fmt.Fprintf(w, "backend:     %s\n", res.Backend)
	if data.Features == nil {
		fmt.Fprintf(w, "data:        %s (not read to the end)\n", filepath.Base(data.Name))
	} else {
		fmt.Fprintf(w, "data:        %s (%d rows)\n", filepath.Base(data.Name), res.Rows)
	}
	fmt.Fprintf(w, "problem:     %s\n", describeProblem(res.Problem, res.Depth))
	fmt.Fprintf(w, "status:      %s (optimal: %v)\n", res.Status, res.Optimal)
	if res.Model != nil {
		fmt.Fprintf(w, "errors:      %d of %d (accuracy %.4f)\n", res.Errors, res.Rows, 1-float64(res.Errors)/float64(max(res.Rows, 1)))
		if res.Problem.LeafCost > 0 {
			fmt.Fprintf(w, "objective:   %s (errors/weight + %g × %d leaves)\n", fmtNum(res.Objective), res.Problem.LeafCost, res.Model.Leaves())
		} else {
			fmt.Fprintf(w, "objective:   %s\n", fmtNum(res.Objective))
		}
	}
	fmt.Fprintf(w, "lower bound: %s\n", fmtNum(res.LowerBound))
	if c := res.Certificate; res.Certified && c != nil {
		fmt.Fprintf(w, "certified:   true (%s: %d refutations checked in %.3fs, %d bytes of proof)\n", c.Dir, len(c.Bounds), c.CheckSeconds, c.ProofBytes)
	}
	if res.ClaimedBy != "" {
		claim := "infeasible"
		if res.ClaimedBound != nil {
			claim = "bound " + fmtNum(*res.ClaimedBound)
		}
		how := "not checked by odtkit; --opt trust-solver=true takes it as proven"
		if res.TrustedSolver {
			how = "taken as proven: trust-solver=true"
		}
		fmt.Fprintf(w, "claimed:     %s by %s (%s)\n", claim, res.ClaimedBy, how)
	}
	fmt.Fprintf(w, "time:        %.3fs\n", res.Seconds)
	writeEvaluations(w, res)
	if res.Model == nil {
		_, err := fmt.Fprintln(w, "model:       none found")
		return err
	}
	g := res.Model
	fmt.Fprintf(w, "model:       %s, depth %d, %d internal nodes, %d leaves\n\n", g.Kind, g.Depth(), g.InternalNodes(), g.Leaves())
	_, err := io.WriteString(w, g.Text())
	return err
}

// describeProblem states the problem with the maximum depth used: the
// depth asked for, and the smaller one searched when a larger one could
// not change the optimum (r, may be nil).
func describeProblem(p model.Problem, r *model.DepthReduction) string {
	depth := model.DescribeDepth(p, r)
	switch p.Objective {
	case model.MinDepth, model.MinSize, model.MinNodes:
		s := fmt.Sprintf("%s, %s", p.Objective, depth)
		if p.MaxNodes > 0 {
			s += fmt.Sprintf(", max internal nodes %d", p.MaxNodes)
		}
		return s
	case model.DiagramError:
		return fmt.Sprintf("diagram, skeleton %v, alpha %g", p.Skeleton, p.Alpha)
	}
	s := fmt.Sprintf("%s, %s, min support %d", p.Objective, depth, p.MinSupport)
	if p.MaxNodes > 0 {
		s += fmt.Sprintf(", max internal nodes %d", p.MaxNodes)
	}
	if p.LeafCost > 0 {
		s += fmt.Sprintf(", leaf cost %g", p.LeafCost)
	}
	return s
}
