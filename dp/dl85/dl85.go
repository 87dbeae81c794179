package dl85

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/dl85"
	"github.com/odtkit/odtkit/model"
)

// Config controls DL8.5 and CA-DL8.5. The zero value means: depth 0 (a
// single leaf), no leaf-size constraint, no cache cap, the specialised
// depth-2 step on, tests tried by information gain.
type Config struct {
	// MaxDepth is the maximum number of tests on a root-to-leaf path.
	MaxDepth int
	// MinSupport is the least number of rows in a leaf (0 or 1: no
	// constraint).
	MinSupport int
	// CacheMB caps the estimated memory of the cache of solved branches,
	// in MiB (0 = no cap). At the cap the deepest branches are evicted;
	// the answer stays exact.
	CacheMB float64
	// NoDepth2 turns off the specialised depth-2 step (pairwise counts),
	// so that subproblems of depth 2 are searched like the others.
	NoDepth2 bool
	// IndexOrder tries tests in their index order instead of by
	// decreasing information gain.
	IndexOrder bool
	// NoDive starts the search from the best single split instead of the
	// dive's tree: greedy tests above optimal depth-2 branches (depth 3
	// and more).
	NoDive bool
	// OnIncumbent, when set, receives each improving tree and its
	// (weighted) training error.
	OnIncumbent func(g *model.Graph, err float64)
	// MaxRestarts stops CA-DL8.5 after that many restarts (0 = none).
	MaxRestarts int
	// Budget, when set, accounts the search's big structures (its copy of
	// the data, the cache, the depth-2 tables) against the solve's memory
	// cap: tables that do not fit give way to the ordinary search, the
	// cache evicts, and when even that is not enough the search stops
	// with its best tree and Result.Cause wrapping model.ErrMemoryLimit.
	Budget *backend.Budget
	// Workers is the number of goroutines that search the root's tests
	// (0 or 1: the sequential search). Every count proves the same
	// optimal error. On unweighted data a proven tree is the same at
	// every count of 2 and more, and for DL8.5 it is the sequential
	// one (the first optimal tree in the search's order); with row
	// weights a tree whose error differs only by float rounding may
	// stand in; a stopped search's tree depends on timing.
	Workers int

	// AbsGap (weighted errors) and RelGap (a fraction of the tree's error,
	// at most 1) stop the search once its tree is within the larger of
	// the two of its proven lower bound (Result.Gap): the root's tests
	// are searched only for trees better by more than that. With more
	// than one worker the gapped search's tree and bound depend on the
	// order in which the workers find trees (each is within the gap).
	AbsGap, RelGap float64
	// RootGapOnly applies the gap at the root only: the root's tests are
	// searched exactly, for trees better than the incumbent by more than
	// the gap. By default every branch below the root also stops once
	// its tree is within RelGap of its own proven bound (which composes
	// into the root's gap; AbsGap applies at the root only). Both end
	// within the gap; the default usually with the better tree
	// (docs/benchmarks.md, "Gaps in every branch").
	RootGapOnly bool
	// BoundGap, when above 0 (and no gap is asked for), first searches
	// within that relative gap, every branch stopping within it, for a
	// proven bound of at least 1 − BoundGap times the tree, reported
	// through OnBound, then goes on with the exact search, which reuses
	// what the phase found and proves the same optimum. It costs time
	// where the exact search is quick (docs/benchmarks.md, "Gaps in
	// every branch").
	BoundGap float64
	// OnBound, when set, receives each rise of the proven lower bound on
	// the optimal error while the search runs: the least, over the root's
	// tests, of what their branches have established (with several
	// workers, from their goroutines, one call at a time).
	OnBound func(lb float64)

	// tune, set by tests and benchmarks only, adjusts the engine's
	// configuration (to measure what each improvement saves).
	tune func(*dl85.Config)
}

// Result is the outcome of Solve or SolveAnytime.
type Result struct {
	Tree *model.Graph
	// Error is the tree's (weighted) training error.
	Error float64
	// LowerBound is a proven lower bound on the optimal error (equal to
	// Error when Optimal).
	LowerBound float64
	// Optimal is true when the search finished: Tree is optimal.
	Optimal bool
	// Gap is true when the search stopped with Error within the gap asked
	// for (Config.AbsGap, Config.RelGap) of LowerBound, not proven
	// optimal.
	Gap   bool
	Stats map[string]any
	// Cause is nil, or why the search stopped on its own: an error
	// wrapping model.ErrMemoryLimit when the Budget refused memory.
	Cause error
}

// ErrInfeasible is returned when the data has fewer rows than the
// minimum support.
var ErrInfeasible = dl85.ErrInfeasible

// Solve finds a minimum-error tree of depth at most s.MaxDepth whose
// leaves hold at least s.MinSupport rows each, on the binary view v
// (multiclass, row weights honoured): DL8.5's caching branch-and-bound search with
// bounds from cached branches, a specialised depth-2 step and tests that
// are constant on a branch skipped. When ctx is done first, it returns
// the best tree found with Optimal=false and a valid lower bound.
func Solve(ctx context.Context, v *model.BinaryView, s Config) (*Result, error) {
	return run(ctx, v, s, dl85.NoRule{})
}

// SolveAnytime runs Complete Anytime DL8.5: restarts of the search in which
// rule prunes nodes, relaxed after each restart, the cache reused across
// restarts, until the tree is proven optimal or ctx is done. Every
// improving tree is passed to s.OnIncumbent.
func SolveAnytime[T comparable](ctx context.Context, v *model.BinaryView, rule Rule[T], s Config) (*Result, error) {
	if rule == nil {
		return nil, errors.New("cadl85: nil rule")
	}
	return run(ctx, v, s, rule)
}

func run[T comparable](ctx context.Context, v *model.BinaryView, s Config, rule dl85.Rule[T]) (*Result, error) {
	maxDepth, minSupport := s.MaxDepth, s.MinSupport
	if v == nil || v.Data == nil {
		return nil, errors.New("dl85: no data")
	}
	if maxDepth < 0 {
		return nil, fmt.Errorf("dl85: max depth %d is negative", maxDepth)
	}
	if s.CacheMB < 0 {
		return nil, fmt.Errorf("dl85: cache cap %v MiB is negative", s.CacheMB)
	}
	if s.AbsGap < 0 || s.RelGap < 0 || math.IsNaN(s.AbsGap) || math.IsNaN(s.RelGap) {
		return nil, fmt.Errorf("dl85: gaps %v and %v must not be negative", s.AbsGap, s.RelGap)
	}
	// Tests that are duplicates or complements of earlier ones, or
	// constant, change no optimum: leave them out.
	orig, err := v.KeptTests(ctx)
	if err != nil {
		return nil, fmt.Errorf("dl85: %w", err)
	}
	cols := make([][]uint64, len(orig))
	for k, t := range orig {
		cols[k] = v.True[t]
	}
	d, err := dl85.NewData(ctx, v.N, cols, v.Data.Labels, len(v.Class), v.Data.Weights)
	if err != nil {
		return nil, err
	}
	cfg := dl85.Config{MaxDepth: maxDepth, MinSupport: minSupport,
		CacheBytes: int64(s.CacheMB * (1 << 20)), Depth2: !s.NoDepth2, MaxRestarts: s.MaxRestarts, Budget: s.Budget, Workers: s.Workers,
		AbsGap: s.AbsGap, RelGap: s.RelGap, RootGapOnly: s.RootGapOnly, BoundGap: s.BoundGap, OnBound: s.OnBound, NoDive: s.NoDive}
	if s.IndexOrder {
		cfg.Order = dl85.OrderIndex
	}
	if s.tune != nil {
		s.tune(&cfg)
	}
	toGraph := func(t *dl85.Tree) *model.Graph {
		b := model.NewBuilder(v.Data, model.KindTree)
		var rec func(t *dl85.Tree) int
		rec = func(t *dl85.Tree) int {
			if t.Test < 0 {
				return b.Leaf(t.Class)
			}
			lo := rec(t.Lo)
			hi := rec(t.Hi)
			return b.Split(v.Tests[orig[t.Test]], lo, hi)
		}
		return b.Graph(rec(t))
	}
	if s.OnIncumbent != nil {
		cfg.OnIncumbent = func(t *dl85.Tree, e float64) { s.OnIncumbent(toGraph(t), e) }
	}
	r, err := dl85.Solve(ctx, d, cfg, rule)
	if err != nil {
		return nil, err
	}
	return &Result{Tree: toGraph(r.Tree), Error: r.Err, LowerBound: r.LB, Optimal: r.Optimal, Gap: r.Gap, Cause: r.Cause,
		Stats: map[string]any{
			"depth2_skipped":   r.Depth2Skipped,
			"depth2_linked":    r.Depth2Linked,
			"similar_pruned":   r.SimilarPruned,
			"gap_settled":      r.GapSettled,
			"binary_tests":     v.NumTests(),
			"tests_used":       len(cols),
			"nodes":            r.Nodes,
			"depth2_calls":     r.Depth2Calls,
			"restarts":         r.Restarts,
			"cache_entries":    r.CacheEntries,
			"cache_peak_bytes": r.PeakCacheBytes,
			"cache_evictions":  r.Evictions,
		}}, nil
}
