package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// encodingFlags are the flags shared by export and decode.
type encodingFlags struct {
	backend  string
	encoding string // old name of --backend
	df       dataFlags
	pf       problemFlags
	opts     optFlag
}

// encodingNames are the old --encoding values; the registry resolves
// them as aliases of the backends.
var encodingNames = map[string]string{"depth": "sat-depth", "size": "sat-size", "odd": "milp-odd", "odt": "milp-odt"}

func (f *encodingFlags) declare(c *cmdFlags) {
	c.StringVar(&f.backend, "backend", "", "the backend `NAME` whose formulation is meant: sat-depth, sat-size (DIMACS), milp-odd or milp-odt (MPS)")
	c.StringVar(&f.encoding, "encoding", "", "old name of --backend: `E` = depth, size, odd or odt")
	f.pf.declare(c, true)
	f.df.declare(c)
	c.Var(&f.opts, "opt", "backend option `key=value` (repeatable; odt backends lists them)")
}

// request resolves the flags into the backend's name, the problem and
// the options. format is --to ("" when not given, or for decode).
func (f *encodingFlags) request(format string) (string, model.Problem, map[string]string, error) {
	name, p, opts, err := f.resolve(format)
	if err != nil || format == "" {
		return name, p, opts, err
	}
	b, _ := odtkit.DefaultRegistry().Get(name)
	if e, ok := b.(backend.Exporter); ok && e.ExportFormat() != format {
		return "", p, nil, usagef("--to %s: backend %s writes %s", format, name, e.ExportFormat())
	}
	return name, p, opts, nil
}

func (f *encodingFlags) resolve(format string) (string, model.Problem, map[string]string, error) {
	name := f.backend
	if f.encoding != "" {
		if name != "" {
			return "", model.Problem{}, nil, usagef("give --backend or its old name --encoding, not both")
		}
		name = f.encoding
	}
	if n, ok := encodingNames[name]; ok {
		name = n
	}
	if name == "" {
		return "", model.Problem{}, nil, usagef("--backend is required (sat-depth, sat-size, milp-odd or milp-odt)")
	}
	p, err := f.pf.problem()
	if err != nil {
		return "", p, nil, err
	}
	opts := map[string]string{}
	for k, v := range f.opts.opts {
		opts[k] = v
	}
	b, ok := odtkit.DefaultRegistry().Get(name)
	if !ok {
		return "", p, nil, usagef("--backend %q: want sat-depth, sat-size, milp-odd or milp-odt", name)
	}
	obj := p.Objective
	if obj == "" && len(b.Info().Objectives) > 0 {
		obj = b.Info().Objectives[0]
	}
	if obj != model.MinDepth && obj != model.MinSize {
		p = f.pf.forBackend(p, name)
	} else {
		p.Objective = obj // a SAT formula is for one depth, --depth (3 by default)
	}
	return name, p, opts, nil
}

// interruptible returns a context cancelled by Ctrl-C, so that a long
// encoding stops and its temporary file is removed.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

func runExport(e env, args []string) error {
	c := newFlags("export", "odt export --to dimacs|mps --backend NAME [flags] DATA -o FILE",
		"Writes the formulation of a backend for an external solver: the CNF of Avellaneda's\n"+
			"encoding in DIMACS (sat-depth, sat-size: the formula of one depth, --depth K, with\n"+
			"the node limit --max-nodes N) or the ODD flow MILP in MPS (milp-odd on --skeleton,\n"+
			"milp-odt at --depth K or on a skeleton). The file's comment header maps the\n"+
			"variables and repeats the odt decode command that reads the solver's answer back.\n"+
			"An existing FILE is replaced only when the export succeeds.", 1, 1)
	var to, out string
	var ef encodingFlags
	c.StringVar(&to, "to", "", "output `format`: dimacs (sat-depth, sat-size) or mps (milp-odd, milp-odt) (required)")
	ef.declare(c)
	c.outFlag(&out, "write the formulation to `FILE` (required)")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	switch to {
	case "dimacs", "mps":
	case "":
		return usagef("--to is required (dimacs or mps)")
	default:
		return usagef("--to %q: want dimacs or mps", to)
	}
	if out == "" || out == "-" {
		return usagef("--out/-o FILE is required")
	}
	name, problem, opts, err := ef.request(to)
	if err != nil {
		return err
	}
	data, err := ef.df.read(pos[0])
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	s := odtkit.Settings{Backend: name, Options: opts}
	return writeAtomically(out, func(w io.Writer) error {
		_, err := odtkit.DefaultRegistry().Export(ctx, w, data, problem, s)
		return err
	})
}

// writeAtomically writes a file through a temporary file in the same
// directory, renamed over path only when write succeeds: a failed or
// interrupted export leaves an existing file as it was. A path that
// exists and is not a regular file (/dev/null, a pipe) is written to
// directly.
func writeAtomically(path string, write func(w io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func runDecode(e env, args []string) error {
	c := newFlags("decode", "odt decode --backend NAME [flags] DATA SOLUTION",
		"Reads an external solver's answer for the formulation odt export wrote with the same\n"+
			"flags: a SAT solver's output (`s`/`v` lines, or minisat's result file) for sat-depth\n"+
			"and sat-size; the solution file of HiGHS (--solution_file), CBC (solve solu FILE) or\n"+
			"GLPK (glpsol -w FILE or -o FILE) for milp-odd and milp-odt. It decodes the answer\n"+
			"into a model, verifies the model on DATA, and prints the result like odt solve.", 2, 2)
	var format, out string
	var ef encodingFlags
	ef.declare(c)
	c.StringVar(&format, "format", "text", "output `format`: text, json or dot")
	c.outFlag(&out, "write the result to `FILE` instead of stdout")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if err := checkFormat(format, "text", "json", "dot"); err != nil {
		return err
	}
	name, problem, opts, err := ef.request("")
	if err != nil {
		return err
	}
	data, err := ef.df.read(pos[0])
	if err != nil {
		return err
	}
	sol, err := os.Open(pos[1])
	if err != nil {
		return err
	}
	defer sol.Close()
	ctx, stop := interruptible()
	defer stop()
	res, err := odtkit.DefaultRegistry().Decode(ctx, sol, data, problem, odtkit.Settings{Backend: name, Options: opts})
	if err != nil {
		if errors.Is(err, milp.ErrSolution) || errors.Is(err, sat.ErrOutput) {
			return fmt.Errorf("%s: %w", pos[1], err) // the message names the line
		}
		return err
	}
	return writeResult(out, e.stdout, func(w io.Writer) error { return printResult(w, format, res, data) })
}
