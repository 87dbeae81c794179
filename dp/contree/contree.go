package contree

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/contree"
	"github.com/odtkit/odtkit/model"
)

// Config controls a ConTree search. The zero value searches a
// single leaf (depth 0) exactly.
type Config struct {
	// MaxDepth bounds the depth of the tree.
	MaxDepth int
	// MaxGap is how many errors above the optimum the returned tree may
	// make (0 = exact). Half of it is spent at a node's own thresholds,
	// the other half split evenly over its two subtrees.
	MaxGap int
	// EtaShortest uses the shorter side of the threshold interval as η in
	// the right subtree's upper bound (the paper's Algorithm 1) instead of
	// the longer side (its text, the default: fewer depth-two calls at
	// depth 3 on ../shared/data/numeric; see docs/benchmarks.md, "Figures
	// behind constants and defaults"). Both are exact.
	EtaShortest bool
	// NoCache disables the cache of solved subproblems.
	NoCache bool
	// Budget, when set, accounts the engine's sorted columns and split
	// buffers against the solve's memory cap; when they do not fit the
	// search stops with its best tree and Result.Cause wrapping
	// model.ErrMemoryLimit.
	Budget *backend.Budget
	// DepthFirstRoot searches the root's features one after the other
	// instead of best-first. The best-first root (the default, at depth 3
	// and more, with any number of workers) searches the open threshold intervals of
	// all features by least lower bound first, and its lower bound on the
	// optimum rises as it searches (OnBound); a depth-first root's bound
	// is known only when it ends.
	DepthFirstRoot bool
	// AbsGap (errors) and RelGap (a fraction of the tree's errors, at most
	// 1) stop the search once its tree is within the larger of the two of
	// the proven lower bound (Result.Gap). They search with one worker, a
	// best-first root, and MaxGap 0.
	AbsGap, RelGap float64
	// BoundProbes, at depth 4 and more, runs a bound phase before the
	// exact search: BoundProbes × (root features) probes, each at the
	// middle (by rows) of the root's piece of thresholds of least bound,
	// each side searched only for a lower bound with at most BoundWork
	// depth-two calls (about; 0: DefaultBoundWork; twice that at each new
	// probe of one threshold). The root's bound rises where the exact
	// search's first thresholds alone take minutes, and the probes'
	// trees often improve the first tree; the result stays exact (the
	// phase changes the search's order, not what it can find). It
	// searches with one worker, the best-first root and MaxGap 0.
	BoundProbes int
	BoundWork   int
	// OnBound, when set, receives each rise of the proven lower bound
	// (weighted errors) during a best-first root search (one worker or
	// several).
	OnBound func(lb float64)
	// Workers is the number of goroutines searching the root's
	// thresholds (0 or 1: the sequential search). With MaxGap 0 every
	// count gives the same optimal objective, and every count above one
	// the same tree; see the package doc.
	Workers int
}

// Result is the outcome of a ConTree search.
type Result struct {
	Tree *model.Graph
	// Errors is the number of misclassified training rows of Tree.
	Errors int
	// Objective is the weighted number of errors of Tree (the sum of
	// the weights of its misclassified rows); Errors without weights.
	Objective int
	// LowerBound is a proven lower bound on the optimal Objective.
	LowerBound int
	// Optimal is true when Objective is proven optimal (equal to
	// LowerBound). With MaxGap > 0 a finished search proves only
	// Objective - LowerBound <= MaxGap.
	Optimal bool
	// Stopped is true when the context ended the search.
	Stopped bool
	// Gap is true when the search stopped with Objective within the gap
	// asked for (Config.AbsGap, Config.RelGap) of LowerBound, without
	// proving it optimal.
	Gap   bool
	Stats map[string]any
	// Cause is nil, or an error wrapping model.ErrMemoryLimit when the
	// search stopped for lack of memory.
	Cause error
}

// DefaultBoundWork is Config.BoundWork's default: depth-two calls per
// side of a bound-phase probe. At depth 4 a probe then takes about 8-10 s
// on bean (13,611 rows) and htru (17,898 rows); see docs/benchmarks.md,
// "The bound phase".
const DefaultBoundWork = 20000

// ErrInput is wrapped by the errors Solve returns for data it
// cannot handle.
var ErrInput = errors.New("unsupported input")

// column maps an engine column back to the dataset: a numeric
// feature, or one level of a categorical feature (a 0/1 column).
type column struct {
	feature int
	level   int // -1 for numeric
}

// Solve searches a tree of depth at most s.MaxDepth with the fewest
// misclassified rows directly on d's numeric columns (Briţa, van der
// Linden & Demirović, AAAI 2025): thresholds lie in the middle between
// neighbouring distinct values of the rows reaching a node. Categorical
// columns are searched as one 0/1 test per level (x == level goes high).
// Integer row weights are honoured (a row of weight w counts w times:
// the search runs on the rows repeated); other weights are refused with
// an error wrapping ErrInput.
// report receives every improving tree of the root search. When ctx ends
// the best tree so far is returned with Optimal=false and Stopped=true.
func Solve(ctx context.Context, d *model.Dataset, s Config, report model.IncumbentFunc) (*Result, error) {
	r, err := solve(ctx, d, s, report)
	if err != nil {
		return nil, fmt.Errorf("contree: %w", err)
	}
	return r, nil
}

// solve is Solve with errors not prefixed by the package name (the
// backend registry names the backend itself).
func solve(ctx context.Context, d *model.Dataset, s Config, report model.IncumbentFunc) (*Result, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	// Integer row weights are honoured by repeating each row as often as
	// its weight says (rep[r] times); other weights are refused.
	var rep []int
	rows := d.Rows()
	if d.Weights != nil {
		rep = make([]int, len(d.Weights))
		rows = 0
		for r, w := range d.Weights {
			if w != math.Trunc(w) || w > float64(contree.MaxRows) {
				return nil, fmt.Errorf("%w: row %d has weight %v (only integer row weights are supported)", ErrInput, r, w)
			}
			rep[r] = int(w)
			rows += rep[r]
			if rows >= contree.MaxRows {
				break
			}
		}
	}
	if d.NumClasses() > contree.MaxClasses || rows >= contree.MaxRows {
		return nil, fmt.Errorf("%w: %d classes and %d rows (weights counted; at most %d classes and fewer than %d rows)",
			ErrInput, d.NumClasses(), rows, contree.MaxClasses, contree.MaxRows)
	}
	if s.MaxDepth < 0 {
		return nil, fmt.Errorf("%w: max depth %d is negative", ErrInput, s.MaxDepth)
	}
	if s.MaxGap < 0 {
		return nil, fmt.Errorf("%w: max gap %d is negative", ErrInput, s.MaxGap)
	}
	if s.AbsGap < 0 || s.RelGap < 0 || math.IsNaN(s.AbsGap) || math.IsNaN(s.RelGap) {
		return nil, fmt.Errorf("%w: gaps %v and %v must not be negative", ErrInput, s.AbsGap, s.RelGap)
	}
	gapped := s.AbsGap > 0 || s.RelGap > 0
	if gapped && (s.MaxGap > 0 || s.DepthFirstRoot) {
		return nil, fmt.Errorf("%w: a relative or absolute gap needs max-gap 0 and the best-first root", ErrInput)
	}
	if s.BoundProbes < 0 || s.BoundWork < 0 {
		return nil, fmt.Errorf("%w: bound rounds %d and bound work %d must not be negative", ErrInput, s.BoundProbes, s.BoundWork)
	}
	if s.BoundProbes > 0 && (s.MaxGap > 0 || s.DepthFirstRoot) {
		return nil, fmt.Errorf("%w: the bound phase needs max-gap 0 and the best-first root", ErrInput)
	}
	work := s.BoundWork
	if work == 0 {
		work = DefaultBoundWork
	}
	in := contree.Input{Labels: repeat(d.Labels, rep), Classes: d.NumClasses()}
	var cols []column
	for fi, f := range d.Features {
		if f.Kind != model.Categorical {
			in.Columns = append(in.Columns, repeat(f.Values, rep))
			cols = append(cols, column{feature: fi, level: -1})
			continue
		}
		nl := len(f.Levels)
		if nl < 2 {
			continue
		}
		if nl == 2 {
			nl = 1 // one test separates two levels
		}
		for l := range nl {
			c := make([]float64, len(f.Values))
			for r, x := range f.Values {
				if int(x) == l {
					c[r] = 1
				}
			}
			in.Columns = append(in.Columns, repeat(c, rep))
			cols = append(cols, column{feature: fi, level: l})
		}
	}
	cfg := contree.Config{MaxDepth: s.MaxDepth, MaxGap: s.MaxGap, EtaLongest: !s.EtaShortest, NoCache: s.NoCache,
		FIFO: true, EtaSum: true, LargerFirst: true, Budget: s.Budget, Workers: s.Workers,
		DepthFirstRoot: s.DepthFirstRoot, AbsGap: s.AbsGap, RelGap: min(s.RelGap, 1),
		BoundProbes: s.BoundProbes, BoundWork: int64(work)}
	if gapped || s.BoundProbes > 0 {
		cfg.Workers = 1
	}
	if s.OnBound != nil {
		cfg.OnBound = func(lb int) { s.OnBound(float64(lb)) }
	}
	var onImprove func(*contree.Node)
	if report != nil {
		onImprove = func(t *contree.Node) { report.Report(float64(t.Errors), graph(d, cols, t)) }
	}
	r := contree.Solve(ctx, in, cfg, onImprove)
	g := graph(d, cols, r.Tree)
	errs := r.Errors
	if rep != nil {
		errs = g.Errors(d)
	}
	res := &Result{Tree: g, Errors: errs, Objective: r.Errors, LowerBound: r.LowerBound,
		Optimal: r.Optimal, Stopped: r.Stopped, Gap: r.Gap, Cause: r.Cause,
		Stats: map[string]any{
			"subproblems":  r.Stats.Nodes,
			"d2_calls":     r.Stats.D2Calls,
			"d2_by_table":  r.Stats.D2ByTable,
			"d2_by_bits":   r.Stats.D2ByBits,
			"splits_tried": r.Stats.SplitsTried,
			"cache_hits":   r.Stats.CacheHits,
			"cache_stored": r.Stats.CacheStored,
			"at_floor":     r.Stats.AtFloor,
		}}
	if s.BoundProbes > 0 {
		res.Stats["bound_probes"] = r.Stats.BoundProbes
		res.Stats["bound_probes_cut"] = r.Stats.BoundCut
	}
	return res, nil
}

// repeat repeats x[r] rep[r] times (x itself when rep is nil).
func repeat[T any](x []T, rep []int) []T {
	if rep == nil {
		return x
	}
	var out []T
	for r, v := range x {
		for range rep[r] {
			out = append(out, v)
		}
	}
	return out
}

// graph converts an engine tree into a model graph.
func graph(d *model.Dataset, cols []column, t *contree.Node) *model.Graph {
	b := model.NewBuilder(d, model.KindTree)
	var build func(n *contree.Node) int
	build = func(n *contree.Node) int {
		if n.Leaf {
			return b.Leaf(n.Class)
		}
		lo, hi := build(n.Low), build(n.High)
		c := cols[n.Feature]
		if c.level >= 0 {
			// The 0/1 column is 1 on rows of this level: x <= t sends the
			// other levels low.
			return b.Category(c.feature, d.Features[c.feature].Levels[c.level], lo, hi)
		}
		return b.Threshold(c.feature, n.Threshold, lo, hi)
	}
	return b.Graph(build(t))
}
