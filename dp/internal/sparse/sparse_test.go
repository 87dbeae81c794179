package sparse

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// A cancelled search claims no optimality and still returns a valid tree
// within the limits; a finished one reports the cost of its tree.
func TestSolveStopsAndCosts(t *testing.T) {
	d := modeltest.Numeric(200, 4, 5)
	for _, f := range d.Features {
		for r := range f.Values {
			f.Values[r] = math.Round(f.Values[r] * 4) // a few thresholds per column
		}
	}
	v := model.Binarize(d)
	cfg := Config{MaxDepth: 3, MaxNodes: 4, LeafCost: 0.01}
	r := Solve(context.Background(), v, cfg)
	if !r.Optimal || r.Tree == nil {
		t.Fatalf("not solved: %+v", r)
	}
	if got := r.Tree.WeightedErrors(d) + 0.01*d.TotalWeight()*float64(r.Tree.Leaves()); got-r.Cost > 1e-9 || r.Cost-got > 1e-9 {
		t.Errorf("cost %v, the tree's %v", r.Cost, got)
	}
	if r.Tree.InternalNodes() > 4 || r.Tree.Depth() > 3 {
		t.Errorf("tree beyond the limits: %d internal nodes, depth %d", r.Tree.InternalNodes(), r.Tree.Depth())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := Solve(ctx, v, Config{MaxDepth: 4, MaxNodes: 9})
	if s.Optimal || s.Tree == nil || s.Tree.Validate() != nil || s.Tree.InternalNodes() > 9 {
		t.Errorf("cancelled: optimal %v, tree %v", s.Optimal, s.Tree)
	}
}

// budgetData is a problem whose search caches tens of thousands of
// branches: 300 rows, 6 columns of a few thresholds each.
func budgetData() *model.Dataset {
	d := modeltest.Numeric(300, 6, 3)
	for _, f := range d.Features {
		for r := range f.Values {
			f.Values[r] = math.Round(f.Values[r] * 5)
		}
	}
	return d
}

// The cache counts against the budget: a budget of two chunks stops the
// search with MemoryStop (wrapping model.ErrMemoryLimit), a valid tree
// within the limits, no optimality claimed, the peak within the cap and
// everything released. With no cap the same search finishes and caches
// far more than two chunks hold.
func TestSolveCacheBudget(t *testing.T) {
	v := model.Binarize(budgetData())
	cfg := Config{MaxDepth: 4, MaxNodes: 7, LeafCost: 0.001}
	full := Solve(context.Background(), v, cfg)
	if !full.Optimal || full.MemoryStop != nil {
		t.Fatalf("uncapped: %+v", full)
	}
	if need := int64(full.Branches) * entryBytes(2+8*len(v.Class[0])); need < 8*memoChunk {
		t.Fatalf("the uncapped search caches %d branches (~%d bytes): too few to test a cap of 2 chunks", full.Branches, need)
	}
	cfg.Budget = backend.NewBudget(2 * memoChunk)
	r := Solve(context.Background(), v, cfg)
	if !errors.Is(r.MemoryStop, model.ErrMemoryLimit) || r.Optimal {
		t.Fatalf("capped: memory stop %v, optimal %v", r.MemoryStop, r.Optimal)
	}
	if r.Tree == nil || r.Tree.Validate() != nil || r.Tree.InternalNodes() > 7 || r.Tree.Depth() > 4 {
		t.Fatalf("capped: tree %v", r.Tree)
	}
	if r.Cost < full.Cost-1e-9 {
		t.Fatalf("capped cost %v below the optimum %v", r.Cost, full.Cost)
	}
	if u, p := cfg.Budget.Used(), cfg.Budget.Peak(); u != 0 || p > 2*memoChunk {
		t.Fatalf("budget used %d after the solve, peak %d", u, p)
	}
}

// Through SolveJob a cache stop is status memory-limit with the best
// model, whose errors and objective are the data's (as the registry
// verifies them).
func TestSolveJobMemoryLimit(t *testing.T) {
	d := budgetData()
	p := model.Problem{Objective: model.MinError, MaxDepth: 4, MaxNodes: 7, LeafCost: 0.001, MinSupport: 1}
	v := model.Binarize(d)
	viewBytes := int64(len(v.True)+len(v.Class)) * int64((v.N+63)/64) * 8
	info := backend.Info{Name: "sparse", Objectives: []model.Objective{model.MinError},
		Caps: backend.Caps{MaxNodes: true, LeafCost: true, MinSupport: true, Weights: backend.AnyWeights}}
	job, err := backend.NewJob(info, d, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	job.Budget = backend.NewBudget(viewBytes + 2*memoChunk)
	res, err := SolveJob(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != model.StatusMemory || res.Optimal || res.Model == nil {
		t.Fatalf("status %q, optimal %v, model %v; want memory-limit and a model", res.Status, res.Optimal, res.Model)
	}
	if res.Errors != res.Model.Errors(d) || math.Abs(res.Objective-p.Evaluate(d, res.Model)) > 1e-12 || res.LowerBound > res.Objective {
		t.Fatalf("errors %d (data: %d), objective %v (data: %v), bound %v", res.Errors, res.Model.Errors(d),
			res.Objective, p.Evaluate(d, res.Model), res.LowerBound)
	}
}

// Every worker count finds the same cost and the same tree (the lowest
// position wins among equal candidates, as in the sequential search), on
// weighted and unweighted data, with and without a node limit; a
// capped parallel search stops with MemoryStop and releases everything.
func TestSolveWorkers(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		d := modeltest.Numeric(120, 4, seed)
		for _, f := range d.Features {
			for r := range f.Values {
				f.Values[r] = math.Round(f.Values[r] * 3)
			}
		}
		if seed%2 == 0 {
			d.Weights = make([]float64, d.Rows())
			for r := range d.Weights {
				d.Weights[r] = float64(1 + r%3)
			}
		}
		v := model.Binarize(d)
		for _, cfg := range []Config{{MaxDepth: 3, LeafCost: 0.01}, {MaxDepth: 3, MaxNodes: 3}, {MaxDepth: 2, MaxNodes: 2, LeafCost: 0.002, MinSupport: 5}} {
			one := Solve(context.Background(), v, cfg)
			for _, w := range []int{2, 4} {
				cfg.Workers = w
				got := Solve(context.Background(), v, cfg)
				if !got.Optimal || got.Cost != one.Cost || got.Tree.Text() != one.Tree.Text() {
					t.Fatalf("seed %d %+v: %d workers cost %v tree\n%v\n1 worker cost %v tree\n%v", seed, cfg, w, got.Cost, got.Tree.Text(), one.Cost, one.Tree.Text())
				}
			}
		}
	}
	v := model.Binarize(budgetData())
	cfg := Config{MaxDepth: 4, MaxNodes: 7, LeafCost: 0.001, Workers: 2, Budget: backend.NewBudget(2 * memoChunk)}
	r := Solve(context.Background(), v, cfg)
	if !errors.Is(r.MemoryStop, model.ErrMemoryLimit) || r.Optimal || r.Tree == nil || r.Tree.Validate() != nil {
		t.Fatalf("capped, 2 workers: memory stop %v, optimal %v, tree %v", r.MemoryStop, r.Optimal, r.Tree)
	}
	if u, p := cfg.Budget.Used(), cfg.Budget.Peak(); u != 0 || p > 2*memoChunk {
		t.Fatalf("2 workers: budget used %d after the solve, peak %d", u, p)
	}
}

// Any depth, however large, is searched without overflow and gives the
// optimum of the depth from which it settles: with a leaf cost (the
// budget grown node by node), with a node limit alone, with one and
// several workers. Depth 30 once tried no split at all (a node count
// capped at 1<<30), and depths from 31 ran without end.
func TestSolveAnyDepth(t *testing.T) {
	d := modeltest.Numeric(60, 3, 9)
	for _, f := range d.Features {
		for r := range f.Values {
			f.Values[r] = math.Round(f.Values[r] * 3)
		}
	}
	v := model.Binarize(d)
	for _, base := range []Config{{LeafCost: 0.02}, {LeafCost: 0.005}, {MaxNodes: 3}, {MaxNodes: 4, LeafCost: 0.01}} {
		for _, workers := range []int{1, 2} {
			prev, costs := math.Inf(1), map[int]float64{}
			for _, depth := range []int{1, 2, 3, 4, 5, 6, 30, 31, 62, 63, 1000} {
				cfg := base
				cfg.MaxDepth, cfg.Workers = depth, workers
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				r := Solve(ctx, v, cfg)
				cancel()
				if !r.Optimal || r.Tree == nil || r.Tree.Depth() > depth {
					t.Fatalf("%+v: optimal %v, tree %v", cfg, r.Optimal, r.Tree)
				}
				if got := r.Tree.WeightedErrors(d) + cfg.LeafCost*d.TotalWeight()*float64(r.Tree.Leaves()); math.Abs(got-r.Cost) > 1e-9 {
					t.Fatalf("%+v: cost %v, the tree's %v", cfg, r.Cost, got)
				}
				if r.Cost > prev+1e-9 {
					t.Fatalf("%+v: cost %v above %v at a smaller depth", cfg, r.Cost, prev)
				}
				prev, costs[depth] = r.Cost, r.Cost
			}
			// On this data the optimum settles by depth 6: every larger
			// depth, however large, must give the same.
			for _, depth := range []int{30, 31, 62, 63, 1000} {
				if math.Abs(costs[depth]-costs[6]) > 1e-9 {
					t.Errorf("%+v workers %d: cost %v at depth %d, %v at depth 6", base, workers, costs[depth], depth, costs[6])
				}
			}
		}
	}
}
