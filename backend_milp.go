package odtkit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// milpParams are the options of the MILP backends (and of MPS export).
var milpParams = []Param{
	{Name: "splits", Default: "univariate", Help: "univariate (one feature per node, constraints 15-16) or multivariate (oblique) splits"},
	{Name: "epsilon", Default: "1e-4", Help: "margin of the strict side of a split, on features scaled to [0,1]"},
	{Name: "gap", Default: "0", Help: "relative gap at which HiGHS may stop (0 = prove optimality)"},
	{Name: "warm-start", Default: "true", Help: "run the construction heuristic first; its diagram is the first incumbent, the MIP start, and its objective the cutoff"},
	{Name: "restarts", Default: "1000", Help: "restarts of the construction heuristic (within 10% of the time limit, at most 60s)"},
	{Name: "max-active", Default: "0", Help: "parsimony: at most this many active internal nodes (0 = no cap)"},
	{Name: "min-flow", Default: "0", Help: "stability: at least this many rows through every active internal node but the root"},
	{Name: "fair-column", Default: "", Help: "fairness: name of a 0/1 feature column defining two groups (excluded from the splits)"},
	{Name: "fair-positive", Default: "", Help: "fairness: the positive class (default: the second class)"},
	{Name: "fair-ratio", Default: "0.8", Help: "fairness: each group's positive rate is at least this times the other's (four-fifths rule)"},
}

// MILPOptions maps a problem and backend options to the encoder's
// options. encoding is "odd" (a diagram on p.Skeleton) or "odt" (a tree:
// of depth p.MaxDepth for the error objective, or on a 1-2-4-… skeleton).
func MILPOptions(d *model.Dataset, encoding string, p model.Problem, opts Options) (odd.Options, error) {
	var o odd.Options
	if opts == nil {
		opts = Options{}
	}
	switch s := opts.String("splits", "univariate"); s {
	case "univariate":
	case "multivariate":
		o.Multivariate = true
	default:
		return o, fmt.Errorf("%w: splits=%q: want univariate or multivariate", ErrInvalid, s)
	}
	var err error
	if o.Epsilon, err = opts.Float("epsilon", 1e-4); err != nil {
		return o, err
	}
	if o.MaxActive, err = opts.Int("max-active", 0); err != nil {
		return o, err
	}
	if o.MinFlow, err = opts.Int("min-flow", 0); err != nil {
		return o, err
	}
	if col := opts.String("fair-column", ""); col != "" {
		f := &odd.Fairness{Column: -1, Positive: min(1, d.NumClasses()-1)}
		for j, ft := range d.Features {
			if ft.Name == col {
				f.Column = j
			}
		}
		if f.Column < 0 {
			if j, err := strconv.Atoi(col); err == nil && j >= 0 && j < d.NumFeatures() {
				f.Column = j
			} else {
				return o, fmt.Errorf("%w: fair-column=%q names no feature", ErrInvalid, col)
			}
		}
		if pc := opts.String("fair-positive", ""); pc != "" {
			if f.Positive = slices.Index(d.Classes, pc); f.Positive < 0 {
				return o, fmt.Errorf("%w: fair-positive=%q names no class", ErrInvalid, pc)
			}
		}
		if f.Xi, err = opts.Float("fair-ratio", 0.8); err != nil {
			return o, err
		}
		o.Fair = f
	}
	switch encoding {
	case "odd":
		if p.Objective != "" && p.Objective != model.DiagramError {
			return o, fmt.Errorf("%w: the odd encoding solves the diagram objective, not %q", ErrInvalid, p.Objective)
		}
		if len(p.Skeleton) == 0 {
			return o, fmt.Errorf("%w: the odd encoding needs a skeleton (--skeleton 1,2,2)", ErrInvalid)
		}
		o.Skeleton, o.Alpha = p.Skeleton, p.Alpha
	case "odt":
		o.Tree = true
		switch p.Objective {
		case model.DiagramError:
			o.Skeleton, o.Alpha = p.Skeleton, p.Alpha
		case model.MinError, "":
			if p.MaxDepth < 1 {
				return o, fmt.Errorf("%w: the odt encoding needs a depth of at least 1", ErrInvalid)
			}
			if p.MinSupport > 1 {
				return o, fmt.Errorf("%w: the odt encoding has no minimum leaf support (try --opt min-flow=N, a minimum per internal node)", ErrInvalid)
			}
			o.Skeleton = odd.TreeSkeleton(p.MaxDepth)
			o.RowCost = make([]float64, d.Rows())
			for i := range o.RowCost {
				o.RowCost[i] = d.Weight(i)
			}
			if p.MaxNodes > 0 {
				o.MaxActive = max(1, (p.MaxNodes-1)/2)
			}
		default:
			return o, fmt.Errorf("%w: the odt encoding solves the error or diagram objective, not %q", ErrInvalid, p.Objective)
		}
	default:
		return o, fmt.Errorf("%w: unknown MILP encoding %q (want odd or odt)", ErrInvalid, encoding)
	}
	return o, nil
}

// MILPEncode builds the MILP of an encoding ("odd" or "odt") of the data
// and problem; see MILPOptions.
func MILPEncode(d *model.Dataset, encoding string, p model.Problem, opts Options) (*odd.Encoding, error) {
	o, err := MILPOptions(d, encoding, p, opts)
	if err != nil {
		return nil, err
	}
	return odd.Encode(d, o)
}

// milpBackend solves the ODD flow MILP with HiGHS: "milp-odd" for
// diagrams, "milp-odt" for its tree special case.
type milpBackend struct{ tree bool }

func (b milpBackend) Info() Info {
	if b.tree {
		return Info{Name: "milp-odt", Description: "optimal tree as the tree special case of the ODD flow MILP (Florio et al. 2023) on HiGHS (build with -tags highs)",
			Objectives: []model.Objective{model.MinError, model.DiagramError}, Input: "numeric (scaled to [0,1]; categorical one-hot)",
			Exact: true, Anytime: true, Params: milpParams}
	}
	return Info{Name: "milp-odd", Description: "optimal decision diagram on a skeleton: the ODD flow MILP (Florio et al. 2023) on HiGHS, warm-started by the construction heuristic (build with -tags highs)",
		Objectives: []model.Objective{model.DiagramError}, Input: "numeric (scaled to [0,1]; categorical one-hot)",
		Exact: true, Anytime: true, Params: milpParams}
}

// milpObjective is the problem's objective of g on d.
func milpObjective(d *model.Dataset, p model.Problem, g *model.Graph) float64 {
	if p.Objective == model.DiagramError {
		return milpDiagramObjective(d, p, g)
	}
	return g.WeightedErrors(d)
}

func (b milpBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	enc := "odd"
	if b.tree {
		enc = "odt"
	}
	o, err := MILPOptions(job.Data, enc, job.Problem, job.Options)
	if err != nil {
		return nil, err
	}
	gap, err := job.Options.Float("gap", 0)
	if err != nil {
		return nil, err
	}
	warm, err := job.Options.Bool("warm-start", true)
	if err != nil {
		return nil, err
	}
	restarts, err := job.Options.Int("restarts", 1000)
	if err != nil {
		return nil, err
	}
	e, err := odd.Encode(job.Data, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if !milp.HiGHSEnabled {
		return nil, milp.ErrNotEnabled
	}
	d, p := job.Data, job.Problem
	stats := map[string]any{"columns": len(e.Model.Columns), "rows": len(e.Model.Rows),
		"binaries": e.Model.NumIntegers(), "nonzeros": e.Model.NumNonzeros()}
	var best *model.Graph
	bestObj := math.Inf(1)
	offer := func(g *model.Graph) {
		if obj := milpObjective(d, p, g); obj < bestObj-1e-12 {
			best, bestObj = g, obj
			job.Report.Report(obj, g)
		}
	}
	params := milp.Params{Threads: job.Threads, RelGap: gap, Seed: int(job.Seed)}
	if warm {
		// Step 1: within 10% of the time left, at most 60 s.
		hctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		if dl, ok := ctx.Deadline(); ok {
			cancel()
			hctx, cancel = context.WithTimeout(ctx, min(60*time.Second, time.Until(dl)/10))
		}
		start := time.Now()
		inc := e.Heuristic(hctx, restarts, uint64(job.Seed))
		cancel()
		stats["heuristic_seconds"] = time.Since(start).Seconds()
		if inc != nil {
			offer(inc.Graph)
			stats["heuristic_objective"] = bestObj
			// The paper's cutoff, plus the diagram itself as a MIP start.
			params.Cutoff, params.HasCutoff, params.Start = bestObj, true, inc.X
		}
	}
	res := &model.Result{Stats: stats}
	sol, err := milp.HiGHS().Solve(ctx, e.Model, params)
	if err != nil {
		return nil, err
	}
	stats["milp_status"], stats["milp_solver_status"] = string(sol.Status), sol.SolverStatus
	stats["milp_time_limit"] = sol.TimeLimit
	stats["milp_bound"], stats["milp_nodes"], stats["milp_seconds"] = finite(sol.Bound), sol.Nodes, sol.Seconds
	consistent := false
	if sol.X != nil {
		stats["milp_objective"] = sol.Objective
		g, err := e.Decode(sol.X)
		if err != nil {
			return nil, err
		}
		obj := milpObjective(d, p, g)
		stats["decoded_objective"] = obj
		consistent = math.Abs(obj-sol.Objective) <= 1e-6*math.Max(1, math.Abs(obj))
		offer(g)
	}
	res.Model = best
	if best == nil {
		res.Status = milpStatus(ctx, sol, false, false)
		return res, nil
	}
	res.Optimal = milpProven(sol, params.HasCutoff, consistent, bestObj)
	res.Status = milpStatus(ctx, sol, true, res.Optimal)
	res.Errors, res.Objective = best.Errors(d), bestObj
	if res.Optimal {
		res.LowerBound = bestObj
	} else {
		res.LowerBound = math.Max(0, math.Min(finite(sol.Bound), bestObj))
	}
	return res, nil
}

// milpProven reports whether the best diagram (objective bestObj) is
// proven optimal by a MILP run that ended with sol: HiGHS proved that
// nothing beats the cutoff (the heuristic's objective), or proved its
// solution optimal, that solution decodes to a diagram of the same
// objective (consistent), and the best diagram is not worse.
func milpProven(sol *milp.Solution, hasCutoff, consistent bool, bestObj float64) bool {
	switch sol.Status {
	case milp.StatusInfeasible:
		return hasCutoff
	case milp.StatusOptimal:
		return consistent && bestObj <= sol.Objective+1e-9
	}
	return false
}

// milpStatus is the result status of a MILP run that ended with sol
// (hasModel: a model is returned; optimal: it is proven optimal). A run
// stopped by HiGHS's own time limit (set just short of the context's
// deadline) or by the deadline itself is a time-limit stop, even when
// HiGHS returned before the context expired.
func milpStatus(ctx context.Context, sol *milp.Solution, hasModel, optimal bool) model.Status {
	switch {
	case optimal:
		return model.StatusOptimal
	case !hasModel && sol.Status == milp.StatusInfeasible:
		return model.StatusInfeasible
	case !hasModel:
		return model.StatusNoSolution
	case sol.TimeLimit || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return model.StatusTimeLimit
	case ctx.Err() != nil:
		return model.StatusCancelled
	default:
		// HiGHS stopped on its own, e.g. at the relative gap asked for.
		return model.StatusFeasible
	}
}

func finite(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return v
}

// milpDiagramObjective is objective 18 of the ODD paper for graph g on d: the
// error rate plus Alpha times the share of the skeleton's non-root
// internal nodes that g uses, Alpha·(internal nodes − 1)/(Σ skeleton − 1).
func milpDiagramObjective(d *model.Dataset, p model.Problem, g *model.Graph) float64 {
	obj := float64(g.Errors(d)) / float64(d.Rows())
	total := 0
	for _, w := range p.Skeleton {
		total += w
	}
	if k := g.InternalNodes(); total > 1 && k > 1 {
		obj += p.Alpha * float64(k-1) / float64(total-1)
	}
	return obj
}
