package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/cmd/odt/internal/bench"
	"github.com/odtkit/odtkit/model"
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
	c.StringVar(&f.backend, "backend", "", "the backend `NAME` whose formulation is meant: sat-depth, sat-size (DIMACS), milp-odd, milp-odt or milp-flowoct (MPS, LP), sat-odt or sat-odd (WCNF, OPB), cp-odt (MiniZinc)")
	c.StringVar(&f.encoding, "encoding", "", "old name of --backend: `E` = depth, size, odd or odt")
	c.hidden["encoding"] = true
	// Of the exportable formulations only cp-odt's has a minimum leaf
	// support and the sparse objective; the others refuse them.
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
	if e, ok := b.(backend.Exporter); ok && !slices.Contains(backend.ExportFormats(e), format) {
		return "", p, nil, usagef("--to %s: backend %s writes %s", format, name, strings.Join(backend.ExportFormats(e), " or "))
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
		return "", model.Problem{}, nil, usagef("--backend is required (sat-depth, sat-size, sat-odt, sat-odd, milp-odd, milp-odt, milp-flowoct or cp-odt)")
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
		return "", p, nil, usagef("--backend %q: want sat-depth, sat-size, sat-odt, sat-odd, milp-odd, milp-odt, milp-flowoct or cp-odt", name)
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

func runExport(e env, args []string) error {
	c := newFlags("export", "odt export --to dimacs|mps|lp|wcnf|opb|mzn --backend NAME [flags] DATA -o FILE\n"+
		"       odt export --to FORMAT --backend NAME[,NAME...] --depth K[,K...] [flags] DATA... -o DIR",
		"Writes the formulation of a backend for an external solver: the CNF of Avellaneda's\n"+
			"encoding in DIMACS (sat-depth, sat-size: the formula of one depth, --depth K, with\n"+
			"the node limit --max-nodes N); a MILP in MPS or CPLEX LP (--to lp: human-readable,\n"+
			"named rows and columns; read by highs, cbc and glpsol --lp): the ODD flow MILP\n"+
			"(milp-odd on --skeleton, milp-odt at --depth K or on a skeleton) or FlowOCT\n"+
			"(milp-flowoct at --depth K; for min-depth/min-size the MILP of that one depth); or the\n"+
			"minimum-error tree of sat-odt at --depth K (or sat-odd's diagram) as weighted MaxSAT\n"+
			"(wcnf; --opt wcnf-form=2022 for the header-less form) or pseudo-Boolean (opb, with a\n"+
			"min: objective); or cp-odt's MiniZinc model with its data in one file (mzn: any\n"+
			"objective, --min-support, --leaf-cost, --max-nodes; minizinc --solver gecode runs it as it\n"+
			"is; for min-depth/min-size the complete tree of depth --depth). The file's comment header maps the\n"+
			"variables and repeats the odt decode command that reads the solver's answer back.\n"+
			"An existing FILE is replaced only when the export succeeds.\n\n"+
			"With several data files, backends or depths, -o names a folder: one file per data file,\n"+
			"backend and depth, named DATA-BACKEND-dK.FORMAT, and index.csv listing each with its size\n"+
			"(as its header states it) and its odt decode command (an instance family for other solvers).", 1, -1)
	var to, out string
	var ef encodingFlags
	c.StringVar(&to, "to", "", "output `format`: dimacs (sat-depth, sat-size), mps or lp (milp-odd, milp-odt, milp-flowoct), wcnf or opb (sat-odt, sat-odd), mzn (cp-odt) (required)")
	ef.declare(c)
	c.outFlag(&out, "write the formulation to `FILE` (required; - for stdout)")
	var memLimit int
	c.IntVar(&memLimit, "memory-limit", 0, "memory cap in `MB`: a formulation estimated larger is refused before it is built, and building stops at the cap (0 = 80% of the machine's memory)")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if memLimit < 0 {
		return usagef("--memory-limit must not be negative")
	}
	formats := exportFormats(odtkit.DefaultRegistry())
	if to == "" {
		return usagef("--to is required (%s)", orList(formats))
	}
	if !slices.Contains(formats, to) {
		return usagef("--to %q: want %s", to, orList(formats))
	}
	if out == "" {
		return usagef("--out/-o FILE is required (- for stdout)")
	}
	backends := bench.ParseList(ef.backend)
	depths := ef.pf.depth.vals
	if len(pos) > 1 || len(backends) > 1 || len(depths) > 1 {
		if ef.encoding != "" {
			return usagef("--encoding names one backend; give --backend A,B for several")
		}
		ef.pf.depth.vals = depths[:1]
		if !ef.pf.depth.set {
			depths = []int{bench.NoDepth}
		}
		ctx, intr, stop := interruptContext(context.Background(), e.stderr, "stopping the export, no file kept")
		defer stop()
		err := exportMany(ctx, intr, e, &ef, to, backends, depths, pos, out, memoryCapMB(memLimit, e.stderr))
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("%w: no file kept", errInterrupted)
		}
		return err
	}
	name, problem, opts, err := ef.request(to)
	if err != nil {
		return err
	}
	noteRespelled(e.stderr, "export", name, opts)
	// A first interrupt stops the export (no file is written: exit 130),
	// a second quits at once; either way the temporary file goes.
	ctx, intr, stop := interruptContext(context.Background(), e.stderr, "stopping the export, no file written")
	defer stop()
	dest, err := openOutput(out, e.stdout)
	if err != nil {
		return err
	}
	defer dest.discard()
	intr.atQuit(dest.discard)
	data, err := ef.df.readContext(ctx, pos[0])
	if err == nil {
		memCap := memoryCapMB(memLimit, e.stderr)
		setHeapLimit(memCap)
		s := odtkit.Settings{Backend: name, Options: opts, MemoryLimitMB: memCap}
		err = dest.commitStream(func(w io.Writer) error {
			_, err := odtkit.DefaultRegistry().ExportAs(ctx, ctxWriter{ctx, w}, data, problem, s, to)
			return err
		})
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: no file written", errInterrupted)
	}
	return err
}

// ctxWriter fails every write once ctx has ended, so that a writer of a
// long formulation that does not look at ctx itself stops at its next
// write.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.w.Write(p)
}

func runDecode(e env, args []string) error {
	c := newFlags("decode", "odt decode --backend NAME [flags] DATA SOLUTION",
		"Reads an external solver's answer for the formulation odt export wrote with the same\n"+
			"flags: a SAT solver's output (`s`/`v` lines, or minisat's result file) for sat-depth\n"+
			"and sat-size; the solution of HiGHS (--solution_file), CBC (solve solu FILE), GLPK\n"+
			"(glpsol -w FILE or -o FILE), Gurobi (.sol), SCIP (write solution), CPLEX (XML), or the\n"+
			"printed answer of lp_solve (-S4) or SYMPHONY (symphony -F), for milp-odd, milp-odt and\n"+
			"milp-flowoct, whether the solver read the MPS or the LP export; a MaxSAT or PB solver's\n"+
			"output (s/o/v lines: integer, 0/1 string or named literals; the last v block) or z3's\n"+
			"(z3 -model FILE) for sat-odt and sat-odd; MiniZinc's output (default or --output-mode json)\n"+
			"for cp-odt; the format is recognised from the content. An UNSAT answer of a SAT solver\n"+
			"is the solver's claim unless --proof gives its DRAT or LRAT proof, which odt checks.\n"+
			"It decodes the answer\n"+
			"into a model, verifies the model on DATA, and prints the result like odt solve.", 2, 2)
	var format, out, proof string
	var ef encodingFlags
	ef.declare(c)
	c.StringVar(&format, "format", "text", "output `format`: text, json or dot")
	c.StringVar(&proof, "proof", "", "the proof the SAT solver wrote of an UNSAT answer (sat-depth, sat-size, sat-dt1): `FILE` in DRAT (text or binary) or, named *.lrat, LRAT; checked, the answer's bound is proven, not the solver's claim (same as --opt proof=FILE)")
	c.outFlag(&out, "write the result to `FILE` instead of stdout")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if err := checkFormat(format, outputFormats("decode")...); err != nil {
		return err
	}
	name, problem, opts, err := ef.request("")
	if err != nil {
		return err
	}
	if proof != "" {
		if v, ok := opts["proof"]; ok && v != proof {
			return usagef("--proof %s and --opt proof=%s name two proofs: give one", proof, v)
		}
		opts["proof"] = proof
	}
	noteRespelled(e.stderr, "decode", name, opts)
	ctx, intr, stop := interruptContext(context.Background(), e.stderr, "stopping the decode, no result")
	defer stop()
	dest, err := openOutput(out, e.stdout)
	if err != nil {
		return err
	}
	defer dest.discard()
	intr.atQuit(dest.discard)
	data, err := ef.df.readContext(ctx, pos[0])
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", errInterrupted, err)
		}
		return err
	}
	sol, err := os.Open(pos[1])
	if err != nil {
		return err
	}
	defer sol.Close()
	res, err := odtkit.DefaultRegistry().Decode(ctx, sol, data, problem, odtkit.Settings{Backend: name, Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", errInterrupted, err)
		}
		if errors.Is(err, backend.ErrAnswer) {
			return fmt.Errorf("%s: %w", pos[1], err) // the message names the line
		}
		return err
	}
	if res.Model != nil {
		// As odt solve does: the leaves record the class counts of the
		// rows that reach them, which predict --proba reads.
		res.Model.SetCounts(data)
	}
	if res.ClaimedBy != "" {
		res.ClaimedBy = pos[1] + ", " + res.ClaimedBy // the file that claims it
	}
	return dest.commit(func(w io.Writer) error { return printResult(w, format, res, data) })
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
