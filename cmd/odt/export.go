package main

import (
	"fmt"
	"io"
	"os"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/model"
)

// exportRequest is what `odt export` hands to a format's exporter.
// Problem holds the flags as given: MinSupport is at least 1, and
// Objective is empty unless --objective or --skeleton (→ diagram) was
// given, so the exporter picks its encoding's natural objective.
type exportRequest struct {
	Data     *model.Dataset
	Encoding string         // --encoding: depth | odd | odt
	Problem  model.Problem  // --depth, --max-nodes, --skeleton, --alpha, ...
	Options  odtkit.Options // --opt key=value
	Out      io.Writer      // --out/-o file (required)
}

// decodeRequest is what `odt decode` hands to a format's decoder.
type decodeRequest struct {
	Data     *model.Dataset
	Encoding string
	Problem  model.Problem
	Options  odtkit.Options
	Solution io.Reader // the solver output file (positional arg after DATA)
}

// encodingFlags are the flags shared by export and decode.
type encodingFlags struct {
	encoding string
	df       dataFlags
	pf       problemFlags
	opts     optFlag
}

func (f *encodingFlags) declare(c *cmdFlags) {
	c.StringVar(&f.encoding, "encoding", "", "the `encoding`: depth (SAT, Avellaneda's depth encoding), odd (MILP decision diagram) or odt (MILP tree) (required)")
	f.pf.declare(c, true)
	f.df.declare(c)
	c.Var(&f.opts, "opt", "encoding option `key=value` (repeatable)")
}

func (f *encodingFlags) check() (model.Problem, odtkit.Options, error) {
	switch f.encoding {
	case "depth", "odd", "odt":
	case "":
		return model.Problem{}, nil, usagef("--encoding is required (depth, odd or odt)")
	default:
		return model.Problem{}, nil, usagef("--encoding %q: want depth, odd or odt", f.encoding)
	}
	p, err := f.pf.problem()
	if err != nil {
		return p, nil, err
	}
	opts := odtkit.Options{}
	for k, v := range f.opts.opts {
		opts[k] = v
	}
	return p, opts, nil
}

func runExport(e env, args []string) error {
	c := newFlags("export", "odt export --to dimacs|mps --encoding E [flags] DATA -o FILE",
		"Writes the encoding of a problem on DATA for an external solver: a CNF in DIMACS\n"+
			"(--to dimacs, --encoding depth) or a MILP in MPS (--to mps, --encoding odd or odt).\n"+
			"Solve it with any solver, then read the answer back with odt decode.", 1, 1)
	var to, out string
	var ef encodingFlags
	c.StringVar(&to, "to", "", "output `format`: dimacs or mps (required)")
	ef.declare(c)
	c.outFlag(&out, "write the encoding to `FILE` (required)")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	var export func(exportRequest) error
	switch to {
	case "dimacs":
		export = exportDIMACS
	case "mps":
		export = exportMPS
	case "":
		return usagef("--to is required (dimacs or mps)")
	default:
		return usagef("--to %q: want dimacs or mps", to)
	}
	if out == "" || out == "-" {
		return usagef("--out/-o FILE is required")
	}
	problem, opts, err := ef.check()
	if err != nil {
		return err
	}
	data, err := ef.df.read(pos[0])
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	err = export(exportRequest{Data: data, Encoding: ef.encoding, Problem: problem, Options: opts, Out: f})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out) // no half-written encodings
		return err
	}
	return nil
}

func runDecode(e env, args []string) error {
	c := newFlags("decode", "odt decode --encoding E [flags] DATA SOLVER_OUTPUT",
		"Reads a SAT solver's output (a model line `v ...` or a `SAT` / assignment file) for the\n"+
			"encoding odt export wrote with the same flags, decodes it into a model, verifies the\n"+
			"model on DATA, and prints the result like odt solve.", 2, 2)
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
	problem, opts, err := ef.check()
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
	res, err := decodeDIMACS(decodeRequest{Data: data, Encoding: ef.encoding, Problem: problem, Options: opts, Solution: sol})
	if err != nil {
		return err
	}
	if res == nil {
		return fmt.Errorf("decoding %s gave no result", pos[1])
	}
	// Verify against the problem the decoder states, or the one asked for.
	p := res.Problem
	if p.Objective == "" {
		p = problem.Normalized()
		if p.Objective == "" {
			p.Objective = model.MinError
		}
		res.Problem = p
	}
	if res.Backend == "" {
		res.Backend = "decode:" + ef.encoding
	}
	res.Rows = data.Rows()
	if res.Incumbents == nil {
		res.Incumbents = []model.Incumbent{}
	}
	if res.Model != nil {
		if err := odtkit.Verify(data, p, res); err != nil {
			return err
		}
	}
	return writeResult(out, e.stdout, func(w io.Writer) error { return printResult(w, format, res, data) })
}
