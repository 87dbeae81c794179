package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/model"
)

// cmdFlags is a command's flag set with its usage text. Flags may come
// before or after the positional arguments; `--` ends the flags.
type cmdFlags struct {
	*flag.FlagSet
	usage   string            // "odt solve [flags] DATA"
	about   string            // one paragraph
	aliases map[string]string // short name -> long name (shown together)
	npos    [2]int            // least and most positional arguments (-1 = any)
}

func newFlags(name, usage, about string, minPos, maxPos int) *cmdFlags {
	fs := flag.NewFlagSet("odt "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &cmdFlags{FlagSet: fs, usage: usage, about: about, aliases: map[string]string{}, npos: [2]int{minPos, maxPos}}
}

// outFlag declares --out and its short form -o.
func (c *cmdFlags) outFlag(p *string, help string) {
	c.StringVar(p, "out", "", help)
	c.StringVar(p, "o", "", help)
	c.aliases["o"] = "out"
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
		if _, isAlias := c.aliases[f.Name]; isAlias {
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

// intList parses "1,2,2".
type intList struct {
	vals []int
	set  bool
}

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	s := make([]string, len(l.vals))
	for i, v := range l.vals {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(s string) error {
	l.vals, l.set = nil, true
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("%q is not a comma-separated list of integers", s)
		}
		l.vals = append(l.vals, v)
	}
	return nil
}

// dataFlags are the flags that say how to read a data file.
type dataFlags struct {
	label, weight, format string
}

func (d *dataFlags) declare(c *cmdFlags) {
	c.StringVar(&d.label, "label", "", "CSV label column, by `name` or 0-based index (default: the last column)")
	c.StringVar(&d.weight, "weight", "", "CSV column of positive row weights, by `name` or index")
	c.StringVar(&d.format, "data-format", "", "data file `format`: csv or text (default: csv for .csv files, text otherwise)")
}

// read reads a data file; every failure is bad input (exit code 2).
func (d *dataFlags) read(path string) (*model.Dataset, error) {
	var f model.Format
	switch strings.ToLower(d.format) {
	case "":
	case "csv":
		f = model.FormatCSV
	case "text", "txt", "dl8", "dl85":
		f = model.FormatText
	default:
		return nil, usagef("--data-format %q: want csv or text", d.format)
	}
	ds, err := model.ReadFile(path, model.ReadOptions{Format: f, Label: d.label, Weight: d.weight})
	if err != nil {
		return nil, badInput(err)
	}
	return ds, nil
}

// problemFlags are the flags that state a model.Problem.
type problemFlags struct {
	objective  string
	depth      int
	minSupport int
	maxNodes   int
	alpha      float64
	skeleton   intList
}

func (p *problemFlags) declare(c *cmdFlags, withSupport bool) {
	c.StringVar(&p.objective, "objective", "", "what to optimise: `error`, min-depth, min-size or diagram (default: the backend's main objective)")
	c.IntVar(&p.depth, "depth", 3, "maximum tree depth `K`")
	if withSupport {
		c.IntVar(&p.minSupport, "min-support", 1, "least number of rows `N` in a leaf")
	}
	c.IntVar(&p.maxNodes, "max-nodes", 0, "maximum number of nodes `N` (0 = no bound)")
	c.Float64Var(&p.alpha, "alpha", 0, "weight `A` of the number of internal nodes in the diagram objective")
	c.Var(&p.skeleton, "skeleton", "diagram layer widths, e.g. `1,2,2` (implies --objective diagram)")
}

func (p *problemFlags) problem() (model.Problem, error) {
	pr := model.Problem{MaxDepth: p.depth, MinSupport: p.minSupport, MaxNodes: p.maxNodes, Alpha: p.alpha}
	switch model.Objective(p.objective) {
	case "", model.MinError, model.MinDepth, model.MinSize, model.DiagramError:
		pr.Objective = model.Objective(p.objective)
	default:
		return pr, usagef("--objective %q: want error, min-depth, min-size or diagram", p.objective)
	}
	if p.depth < 0 {
		return pr, usagef("--depth %d is negative", p.depth)
	}
	if p.minSupport < 0 {
		return pr, usagef("--min-support %d is negative", p.minSupport)
	}
	if p.maxNodes < 0 {
		return pr, usagef("--max-nodes %d is negative", p.maxNodes)
	}
	if p.alpha < 0 || p.alpha != p.alpha {
		return pr, usagef("--alpha %v must be non-negative", p.alpha)
	}
	if p.skeleton.set {
		if pr.Objective != "" && pr.Objective != model.DiagramError {
			return pr, usagef("--skeleton is for --objective diagram, not %s", pr.Objective)
		}
		pr.Objective = model.DiagramError
		pr.Skeleton = p.skeleton.vals
	}
	return pr, nil
}

// output opens the destination of a command's result: the --out file or
// stdout. The returned close function must be called once and reports
// write errors.
func output(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// writeResult writes to the --out file or stdout.
func writeResult(path string, stdout io.Writer, write func(w io.Writer) error) error {
	w, closeFn, err := output(path, stdout)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	werr := write(&buf)
	if werr == nil {
		_, werr = w.Write(buf.Bytes())
	}
	if cerr := closeFn(); werr == nil {
		werr = cerr
	}
	return werr
}
