package blossom

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/dp/internal/blossom"
	"github.com/odtkit/odtkit/model"
)

// Order names the order in which Blossom tries the features of a
// branch.
type Order string

const (
	// OrderGini: increasing Gini impurity of the split (the default).
	OrderGini Order = "gini"
	// OrderError: increasing error of the split (the paper's "no
	// heuristic" variant).
	OrderError Order = "error"
	// OrderIndex: test index order (no heuristic at all).
	OrderIndex Order = "index"
)

// Config controls a Blossom search. The zero value runs the full
// algorithm: Gini ordering, ancestor lower bound, two-level rule, and
// every preprocessing step. The No... switches turn single parts off, for
// a factor analysis.
type Config struct {
	// MaxDepth is the maximum number of tests on a root-to-leaf path.
	MaxDepth int
	// Order of the features on a branch ("" = gini).
	Order Order
	// NoLowerBound switches off the ancestor lower bound.
	NoLowerBound bool
	// NoDepth2 switches off the two-level rule (solve a branch with two
	// levels left at once from pairwise counts); the last level is always
	// solved at once, as in the paper.
	NoDepth2 bool
	// NoMergeRows keeps every row instead of merging rows with the same
	// feature vector into weighted rows (and cancelling inconsistent ones).
	NoMergeRows bool
	// NoDropRedundant keeps constant tests and tests equal or
	// complementary to an earlier one.
	NoDropRedundant bool
	// NoDropUninformative keeps, on a branch, the tests that take one value
	// on all of its rows.
	NoDropUninformative bool
	// NoCARTSeed skips the greedy tree (cart.Grow) that is otherwise reported
	// as the first incumbent and returned when a stopped search has found
	// nothing better. (Blossom's own first complete tree is greedy too,
	// but on the merged rows its Gini order may differ from CART's.)
	NoCARTSeed bool
	// Budget, when set, accounts the engine's data and the pair tables of
	// the two-level rule against the solve's memory cap (a branch whose
	// tables do not fit is searched feature by feature); when even the
	// data does not fit, Result.Cause wraps model.ErrMemoryLimit and the
	// greedy tree is returned.
	Budget *backend.Budget
	// Workers is the number of search goroutines (0 or 1: the sequential
	// search). The optimal error is the same for every count, and so is
	// the tree (see the engine's package doc for what holds).
	Workers int
	// OnBound, when set, receives each rise of the proven lower bound on
	// the optimal (weighted) error: the error of the rows cancelled by
	// merging at once, then what the search proves as it runs (it rises
	// while the root's last tests are searched: the last one with one
	// worker, the last ones handed out with several), and the final
	// bound.
	OnBound func(lb float64)
	// AbsGap (weighted errors) and RelGap (a fraction of the tree's
	// error, at most 1) let the search end once its tree is within the
	// larger of the two of the optimum: a test of the root is given up
	// once the branches solved under it show it cannot beat the incumbent
	// by more than that. Result.Gap then says so, with the tree's error
	// less its allowance as LowerBound. 0 and 0: prove optimality.
	AbsGap, RelGap float64
}

// Result is the outcome of a Blossom search. Errors and Objective
// are those of Model on the original data (unweighted and weighted).
type Result struct {
	Model      *model.Graph
	Errors     int
	Objective  float64
	LowerBound float64
	Optimal    bool
	// Gap: the search ended within Config's gap (not proven optimal).
	Gap   bool
	Stats map[string]any
	// Cause is nil, or an error wrapping model.ErrMemoryLimit when the
	// search stopped for lack of memory.
	Cause error
}

// Solve searches a tree of at most s.MaxDepth levels with the fewest
// (weighted) errors on v's data, with the anytime algorithm of Demirović,
// Hebrard and Jean: the first complete tree is the greedy one, each later
// improvement is sent to report, and the search ends when every branch
// has been tried (Optimal) or ctx is done (the best tree so far, with a
// lower bound). Row weights must be whole numbers. Memory grows with the
// size of the tree, not with the search.
func Solve(ctx context.Context, v *model.BinaryView, s Config, report model.IncumbentFunc) (*Result, error) {
	if v == nil || v.Data == nil {
		return nil, errors.New("blossom: no data")
	}
	if s.MaxDepth < 0 {
		return nil, fmt.Errorf("blossom: max depth %d is negative", s.MaxDepth)
	}
	if !(s.AbsGap >= 0) || !(s.RelGap >= 0 && s.RelGap <= 1) {
		return nil, fmt.Errorf("blossom: gaps %v (absolute) and %v (relative) must be at least 0, the relative one at most 1", s.AbsGap, s.RelGap)
	}
	var order blossom.Order
	switch s.Order {
	case "", OrderGini:
		order = blossom.OrderGini
	case OrderError:
		order = blossom.OrderError
	case OrderIndex:
		order = blossom.OrderIndex
	default:
		return nil, fmt.Errorf("blossom: unknown order %q (want gini, error or index)", s.Order)
	}
	start := time.Now()
	d := v.Data
	var p *prepared // set before the search, which alone uses toGraph
	toGraph := func(t *blossom.Tree) *model.Graph {
		b := model.NewBuilder(d, model.KindTree)
		var build func(t *blossom.Tree) int
		build = func(t *blossom.Tree) int {
			if t.Feature < 0 {
				return b.Leaf(t.Class)
			}
			lo := build(t.Low)
			hi := build(t.High)
			return b.Split(v.Tests[p.tests[t.Feature]], lo, hi)
		}
		return b.Graph(build(t))
	}
	reported := math.Inf(1)
	var cartG *model.Graph
	cartErr := math.Inf(1)
	if !s.NoCARTSeed {
		cartG, cartErr = cart.Grow(ctx, v, s.MaxDepth, cart.Config{})
		reported = cartErr
		report.Report(cartErr, cartG)
	}
	var err error
	p, err = prepare(ctx, v, s)
	if err != nil {
		if cartG == nil || (ctx.Err() == nil && !errors.Is(err, model.ErrMemoryLimit)) {
			return nil, err
		}
		// Stopped (time, Ctrl-C or memory) before the search began: the
		// greedy tree is the answer.
		out := &Result{Model: cartG, Errors: cartG.Errors(d), Objective: cartErr,
			Stats: map[string]any{"binary_tests": v.NumTests(), "returned_cart": true, "seconds": time.Since(start).Seconds()}}
		if errors.Is(err, model.ErrMemoryLimit) {
			out.Cause = err
		}
		return out, nil
	}
	var rep func(int64, *blossom.Tree)
	if report != nil {
		rep = func(e int64, t *blossom.Tree) {
			if obj := float64(e + p.offset); obj < reported {
				reported = obj
				report.Report(obj, toGraph(t))
			}
		}
	}
	var onBound func(int64)
	if s.OnBound != nil {
		s.OnBound(float64(p.offset)) // no tree classifies both of two equal rows
		onBound = func(lb int64) {
			if lb > 0 {
				s.OnBound(float64(lb + p.offset))
			}
		}
	}
	var allowance func(int64) float64
	if s.AbsGap > 0 || s.RelGap > 0 {
		// The gap is on the error on the original data: the engine's
		// plus the cancelled rows'.
		allowance = func(inc int64) float64 { return max(s.AbsGap, s.RelGap*float64(inc+p.offset)) }
	}
	res := blossom.Solve(ctx, p.data, blossom.Options{
		MaxDepth:            s.MaxDepth,
		Order:               order,
		NoLowerBound:        s.NoLowerBound,
		NoDepth2:            s.NoDepth2,
		NoDropUninformative: s.NoDropUninformative,
		Budget:              s.Budget,
		Workers:             s.Workers,
		OnBound:             onBound,
		Allowance:           allowance,
	}, rep)
	g := toGraph(res.Tree)
	obj := float64(res.Error + p.offset)
	// The engine's error plus the offset of the merged rows is the error
	// on the original data; anything else is a bug.
	if w := g.WeightedErrors(d); math.Abs(w-obj) > 1e-6*math.Max(1, obj) {
		return nil, fmt.Errorf("blossom: internal error: tree error %v on the data, %v claimed", w, obj)
	}
	out := &Result{Model: g, Errors: g.Errors(d), Objective: obj, Optimal: res.Optimal, Gap: res.Gap,
		LowerBound: float64(res.LowerBound + p.offset), Cause: res.Cause}
	if res.Optimal {
		out.LowerBound = obj
	} else if cartErr < obj {
		out.Model, out.Errors, out.Objective = cartG, cartG.Errors(d), cartErr
	}
	st := res.Stats
	first := int64(-1) // the search stopped before its first complete tree
	if st.FirstComplete >= 0 {
		first = st.FirstComplete + p.offset
	}
	out.Stats = map[string]any{
		"binary_tests": v.NumTests(), "tests_used": len(p.tests), "rows_used": p.rows, "row_slots": p.data.N,
		"error_offset": p.offset, "iterations": st.Iterations, "decisions": st.Decisions,
		"depth1_solves": st.Depth1, "depth2_solves": st.Depth2, "pruned": st.Pruned,
		"improvements": st.Incumbents, "peak_branches": st.PeakBranches, "first_complete": first, "root_tests": st.RootTests,
		"seconds": time.Since(start).Seconds(), "returned_cart": out.Model == cartG,
	}
	return out, nil
}

// prepared is the engine's view of the data after preprocessing.
type prepared struct {
	data   *blossom.Data
	tests  []int // engine feature -> binary view test
	offset int64 // error of the cancelled inconsistent rows
	rows   int   // rows after merging (data.N counts padding slots too)
}

// prepare applies the preprocessing of the paper: drop constant
// tests and tests equal or complementary to an earlier one; merge the rows
// of each feature vector into one weighted row per class, after
// subtracting the smallest class count m of the group from every class
// count (two classes: the majority class keeps weight |w⁻−w⁺|, a tie drops
// the vector), and count (C−1)·m errors per group in offset, since any
// leaf misclassifies at least that much of the group.
func prepare(ctx context.Context, v *model.BinaryView, s Config) (*prepared, error) {
	d := v.Data
	n, C := v.N, v.Data.NumClasses()
	weights := make([]int64, n)
	for r := range n {
		w := d.Weight(r)
		if w < 0 || w != math.Trunc(w) || w > 1<<30 {
			return nil, fmt.Errorf("blossom: row %d has weight %v; blossom needs whole non-negative weights", r, w)
		}
		weights[r] = int64(w)
	}
	p := &prepared{}
	if s.NoDropRedundant {
		for t := range v.Tests {
			p.tests = append(p.tests, t)
		}
	} else {
		kept, err := v.KeptTests(ctx)
		if err != nil {
			return nil, fmt.Errorf("blossom: preparing the data: %w", err)
		}
		p.tests = kept
	}
	m := len(p.tests)
	// Row-major bit vectors of the kept tests, by block transposes.
	kept := make([][]uint64, m)
	for k, t := range p.tests {
		kept[k] = v.True[t]
	}
	// The bit rows, the gathered engine rows and their columns are
	// transient copies of the kept tests: account them before making them.
	rw := (m + 63) / 64
	scratch := 3 * int64(n) * int64(rw) * 8
	if err := s.Budget.Reserve(scratch, "blossom's row-major copy of the data"); err != nil {
		return nil, fmt.Errorf("blossom: %w", err)
	}
	defer s.Budget.Release(scratch)
	rowBits, _, err := model.RowMajorContext(ctx, kept, n)
	kept = nil
	if err != nil {
		return nil, fmt.Errorf("blossom: preparing the data: %w", err)
	}
	type group struct {
		row int // representative
		cnt []int64
	}
	var rows []int // representative original row of each engine row
	var labels []int
	var ws []int64
	if s.NoMergeRows {
		for r := range n {
			if weights[r] > 0 {
				rows, labels, ws = append(rows, r), append(labels, d.Labels[r]), append(ws, weights[r])
			}
		}
	} else {
		seed := maphash.MakeSeed()
		byHash := map[uint64][]int{}
		var groups []group
		for r := range n {
			if r&(1<<16-1) == 0 {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("blossom: preparing the data: %w", err)
				}
			}
			if weights[r] == 0 {
				continue
			}
			key := rowBits[r*rw : (r+1)*rw]
			hv := model.Bitset(key).Hash(seed)
			gi := -1
			for _, g := range byHash[hv] {
				if equalWords(rowBits[groups[g].row*rw:(groups[g].row+1)*rw], key) {
					gi = g
					break
				}
			}
			if gi < 0 {
				gi = len(groups)
				groups = append(groups, group{row: r, cnt: make([]int64, C)})
				byHash[hv] = append(byHash[hv], gi)
			}
			groups[gi].cnt[d.Labels[r]] += weights[r]
		}
		for _, g := range groups {
			mn := g.cnt[0]
			for _, c := range g.cnt {
				mn = min(mn, c)
			}
			p.offset += int64(C-1) * mn
			for c, x := range g.cnt {
				if x-mn > 0 {
					rows, labels, ws = append(rows, g.row), append(labels, c), append(ws, x-mn)
				}
			}
		}
	}
	nr := len(rows)
	p.rows = nr
	// The engine rows' bits, gathered row by row and turned back into
	// one column per kept test.
	sel := rowBits
	if nr != n || !identity(rows) {
		sel = make([]uint64, nr*rw)
		for i, r := range rows {
			copy(sel[i*rw:(i+1)*rw], rowBits[r*rw:(r+1)*rw])
		}
	}
	rowBits = nil
	cols := model.ColumnMajor(sel, rw, nr, m)
	sel = nil
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blossom: preparing the data: %w", err)
	}
	p.data, err = blossom.NewData(nr, C, cols, labels, ws)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// identity reports whether rows[i] == i for every i.
func identity(rows []int) bool {
	for i, r := range rows {
		if r != i {
			return false
		}
	}
	return true
}

func equalWords(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
