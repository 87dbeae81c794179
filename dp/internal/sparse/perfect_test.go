package sparse

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// bruteLeaves is the fewest leaves of a consistent tree of depth at most
// d on rows whose leaves hold at least minSup rows, by trying every tree
// (noTree: none).
func bruteLeaves(v *model.BinaryView, rows model.Bitset, d, minSup int) int {
	nc, n := 0, rows.Count()
	for _, cls := range v.Class {
		if model.AndCount(rows, cls) > 0 {
			nc++
		}
	}
	if nc <= 1 && n >= minSup {
		return 1
	}
	if d == 0 {
		return noTree
	}
	best := noTree
	for t := range v.Tests {
		lo, hi := model.NewBitset(v.N), model.NewBitset(v.N)
		hi.And(rows, v.True[t])
		lo.AndNot(rows, v.True[t])
		if lo.Count() < minSup || hi.Count() < minSup || lo.Count() == 0 || hi.Count() == 0 {
			continue
		}
		if l, h := bruteLeaves(v, lo, d-1, minSup), bruteLeaves(v, hi, d-1, minSup); l < noTree && h < noTree {
			best = min(best, l+h)
		}
	}
	return best
}

// randomData has n rows of f numeric columns with up to levels values
// and a categorical one, k classes, and a few rows not to classify.
func randomData(rng *rand.Rand, n, f, levels, k int) (*model.Dataset, model.Bitset) {
	d := &model.Dataset{Name: "random"}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint(c))
	}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		for r := range n {
			ft.Values[r] = float64(rng.IntN(levels))
		}
		d.Features = append(d.Features, ft)
	}
	cat := model.Feature{Name: "c", Kind: model.Categorical, Levels: []string{"a", "b", "c"}, Values: make([]float64, n)}
	for r := range n {
		cat.Values[r] = float64(rng.IntN(3))
	}
	d.Features = append(d.Features, cat)
	d.Labels = make([]int, n)
	for r := range n {
		d.Labels[r] = int(d.Features[0].Values[r]) % k
		if rng.IntN(3) == 0 {
			d.Labels[r] = rng.IntN(k)
		}
	}
	keep, _, _ := d.ConsistentRows(true)
	return d, keep
}

// TestSolvePerfectBrute compares the least depth and the fewest leaves
// at it with brute force on tiny random data, with minimum supports, node
// limits and depth caps.
func TestSolvePerfectBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for i := range 60 {
		d, keep := randomData(rng, 6+rng.IntN(9), 1+rng.IntN(2), 3+rng.IntN(4), 2+rng.IntN(2))
		v := model.Binarize(d)
		cfg := PerfectConfig{Size: i%2 == 1, Keep: keep, MinSupport: 1 + i%4/3}
		if i%5 == 2 {
			cfg.MaxNodes = 1 + rng.IntN(4)
		}
		if i%7 == 3 {
			cfg.MaxDepth = 1 + rng.IntN(3)
		}
		// Brute force: the least depth within the limits, its leaves.
		depth, leaves := -1, 0
		for k := 0; k <= 6 && (cfg.MaxDepth == 0 || k <= cfg.MaxDepth); k++ {
			l := bruteLeaves(v, keep, k, cfg.MinSupport)
			if l < noTree && (cfg.MaxNodes == 0 || l <= cfg.MaxNodes+1) {
				depth, leaves = k, l
				break
			}
		}
		r := SolvePerfect(context.Background(), v, cfg)
		name := fmt.Sprintf("case %d (%d rows, %+v)", i, keep.Count(), cfg)
		if depth < 0 {
			if !r.Infeasible || r.Tree != nil {
				t.Errorf("%s: brute force finds no tree within 6 levels, the search %+v", name, r)
			}
			continue
		}
		if r.Tree == nil || !r.Optimal {
			t.Fatalf("%s: no optimal tree: %+v", name, r)
		}
		g := r.Tree
		if g.Depth() != depth || r.DepthLB != depth {
			t.Errorf("%s: depth %d (bound %d), brute force %d", name, g.Depth(), r.DepthLB, depth)
		}
		if (cfg.Size || cfg.MaxNodes > 0) && g.Leaves() != leaves {
			t.Errorf("%s: %d leaves, brute force %d", name, g.Leaves(), leaves)
		}
		if cfg.MaxNodes > 0 && g.InternalNodes() > cfg.MaxNodes {
			t.Errorf("%s: %d internal nodes", name, g.InternalNodes())
		}
		count := make([]int, len(g.Nodes))
		for r := range d.Rows() {
			if keep.Has(r) {
				count[g.Leaf(d, r)]++
				if g.Predict(d, r) != d.Labels[r] {
					t.Errorf("%s: row %d misclassified", name, r)
				}
			}
		}
		for j, nd := range g.Nodes {
			if nd.Leaf && count[j] < cfg.MinSupport {
				t.Errorf("%s: leaf %d holds %d kept rows", name, j, count[j])
			}
		}
	}
}

// A stopped search claims nothing it did not prove, and the caches count
// against the budget: a budget too small stops it with MemoryStop.
func TestSolvePerfectStops(t *testing.T) {
	d, keep := randomData(rand.New(rand.NewPCG(33, 34)), 400, 6, 30, 3)
	v := model.Binarize(d)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := SolvePerfect(ctx, v, PerfectConfig{Size: true, Keep: keep})
	if r.Optimal || r.Infeasible || r.Tree != nil && r.Tree.Validate() != nil {
		t.Errorf("cancelled: %+v", r)
	}
	b := backend.NewBudget(2 * memoChunk)
	r = SolvePerfect(context.Background(), v, PerfectConfig{Size: true, Keep: keep, Budget: b})
	if r.MemoryStop == nil || r.Optimal || r.Infeasible {
		t.Errorf("a budget of two chunks: %+v", r)
	}
	if b.Used() != 0 {
		t.Errorf("%d bytes still reserved", b.Used())
	}
}

// A node limit on data of one class: the single leaf.
func TestSolvePerfectOneClass(t *testing.T) {
	d := &model.Dataset{Name: "one", Classes: []string{"a"}, Labels: []int{0, 0, 0},
		Features: []model.Feature{{Name: "x", Values: []float64{1, 2, 3}}}}
	for _, cfg := range []PerfectConfig{{MaxNodes: 2}, {Size: true}, {}} {
		r := SolvePerfect(context.Background(), model.Binarize(d), cfg)
		if r.Tree == nil || !r.Optimal || r.Tree.Size() != 1 {
			t.Errorf("%+v: %+v", cfg, r)
		}
	}
}

// TestSolvePerfectNodes compares the fewest leaves at any depth (Nodes)
// with brute force at every depth up to the rows' count, with minimum
// supports, node limits and depth caps, and checks that some case has
// fewer leaves at a depth beyond the least than at the least.
func TestSolvePerfectNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	deeper := 0
	for i := range 200 {
		d, keep := randomData(rng, 8+rng.IntN(7), 2+rng.IntN(3), 2+rng.IntN(2), 2)
		v := model.Binarize(d)
		cfg := PerfectConfig{Nodes: true, Keep: keep, MinSupport: 1 + i%5/4}
		if i%5 == 2 {
			cfg.MaxNodes = 1 + rng.IntN(5)
		}
		if i%7 == 3 {
			cfg.MaxDepth = 1 + rng.IntN(3)
		}
		// Brute force: a tree of L leaves has depth at most L−1 < rows.
		top := keep.Count()
		if cfg.MaxDepth > 0 {
			top = min(top, cfg.MaxDepth)
		}
		leaves, least := bruteLeaves(v, keep, top, cfg.MinSupport), noTree
		for k := 0; k <= top; k++ {
			if l := bruteLeaves(v, keep, k, cfg.MinSupport); l < noTree {
				least = l
				break
			}
		}
		if cfg.MaxNodes > 0 && leaves > cfg.MaxNodes+1 {
			leaves = noTree
		}
		r := SolvePerfect(context.Background(), v, cfg)
		name := fmt.Sprintf("case %d (%d rows, %+v)", i, keep.Count(), cfg)
		if leaves == noTree {
			if !r.Infeasible || r.Tree != nil {
				t.Errorf("%s: brute force finds no tree, the search %+v", name, r)
			}
			continue
		}
		if r.Tree == nil || !r.Optimal || r.Tree.Leaves() != leaves || r.LeavesLB != leaves {
			t.Fatalf("%s: %+v, brute force %d leaves", name, r, leaves)
		}
		if cfg.MaxDepth > 0 && r.Tree.Depth() > cfg.MaxDepth || cfg.MaxNodes > 0 && r.Tree.InternalNodes() > cfg.MaxNodes {
			t.Errorf("%s: depth %d, %d internal nodes", name, r.Tree.Depth(), r.Tree.InternalNodes())
		}
		for row := range d.Rows() {
			if keep.Has(row) && r.Tree.Predict(d, row) != d.Labels[row] {
				t.Errorf("%s: row %d misclassified", name, row)
			}
		}
		if cfg.MaxNodes == 0 && leaves < least {
			deeper++
		}
	}
	if deeper == 0 {
		t.Errorf("no case had fewer leaves deeper than at the least depth")
	}
}
