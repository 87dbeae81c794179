package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/learn"
	"github.com/odtkit/odtkit/model"
)

// cmdFlags is a command's flag set with its usage text. Flags may come
// before or after the positional arguments; `--` ends the flags.
type cmdFlags struct {
	*flag.FlagSet
	usage   string            // "odt solve [flags] DATA"
	about   string            // one paragraph
	aliases map[string]string // short name -> long name (shown together)
	hidden  map[string]bool   // flags still accepted but not shown (old names)
	npos    [2]int            // least and most positional arguments (-1 = any)
}

func newFlags(name, usage, about string, minPos, maxPos int) *cmdFlags {
	fs := flag.NewFlagSet("odt "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &cmdFlags{FlagSet: fs, usage: usage, about: about, aliases: map[string]string{}, hidden: map[string]bool{}, npos: [2]int{minPos, maxPos}}
}

// outFlag declares --out and its short form -o.
func (c *cmdFlags) outFlag(p *string, help string) {
	c.StringVar(p, "out", "", help)
	c.StringVar(p, "o", "", help)
	c.aliases["o"] = "out"
}

// durationVar declares a duration flag whose refusal of a value says
// what a duration looks like (a bare number has no unit).
func (c *cmdFlags) durationVar(p *time.Duration, name string, def time.Duration, help string) {
	*p = def
	c.Var((*durationFlag)(p), name, help)
}

// durationFlag is a time.Duration flag value.
type durationFlag time.Duration

func (d *durationFlag) String() string {
	if d == nil {
		return ""
	}
	return time.Duration(*d).String()
}

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if _, nerr := strconv.ParseFloat(strings.TrimSpace(s), 64); nerr == nil && strings.TrimSpace(s) != "0" {
			return fmt.Errorf("a duration needs a unit, e.g. %ss or %sm", strings.TrimSpace(s), strings.TrimSpace(s))
		}
		return errors.New("not a duration: want a number with a unit, e.g. 5s, 2m, 1h30m")
	}
	*d = durationFlag(v)
	return nil
}

// quietFlag declares --quiet and -q.
func (c *cmdFlags) quietFlag(p *bool) {
	c.BoolVar(p, "quiet", false, "no progress messages on stderr")
	c.BoolVar(p, "q", false, "no progress messages on stderr")
	c.aliases["q"] = "quiet"
}

// printUsage writes the command's help.
func (c *cmdFlags) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", c.usage, c.about)
	short := map[string]string{}
	for s, l := range c.aliases {
		short[l] = s
	}
	c.VisitAll(func(f *flag.Flag) {
		if _, isAlias := c.aliases[f.Name]; isAlias || c.hidden[f.Name] {
			return
		}
		arg, help := flag.UnquoteUsage(f)
		names := "--" + f.Name
		if s, ok := short[f.Name]; ok {
			names = "-" + s + ", " + names
		}
		if arg != "" {
			names += " " + strings.ToUpper(arg)
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" && f.DefValue != "0s" {
			def = " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  %s\n      %s%s\n", names, help, def)
	})
	fmt.Fprintf(w, "  -h, --help\n      show this help\n")
}

// parse parses args, allowing flags after positional arguments, and
// returns the positional arguments. --help prints the usage to w and
// returns errHelpShown.
func (c *cmdFlags) parse(w io.Writer, args []string) ([]string, error) {
	var pos []string
	for {
		before := len(args)
		err := c.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(w)
			return nil, errHelpShown
		}
		if err != nil {
			return nil, usagef("%v (see %s --help)", err, c.Name())
		}
		rest := c.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := before - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) < c.npos[0] || (c.npos[1] >= 0 && len(pos) > c.npos[1]) {
		switch {
		case len(pos) == 0:
			return nil, usagef("missing arguments: usage: %s", c.usage)
		case len(pos) < c.npos[0]:
			return nil, usagef("too few arguments (%s): usage: %s", strings.Join(pos, " "), c.usage)
		default:
			return nil, usagef("too many arguments (%s): usage: %s", strings.Join(pos, " "), c.usage)
		}
	}
	return pos, nil
}

// optFlag collects repeated --opt key=value flags.
type optFlag struct{ opts odtkit.Options }

func (o *optFlag) String() string {
	if o == nil || len(o.opts) == 0 {
		return ""
	}
	keys := make([]string, 0, len(o.opts))
	for k := range o.opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+o.opts[k])
	}
	return strings.Join(parts, ",")
}

func (o *optFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	if o.opts == nil {
		o.opts = odtkit.Options{}
	}
	o.opts[k] = v
	return nil
}

// dataFlags are the flags that say how to read a data file.
type dataFlags struct {
	label, weight, format string
	categorical           columnsFlag
}

func (d *dataFlags) declare(c *cmdFlags) {
	c.StringVar(&d.label, "label", "", "CSV label column, by `name` or 0-based index (default: the last column)")
	c.StringVar(&d.weight, "weight", "", "CSV column of positive row weights, by `name` or index")
	c.StringVar(&d.format, "data-format", "", "data file `format`: csv or text (default: csv for .csv files, text otherwise)")
	c.Var(&d.categorical, "categorical", "read the CSV `COLUMNS` (names or 0-based indices, comma-separated; repeatable) as categories: every value is a level, ? and empty cells included (elsewhere a ? or empty cell is an error)")
}

// columnsFlag is a repeatable flag of comma-separated column names; a
// value that is itself a name with a comma can be given by index.
type columnsFlag []string

func (c *columnsFlag) String() string {
	if c == nil {
		return ""
	}
	return strings.Join(*c, ",")
}

func (c *columnsFlag) Set(s string) error {
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name == "" {
			return fmt.Errorf("%q: an empty column name", s)
		}
		*c = append(*c, name)
	}
	return nil
}

// read reads a data file; every failure is bad input (exit code 2). A
// first SIGINT or SIGTERM while reading (a named pipe nobody writes to)
// stops it with errInterrupted (exit code 130).
func (d *dataFlags) read(path string) (*model.Dataset, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ds, err := d.readContext(ctx, path)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %w", errInterrupted, err)
	}
	return ds, err
}

// readContext is read under a context: a read stopped by ctx returns the
// reader's error (wrapping the context's cause), not bad input.
func (d *dataFlags) readContext(ctx context.Context, path string) (*model.Dataset, error) {
	opt, err := d.options()
	if err != nil {
		return nil, err
	}
	return readDataFile(ctx, path, opt)
}

// options are the read options the flags give.
func (d *dataFlags) options() (model.ReadOptions, error) {
	var f model.Format
	switch strings.ToLower(d.format) {
	case "":
	case "csv":
		f = model.FormatCSV
	case "text", "txt", "dl8", "dl85":
		f = model.FormatText
	default:
		return model.ReadOptions{}, usagef("--data-format %q: want csv or text", d.format)
	}
	return model.ReadOptions{Format: f, Label: d.label, Weight: d.weight, Categorical: d.categorical}, nil
}

// readDataFile reads a data file; every failure but a stop by ctx is bad
// input.
func readDataFile(ctx context.Context, path string, opt model.ReadOptions) (*model.Dataset, error) {
	ds, err := model.ReadFileContext(ctx, path, opt)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Cause(ctx)) {
			return nil, err
		}
		return nil, badInput(err)
	}
	return ds, nil
}

// listFlag is a flag holding a comma-separated list (of ints or floats,
// through parse) or, for skeletons, a ':'-separated list of lists; its
// String shows the default.
type listFlag[T any] struct {
	vals  []T
	set   bool
	parse func(string) ([]T, error)
	show  string
}

func (l *listFlag[T]) String() string {
	if l == nil {
		return ""
	}
	return l.show
}

func (l *listFlag[T]) Set(s string) error {
	v, err := l.parse(s)
	if err != nil {
		return err
	}
	l.vals, l.set, l.show = v, true, s
	return nil
}

func intsFlag(def int) *listFlag[int] {
	return &listFlag[int]{vals: []int{def}, show: strconv.Itoa(def), parse: func(s string) ([]int, error) {
		var out []int
		for _, p := range strings.Split(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil {
				return nil, fmt.Errorf("%q is not an integer or a comma-separated list of integers", s)
			}
			out = append(out, v)
		}
		return out, nil
	}}
}

// problemFlags are the flags that state a model.Problem. With lists
// (odt solve), --depth, --min-support, --alpha and --skeleton take a grid
// of values to tune over; otherwise one value each.
type problemFlags struct {
	objective  string
	depth      *listFlag[int]
	minSupport *listFlag[int]
	maxNodes   int
	alpha      *listFlag[float64]
	leafCost   *listFlag[float64]
	skeleton   *listFlag[[]int]
	lists      bool
	// noLeafCost leaves --leaf-cost undeclared (export and decode: no
	// exportable formulation has the sparse objective).
	noLeafCost bool
}

func (p *problemFlags) declare(c *cmdFlags, withSupport bool) {
	p.depth, p.minSupport = intsFlag(3), intsFlag(1)
	p.alpha = &listFlag[float64]{vals: []float64{0}, show: "0", parse: learn.ParseFloats}
	p.leafCost = &listFlag[float64]{vals: []float64{0}, show: "0", parse: learn.ParseFloats}
	p.skeleton = &listFlag[[]int]{parse: learn.ParseSkeletons}
	many := ""
	if p.lists {
		many = " (a comma-separated list tunes over its values)"
	}
	c.StringVar(&p.objective, "objective", "", "`objective` to optimise: error, min-depth, min-size, min-nodes or diagram (default: the backend's main objective)")
	c.Var(p.depth, "depth", "maximum depth `K` for every objective (0: a single leaf); default 3 for the error objective, no limit for min-depth, min-size and min-nodes"+many)
	if withSupport {
		c.Var(p.minSupport, "min-support", "least number of rows `N` in a leaf"+many)
	}
	c.IntVar(&p.maxNodes, "max-nodes", 0, "maximum number of internal (test) nodes `N` of the model, for every backend (0 = no bound)")
	if !p.noLeafCost {
		c.Var(p.leafCost, "leaf-cost", "sparse error objective: errors/rows + `lambda` × leaves (0 = plain error)"+many)
	}
	c.Var(p.alpha, "alpha", "weight `A` of the number of internal nodes in the diagram objective"+many)
	sk := "diagram layer widths, e.g. `1,2,2` (implies --objective diagram)"
	if p.lists {
		sk += "; several separated by ':' (1,2,2:1,2,4) tune over them"
	}
	c.Var(p.skeleton, "skeleton", sk)
}

// problem returns the problem stated by the flags (the first value of
// each list).
func (p *problemFlags) problem() (model.Problem, error) {
	if !p.lists {
		for name, n := range map[string]int{"--depth": len(p.depth.vals), "--min-support": len(p.minSupport.vals),
			"--alpha": len(p.alpha.vals), "--skeleton": len(p.skeleton.vals), "--leaf-cost": len(p.leafCost.vals)} {
			if n > 1 {
				return model.Problem{}, usagef("%s takes one value here, not a list", name)
			}
		}
	}
	for _, d := range p.depth.vals {
		if d < 0 {
			return model.Problem{}, usagef("--depth %d is negative", d)
		}
	}
	for _, m := range p.minSupport.vals {
		if m < 0 {
			return model.Problem{}, usagef("--min-support %d is negative", m)
		}
	}
	if err := checkLeafCosts(p.leafCost.vals); err != nil {
		return model.Problem{}, err
	}
	pr := model.Problem{MaxDepth: p.depth.vals[0], MinSupport: p.minSupport.vals[0], MaxNodes: p.maxNodes, Alpha: p.alpha.vals[0], LeafCost: p.leafCost.vals[0]}
	switch model.Objective(p.objective) {
	case "", model.MinError, model.MinDepth, model.MinSize, model.MinNodes, model.DiagramError:
		pr.Objective = model.Objective(p.objective)
	default:
		return pr, usagef("--objective %q: want error, min-depth, min-size, min-nodes or diagram", p.objective)
	}
	if p.maxNodes < 0 {
		return pr, usagef("--max-nodes %d is negative", p.maxNodes)
	}
	if p.skeleton.set {
		if pr.Objective != "" && pr.Objective != model.DiagramError {
			return pr, usagef("--skeleton is for --objective diagram, not %s", pr.Objective)
		}
		pr.Objective = model.DiagramError
		pr.Skeleton = p.skeleton.vals[0]
	}
	return pr, nil
}

// checkLeafCosts refuses a --leaf-cost value that is negative, NaN or
// infinite (a usage error: exit 2).
func checkLeafCosts(vals []float64) error {
	for _, l := range vals {
		if !(l >= 0) || math.IsInf(l, 1) {
			return usagef("--leaf-cost %v: want a finite non-negative number", l)
		}
	}
	return nil
}

// forBackend states the objective (the backend's main one when the flags
// name none; the error objective for auto) and gives a problem whose
// objective is not the error of a depth-bounded tree no depth cap unless
// --depth was given: --depth is the maximum depth for every objective
// (0: a single leaf), 3 by default for the error objective only.
func (p *problemFlags) forBackend(pr model.Problem, backendName string) model.Problem {
	obj := pr.Objective
	if obj == "" && backendName != "" && backendName != "auto" {
		if b, ok := odtkit.DefaultRegistry().Get(backendName); ok && len(b.Info().Objectives) > 0 {
			obj = b.Info().Objectives[0]
		}
	}
	if obj == "" {
		obj = model.MinError
	}
	pr.Objective = obj
	if !p.depth.set && obj != model.MinError {
		pr.MaxDepth = model.NoDepthLimit
	}
	return pr
}

// grid returns the lists of values to tune over (odt solve).
func (p *problemFlags) grid() learn.Grid {
	g := learn.Grid{MinSupports: p.minSupport.vals, Alphas: p.alpha.vals, LeafCosts: p.leafCost.vals}
	if p.depth.set {
		// The default depth is in the base problem where it applies
		// (forBackend); a grid entry would put it back for min-depth,
		// min-size and diagram backends.
		g.Depths = p.depth.vals
	}
	if p.skeleton.set {
		g.Skeletons = p.skeleton.vals
	}
	return g
}

// noteRespelled prints on w a note for every deprecated spelling among
// the options of the named backend (backend.Info.Respell), which the
// backend still takes; an unknown backend or "auto" has none to note.
func noteRespelled(w io.Writer, cmd, name string, opts map[string]string) {
	b, ok := odtkit.DefaultRegistry().Get(name)
	if !ok {
		return
	}
	_, notes := b.Info().Respell(opts)
	for _, n := range notes {
		fmt.Fprintf(w, "odt %s: note: %s\n", cmd, n)
	}
}
