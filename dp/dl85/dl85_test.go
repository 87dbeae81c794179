package dl85

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/odtkit/odtkit/dp/internal/dl85"
	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// dl85Random builds a small random dataset: binary and three-valued
// numeric columns (so the binary view has nested thresholds and, often,
// duplicate or constant tests), nc classes, optional weights.
func dl85Random(rng *rand.Rand, n, m, nc int, weighted bool) *model.Dataset {
	d := &model.Dataset{Name: "random"}
	for c := range nc {
		d.Classes = append(d.Classes, strconv.Itoa(c))
	}
	for f := range m {
		vals := make([]float64, n)
		levels := 2 + rng.IntN(2)
		for r := range vals {
			vals[r] = float64(rng.IntN(levels))
		}
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprintf("f%d", f), Values: vals})
	}
	for range n {
		d.Labels = append(d.Labels, rng.IntN(nc))
	}
	if weighted {
		for range n {
			d.Weights = append(d.Weights, 0.1+rng.Float64()*3)
		}
	}
	return d
}

// dl85Verify checks a result on the data: depth, support of every leaf,
// claimed error and the expected optimum.
func dl85Verify(t *testing.T, v *model.BinaryView, depth, minSup int, r *Result, want float64) {
	t.Helper()
	if err := r.Tree.Validate(); err != nil {
		t.Fatalf("invalid tree: %v", err)
	}
	if err := r.Tree.CheckData(v.Data); err != nil {
		t.Fatal(err)
	}
	if r.Tree.Depth() > depth {
		t.Fatalf("depth %d > %d", r.Tree.Depth(), depth)
	}
	got := r.Tree.WeightedErrors(v.Data)
	if math.Abs(got-r.Error) > 1e-9 {
		t.Fatalf("tree makes %v errors, solver claims %v", got, r.Error)
	}
	count := map[int]int{}
	for row := range v.Data.Rows() {
		count[r.Tree.Leaf(v.Data, row)]++
	}
	for leaf, c := range count {
		if c < minSup {
			t.Fatalf("leaf %d holds %d rows < min support %d", leaf, c, minSup)
		}
	}
	if !r.Optimal || math.Abs(r.Error-want) > 1e-9 || math.Abs(r.LowerBound-r.Error) > 1e-9 {
		t.Fatalf("error %v bound %v optimal %v; brute force %v", r.Error, r.LowerBound, r.Optimal, want)
	}
}

// TestDL85Brute compares DL8.5 (every setting) and CA-DL8.5 (every rule
// and relaxation) with brute force on small random data: multiclass,
// weighted, with min support.
func TestDL85Brute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n := 1 + rng.IntN(40)
		m := 1 + rng.IntN(5)
		nc := 2 + rng.IntN(3)
		weighted := i%3 == 1
		d := dl85Random(rng, n, m, nc, weighted)
		v := model.Binarize(d)
		depth := rng.IntN(4)
		minSup := 1 + rng.IntN(4)
		if i%2 == 0 {
			minSup = 1
		}
		rows := make([]int, n)
		for r := range rows {
			rows[r] = r
		}
		name := fmt.Sprintf("%d/n%d-m%d-c%d-w%v-d%d-s%d", i, n, m, nc, weighted, depth, minSup)
		t.Run(name, func(t *testing.T) {
			settings := []Config{{}, {NoDepth2: true}, {IndexOrder: true}, {CacheMB: 1e-4},
				{NoDepth2: true, tune: func(c *dl85.Config) { c.NoCachedBounds, c.NoInheritTests = true, true }},
				{NoDepth2: true, tune: func(c *dl85.Config) { c.FalseFirst, c.NoSimilarity = true, true }}}
			run := func(label string, f func() (*Result, error)) {
				t.Helper()
				r, err := f()
				if n < minSup {
					if !errors.Is(err, ErrInfeasible) {
						t.Fatalf("%s: %d rows < min support %d: got %v, want infeasible", label, n, minSup, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				dl85Verify(t, v, depth, minSup, r, dptest.Brute(v, rows, depth, minSup))
			}
			for k, s := range settings {
				run(fmt.Sprintf("dl85 settings %d", k), func() (*Result, error) {
					return Solve(context.Background(), v, withDepth(s, depth, minSup))
				})
			}
			for _, rule := range cadl85Rules {
				for _, relax := range cadl85Relaxes {
					run("cadl85 "+rule+" "+relax, func() (*Result, error) {
						s := Config{NoDepth2: i%2 == 0}
						if i%4 == 3 {
							s.CacheMB = 1e-4 // evictions between and within restarts
						}
						return SolveNamed(context.Background(), v, Spec{Rule: rule, Relax: relax}, withDepth(s, depth, minSup))
					})
				}
			}
		})
	}
}

// TestDL85TinyCache solves cp4im files with a cache cap far below what
// the search needs: the optimum is still found, and evictions happened.
func TestDL85TinyCache(t *testing.T) {
	cells := dl85RefCells(t)
	for _, c := range cells {
		if c.Depth != 4 || !(c.DL85CPU >= 0 && c.DL85CPU <= 0.4) || c.Optimum == 0 {
			continue
		}
		t.Run(c.Dataset, func(t *testing.T) {
			v := dl85Load(t, c.Dataset)
			r, err := Solve(context.Background(), v, Config{MaxDepth: c.Depth, CacheMB: 0.01})
			if err != nil {
				t.Fatal(err)
			}
			dl85Check(t, v, c.Depth, 1, r, float64(c.Optimum))
			if r.Stats["cache_evictions"].(int) == 0 {
				t.Fatalf("a 10 KiB cache was never evicted (peak %v bytes)", r.Stats["cache_peak_bytes"])
			}
			if peak := r.Stats["cache_peak_bytes"].(int64); peak > 20000 {
				t.Fatalf("cache peak %d bytes above the 10 KiB cap", peak)
			}
		})
	}
}

// TestDL85MinSupport checks on cp4im data that a larger min support is
// honoured and can only raise the optimum, against brute force at depth 2.
func TestDL85MinSupport(t *testing.T) {
	v := dl85Load(t, "primary-tumor")
	rows := make([]int, v.N)
	for r := range rows {
		rows[r] = r
	}
	prev := -1.0
	for _, ms := range []int{1, 5, 20, 60} {
		r, err := Solve(context.Background(), v, Config{MaxDepth: 2, MinSupport: ms})
		if err != nil {
			t.Fatal(err)
		}
		dl85Verify(t, v, 2, ms, r, dptest.Brute(v, rows, 2, ms))
		if r.Error < prev {
			t.Fatalf("min support %d: error %v below %v of a smaller support", ms, r.Error, prev)
		}
		prev = r.Error
	}
}

// TestDL85BadInput checks that misuse gives errors, not panics.
func TestDL85BadInput(t *testing.T) {
	d := dl85Random(rand.New(rand.NewPCG(3, 4)), 10, 3, 2, false)
	v := model.Binarize(d)
	if _, err := Solve(context.Background(), v, Config{MaxDepth: -1}); err == nil {
		t.Error("negative depth accepted")
	}
	if _, err := Solve(context.Background(), v, Config{MaxDepth: 2, CacheMB: -1}); err == nil {
		t.Error("negative cache cap accepted")
	}
	if _, err := Solve(context.Background(), nil, Config{MaxDepth: 2}); err == nil {
		t.Error("nil view accepted")
	}
	for _, spec := range []Spec{{Rule: "nope"}, {Rule: "gain", Relax: "sometimes"}, {Rule: "topk", Step: -1},
		{Rule: "purity", Start: 2, StartSet: true}, {Rule: "gain", Start: math.NaN(), StartSet: true}} {
		if _, err := SolveNamed(context.Background(), v, spec, Config{MaxDepth: 2}); err == nil {
			t.Errorf("spec %+v accepted", spec)
		}
	}
}

// TestDL85Cancelled checks that a search stopped at once still returns a
// valid tree with optimal=false and a valid bound.
func TestDL85Cancelled(t *testing.T) {
	v := dl85Load(t, "pendigits")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r, err := Solve(ctx, v, Config{MaxDepth: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Optimal {
		t.Skip("solved within the limit; nothing to check")
	}
	if got := r.Tree.WeightedErrors(v.Data); got != r.Error {
		t.Fatalf("tree makes %v errors, claimed %v", got, r.Error)
	}
	// The reference optimum at depth 4 is 13; depth 5 can only be lower.
	if r.LowerBound > 13 || r.LowerBound > r.Error {
		t.Fatalf("bound %v is not valid (error %v)", r.LowerBound, r.Error)
	}
}

// dl85Table builds a dataset of binary features from columns of 0/1 rows.
func dl85Table(labels []int, cols ...[]float64) *model.Dataset {
	d := &model.Dataset{Name: "table", Labels: labels, Classes: []string{"0", "1"}}
	for f, c := range cols {
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprintf("f%d", f), Values: c})
	}
	return d
}

// TestDL85NoAdmissibleSplit checks the erratum of the paper's Algorithm
// 1 (which returns no tree when no test passes the minimum support): a
// node without an admissible split, at the root or below it, is a leaf,
// for DL8.5 and every CA-DL8.5 rule.
func TestDL85NoAdmissibleSplit(t *testing.T) {
	cases := []struct {
		name          string
		d             *model.Dataset
		depth, minSup int
		want          float64
	}{
		// Root: every test leaves 3 < 4 rows on one side, so only the
		// root leaf (4 rows of class 1 among 10) is admissible.
		{"root", dl85Table([]int{1, 1, 1, 0, 0, 0, 0, 0, 0, 1},
			[]float64{1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
			[]float64{1, 1, 1, 1, 1, 1, 1, 0, 0, 0}), 3, 4, 4},
		// Same data with support 1: f0 alone leaves only row 9 wrong.
		{"root-support1", dl85Table([]int{1, 1, 1, 0, 0, 0, 0, 0, 0, 1},
			[]float64{1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
			[]float64{1, 1, 1, 1, 1, 1, 1, 0, 0, 0}), 1, 1, 1},
		// Inner nodes: splitting on f0 (6/6 rows) leaves a low side where
		// f1 holds 2 < 3 rows and f0 is constant, so it must be a leaf
		// (1 error) while the high side splits perfectly on f1; splitting
		// on f1 first (5/7 rows) leaves two sides too small to split.
		// The optimum is 1; a search that drops leafless nodes finds only
		// the root leaf (4 errors).
		{"inner", dl85Table([]int{1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0},
			[]float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0},
			[]float64{1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0}), 2, 3, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := model.Binarize(c.d)
			rows := make([]int, v.N)
			for r := range rows {
				rows[r] = r
			}
			if b := dptest.Brute(v, rows, c.depth, c.minSup); b != c.want {
				t.Fatalf("brute force gives %v, the case was built for %v", b, c.want)
			}
			check := func(label string, r *Result, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				dl85Verify(t, v, c.depth, c.minSup, r, c.want)
			}
			for _, s := range []Config{{}, {NoDepth2: true}, {CacheMB: 1e-4}} {
				r, err := Solve(context.Background(), v, withDepth(s, c.depth, c.minSup))
				check(fmt.Sprintf("dl85 %+v", s), r, err)
			}
			for _, rule := range cadl85Rules {
				r, err := SolveNamed(context.Background(), v, Spec{Rule: rule}, Config{MaxDepth: c.depth, MinSupport: c.minSup, NoDepth2: true})
				check("cadl85 "+rule, r, err)
			}
		})
	}
}

// withDepth returns s with the depth limit and minimum support set.
func withDepth(s Config, depth, minSup int) Config {
	s.MaxDepth, s.MinSupport = depth, minSup
	return s
}

// A search stopped anywhere reports a bound never above the optimum
// (brute force) and at least every bound it reported while it ran;
// some stopped runs report a positive bound below their tree's error.
// Modes: DL8.5, CA-DL8.5, DL8.5 with three workers and a gap.
func TestDL85StoppedBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	informative := 0
	for i := range 8 {
		d := dl85Random(rng, 60+rng.IntN(60), 4+rng.IntN(3), 2+rng.IntN(2), i%2 == 1)
		v := model.Binarize(d)
		for _, depth := range []int{3, 4} {
			rows := make([]int, d.Rows())
			for r := range rows {
				rows[r] = r
			}
			want := dptest.Brute(v, rows, depth, 1)
			for mode := range 3 {
				anytime := mode == 1
				for after := 0; after < 1<<16; after = after*2 + 1 {
					top := math.Inf(-1)
					cfg := Config{MaxDepth: depth, Workers: 1, OnBound: func(lb float64) { top = max(top, lb) }}
					if mode == 2 {
						// Three workers under a gap.
						cfg.Workers, cfg.RelGap = 3, 0.2
					}
					var r *Result
					var err error
					if anytime {
						r, err = SolveAnytime(modeltest.StopAfter(after), v, &Discrepancy{Schedule: Monotonic{Delta: 1}}, cfg)
					} else {
						r, err = Solve(modeltest.StopAfter(after), v, cfg)
					}
					if errors.Is(err, context.Canceled) {
						continue // stopped before the search began
					}
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("data %d depth %d mode %d after %d", i, depth, mode, after)
					if r.LowerBound > want+1e-9 || top > want+1e-9 || r.Error < want-1e-9 {
						t.Fatalf("%s: error %v bound %v (reported %v), brute force %v", name, r.Error, r.LowerBound, top, want)
					}
					if r.LowerBound < top-1e-9 {
						t.Fatalf("%s: bound %v below one reported before, %v", name, r.LowerBound, top)
					}
					if r.Optimal || r.Gap {
						break
					}
					if r.LowerBound > 0 && r.LowerBound < r.Error {
						informative++
					}
				}
			}
		}
	}
	if informative == 0 {
		t.Error("no stopped run reported a bound between 0 and its tree's error")
	}
}

// The similarity bound settles branches without searching them on
// unweighted data with a minimum support of one row, and only there;
// with it and without it, one worker or three, DL8.5 finds the
// brute-force optimum.
func TestDL85SimilarityBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 3))
	pruned := int64(0)
	for i := range 20 {
		weighted := i%5 == 4
		d := dl85Random(rng, 80+rng.IntN(120), 3+rng.IntN(3), 2+rng.IntN(2), weighted)
		for f := range d.Features {
			// Finer thresholds: more tests that split alike.
			for r := range d.Features[f].Values {
				d.Features[f].Values[r] = float64(rng.IntN(6))
			}
		}
		v := model.Binarize(d)
		depth := 3 + rng.IntN(2)
		minSup := 1
		if i%5 == 3 {
			minSup = 2 + rng.IntN(3)
		}
		rows := make([]int, d.Rows())
		for r := range rows {
			rows[r] = r
		}
		want := dptest.Brute(v, rows, depth, minSup)
		for _, workers := range []int{1, 3} {
			for _, off := range []bool{false, true} {
				s := withDepth(Config{Workers: workers, tune: func(c *dl85.Config) { c.NoSimilarity = off }}, depth, minSup)
				r, err := Solve(context.Background(), v, s)
				if err != nil {
					t.Fatal(err)
				}
				dl85Verify(t, v, depth, minSup, r, want)
				n := r.Stats["similar_pruned"].(int64)
				if n > 0 && (off || weighted || minSup > 1) {
					t.Fatalf("data %d (weighted %v, min support %d, bound off %v): %d branches pruned by the similarity bound", i, weighted, minSup, off, n)
				}
				pruned += n
			}
		}
	}
	if pruned == 0 {
		t.Error("the similarity bound settled no branch")
	}
}

// The order of a test's two branches changes neither the optimum nor
// the tree: each branch's tree is its own first optimal tree.
func TestDL85BranchOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	for i := range 200 {
		d := dl85Random(rng, 30+rng.IntN(150), 2+rng.IntN(5), 2+rng.IntN(2), i%4 == 3)
		v := model.Binarize(d)
		depth := 2 + rng.IntN(3)
		var trees [2]string
		for k, falseFirst := range []bool{false, true} {
			r, err := Solve(context.Background(), v, withDepth(Config{Workers: 1, tune: func(c *dl85.Config) { c.FalseFirst = falseFirst }}, depth, 1))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Optimal {
				t.Fatalf("data %d: not optimal", i)
			}
			trees[k] = dl85TreeJSON(t, r)
		}
		if trees[0] != trees[1] {
			t.Fatalf("data %d depth %d: the costlier side first gives\n%s\nthe false side first\n%s", i, depth, trees[0], trees[1])
		}
	}
}
