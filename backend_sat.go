package odtkit

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/odtkit/odtkit/dp"
	"github.com/odtkit/odtkit/encode/avellaneda"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// satBackend runs Avellaneda's incremental SAT encoding: DT_depth for
// sat-depth, DT_depth then DT_size for sat-size.
type satBackend struct {
	size bool
}

func satParams() []Param {
	return append([]Param{
		{Name: "sat-solver", Default: "gini", Help: `SAT solver: gini (in process) or external:"CMD ARGS" (any DIMACS solver; {in}/{out} placeholders, e.g. external:"minisat {in} {out}")`},
		{Name: "batch", Default: "1", Help: "misclassified examples added to the formula per iteration of the incremental loop"},
		{Name: "size-search", Default: "descend", Help: "sat-size: descend (bound = best tree's leaves − 1 until refuted) or bisect (the paper's bisection on the number of leaves)"},
	}, satEncodingParams()...)
}

// satEncodingParams are the options that shape the formula; odt export
// --to dimacs and odt decode accept exactly these.
func satEncodingParams() []Param {
	return []Param{
		{Name: "drop-conflicts", Default: "false", Help: "drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"},
		{Name: "amo", Default: "none", Help: "at-most-one feature per node: none (implied by the example clauses), sequential or pairwise"},
		{Name: "counter", Default: "totalizer", Help: "node limit's count of labelled leaves: totalizer (along the tree) or sequential (the paper's clauses 8-10)"},
		{Name: "clauses", Default: "order", Help: "example clauses (3)-(4): order (one clause per numeric column and node through order variables) or paper (one per threshold)"},
		{Name: "symmetry", Default: "false", Help: "node limit: restrict to the canonical perfect trees of Theorem 2 (dummy nodes repeat the root's test); off by default: not faster on the inferdt rows"},
	}
}

// SATEncodingOptions reads the options that shape Avellaneda's formula
// (amo, counter, clauses, symmetry) and drop-conflicts, rejecting any
// other key; the DIMACS export and its decoding use it.
func SATEncodingOptions(o Options) (avellaneda.Options, bool, error) {
	var eo avellaneda.Options
	known := map[string]bool{}
	for _, p := range satEncodingParams() {
		known[p.Name] = true
	}
	for k := range o {
		if !known[k] {
			var names []string
			for _, p := range satEncodingParams() {
				names = append(names, p.Name)
			}
			return eo, false, fmt.Errorf("unknown option %q for the depth encoding (known: %s)", k, strings.Join(names, ", "))
		}
	}
	return satEncoding(o)
}

func satEncoding(o Options) (avellaneda.Options, bool, error) {
	var eo avellaneda.Options
	drop, err := o.Bool("drop-conflicts", false)
	if err != nil {
		return eo, false, err
	}
	if eo.AMO, err = avellaneda.ParseAMO(o.String("amo", "none")); err != nil {
		return eo, false, fmt.Errorf("option amo: %w", err)
	}
	if eo.Counter, err = avellaneda.ParseCounter(o.String("counter", "totalizer")); err != nil {
		return eo, false, fmt.Errorf("option counter: %w", err)
	}
	switch c := o.String("clauses", "order"); c {
	case "order":
	case "paper":
		eo.PaperClauses = true
	default:
		return eo, false, fmt.Errorf("option clauses=%q: want order or paper", c)
	}
	sym, err := o.Bool("symmetry", false)
	if err != nil {
		return eo, false, err
	}
	eo.Symmetry = sym
	return eo, drop, nil
}

func (b satBackend) Info() Info {
	if b.size {
		return Info{
			Name:        "sat-size",
			Description: "fewest nodes among the minimum-depth trees with no training error: Avellaneda's incremental SAT encoding (DT_size)",
			Objectives:  []model.Objective{model.MinSize},
			Input:       "binary view",
			Exact:       true,
			Anytime:     true,
			Params:      satParams(),
		}
	}
	return Info{
		Name:        "sat-depth",
		Description: "minimum depth of a tree with no training error: Avellaneda's incremental SAT encoding (DT_depth)",
		Objectives:  []model.Objective{model.MinDepth},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Params:      satParams(),
	}
}

// satSettings reads the backend options.
func satSettings(o Options) (avellaneda.Settings, bool, error) {
	var s avellaneda.Settings
	spec := o.String("sat-solver", "gini")
	if err := sat.CheckSpec(spec); err != nil {
		return s, false, err
	}
	s.NewSolver = func() (sat.Solver, error) { return sat.NewSolver(spec) }
	eo, drop, err := satEncoding(o)
	if err != nil {
		return s, false, err
	}
	s.DropConflicts = drop
	s.AMO, s.Counter, s.PaperClauses, s.Symmetry = eo.AMO, eo.Counter, eo.PaperClauses, eo.Symmetry
	if s.Batch, err = o.Int("batch", 1); err != nil {
		return s, false, err
	}
	if s.Batch < 1 {
		return s, false, fmt.Errorf("option batch=%d: must be at least 1", s.Batch)
	}
	switch v := o.String("size-search", "descend"); v {
	case "descend":
	case "bisect":
		s.Bisect = true
	default:
		return s, false, fmt.Errorf("option size-search=%q: want descend or bisect", v)
	}
	return s, drop, nil
}

func (b satBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	s, drop, err := satSettings(job.Options)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	p, err := avellaneda.Prepare(job.Data, drop)
	if err != nil {
		return nil, err
	}
	prepSeconds := time.Since(start).Seconds()
	s.Report = job.Report
	// A greedy tree grown to purity is a first incumbent for the depth
	// (not for the size: its depth may exceed the minimum).
	var cart *model.Graph
	if g, werr := dp.CART(ctx, p.View, -1, dp.CARTSettings{}); werr == 0 && g.Errors(job.Data) == p.Dropped && p.Dropped == 0 {
		cart = g
		if !b.size {
			job.Report.Report(float64(g.Depth()), g)
		}
	}
	var out *avellaneda.Outcome
	if b.size {
		out, err = avellaneda.MinSize(ctx, p, s)
	} else {
		out, err = avellaneda.MinDepth(ctx, p, s)
	}
	if err != nil {
		return nil, err
	}
	res := &model.Result{Stats: map[string]any{
		"binary_tests":      p.View.NumTests(),
		"tests_used":        len(p.Tests),
		"distinct_rows":     len(p.Reps),
		"examples_used":     out.Examples,
		"solver_calls":      out.Iterations,
		"clauses":           out.Clauses,
		"variables":         out.Vars,
		"conflicts_dropped": out.Dropped,
		"seconds_prepare":   prepSeconds,
	}}
	g := out.Tree
	res.LowerBound = float64(out.DepthLB)
	if b.size {
		res.LowerBound = float64(max(2*out.DepthLB+1, 2*out.LeavesLB-1))
	}
	if g == nil && cart != nil {
		g = cart
	}
	if out.TimedOut {
		// gini stops at the deadline, possibly a moment before ctx says so.
		res.Status = model.StatusTimeLimit
		if errors.Is(ctx.Err(), context.Canceled) {
			res.Status = model.StatusCancelled
		}
	}
	if g == nil {
		if out.TimedOut {
			res.Status = model.StatusNoSolution
			return res, nil
		}
		return nil, errors.New("no tree found")
	}
	res.Model = g
	res.Errors = g.Errors(job.Data)
	res.Optimal = out.Optimal && !out.TimedOut
	if b.size {
		res.Objective = float64(g.Size())
	} else {
		res.Objective = float64(g.Depth())
	}
	res.LowerBound = min(res.LowerBound, res.Objective)
	if res.Optimal {
		res.Status = model.StatusOptimal
	}
	return res, nil
}

// satConflictsOnly reports whether a min-depth or min-size model's errs
// errors are exactly the rows the backend says it dropped as conflicting
// (stat conflicts_dropped, option drop-conflicts) and exactly the least
// number of errors any classifier makes on d: in every group of rows with
// identical feature values, the rows outside the group's most frequent
// label. Verify accepts such a model as consistent with the other rows.
func satConflictsOnly(d *model.Dataset, res *model.Result, errs int) bool {
	if dropped, ok := res.Stats["conflicts_dropped"].(int); !ok || dropped != errs {
		return false
	}
	groups := map[string][]int{}
	key := make([]byte, 0, 8*len(d.Features))
	for r := range d.Rows() {
		key = key[:0]
		for _, f := range d.Features {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(f.Values[r]))
		}
		count := groups[string(key)]
		if count == nil {
			count = make([]int, d.NumClasses())
			groups[string(key)] = count
		}
		count[d.Labels[r]]++
	}
	floor := 0
	for _, count := range groups {
		total := 0
		for _, c := range count {
			total += c
		}
		floor += total - slices.Max(count)
	}
	return floor == errs
}
