package cart

import (
	"context"
	"fmt"
	"math/big"
	"path/filepath"
	"slices"
	"testing"

	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// sharedDir returns ../shared beside the repository root, or skips.
func sharedDir(t *testing.T) string {
	t.Helper()
	return shared.Dir(t, "data/cp4im")
}

// refCART is an independent, row-by-row implementation of the greedy rule
// documented on CART (unit weights): at every node, among the allowed
// tests leaving at least minLeaf rows on each side, the one with the
// lowest sum of n·Gini over both sides, compared exactly as rationals,
// the earliest allowed on ties; a leaf at depth 0, when pure, when the
// node has fewer than 2·minLeaf rows or no admissible test; a split whose
// subtrees make no fewer errors than the node's majority leaf becomes
// that leaf. The allowed tests are tests (nil: all), only root at the
// root (≥ 0), none of the path's with noRepeat. A complete tree splits
// every node above depth 0 that has an allowed test (sides may be empty,
// no min leaf, no pruning), and an empty node predicts its parent's
// class.
type refCART struct {
	d        *model.Dataset
	tests    []model.Test
	allowed  []int
	root     int
	noRepeat bool
	complete bool
	minLeaf  int
	b        *model.Builder
}

func (c *refCART) majority(rows []int) (cls, errs int) {
	cnt := make([]int, c.d.NumClasses())
	for _, r := range rows {
		cnt[c.d.Labels[r]]++
	}
	for k := range cnt {
		if cnt[k] > cnt[cls] {
			cls = k
		}
	}
	return cls, len(rows) - cnt[cls]
}

// purity is Σ_k count_k² / n over the rows (0 for none); n·Gini = n −
// purity, so the lowest Gini sum is the highest purity sum.
func (c *refCART) purity(rows []int) *big.Rat {
	if len(rows) == 0 {
		return new(big.Rat)
	}
	cnt := map[int]int64{}
	for _, r := range rows {
		cnt[c.d.Labels[r]]++
	}
	var sq int64
	for _, x := range cnt {
		sq += x * x
	}
	return big.NewRat(sq, int64(len(rows)))
}

// grow grows the subtree of rows; path holds the tests above, parent the
// parent's class.
func (c *refCART) grow(rows []int, depth int, path []int, parent int) (node, errs int) {
	cls, leafErr := c.majority(rows)
	if len(rows) == 0 {
		cls = parent
	}
	if depth == 0 || !c.complete && (leafErr == 0 || len(rows) < 2*c.minLeaf) {
		return c.b.Leaf(cls), leafErr
	}
	cands := c.allowed
	if cands == nil {
		cands = make([]int, len(c.tests))
		for t := range cands {
			cands[t] = t
		}
	}
	best := -1
	var bestPurity *big.Rat
	var bestLo, bestHi []int
	for _, ti := range cands {
		if len(path) == 0 && c.root >= 0 && ti != c.root || c.noRepeat && slices.Contains(path, ti) {
			continue
		}
		var lo, hi []int
		for _, r := range rows {
			if c.tests[ti].Eval(c.d, r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if !c.complete && (len(lo) < c.minLeaf || len(hi) < c.minLeaf) {
			continue
		}
		p := new(big.Rat).Add(c.purity(lo), c.purity(hi))
		if best < 0 || p.Cmp(bestPurity) > 0 {
			best, bestPurity, bestLo, bestHi = ti, p, lo, hi
		}
	}
	if best < 0 {
		return c.b.Leaf(cls), leafErr
	}
	path = append(path[:len(path):len(path)], best)
	lo, le := c.grow(bestLo, depth-1, path, cls)
	hi, he := c.grow(bestHi, depth-1, path, cls)
	if !c.complete && le+he >= leafErr {
		return c.b.Leaf(cls), leafErr
	}
	return c.b.Split(c.tests[best], lo, hi), le + he
}

// checkCART compares CART with the reference on d at depths 1-3.
func checkCART(t *testing.T, d *model.Dataset, minLeaf int) {
	t.Helper()
	v := model.Binarize(d)
	all := make([]int, d.Rows())
	for r := range all {
		all[r] = r
	}
	for depth := 1; depth <= 3; depth++ {
		ref := &refCART{d: d, tests: v.Tests, root: -1, minLeaf: minLeaf, b: model.NewBuilder(d, model.KindTree)}
		root, wantErrs := ref.grow(all, depth, nil, 0)
		want := ref.b.Graph(root)
		g, werr := Grow(context.Background(), v, depth, Config{MinLeaf: minLeaf})
		if err := g.Validate(); err != nil {
			t.Fatalf("%s depth %d: invalid tree: %v", d.Name, depth, err)
		}
		if got := g.Errors(d); got != wantErrs || werr != float64(wantErrs) {
			t.Errorf("%s depth %d min leaf %d: CART makes %d errors (claims %v), the reference %d", d.Name, depth, minLeaf, got, werr, wantErrs)
		}
		if g.Depth() > depth {
			t.Errorf("%s depth %d: tree depth %d", d.Name, depth, g.Depth())
		}
		if g.Text() != want.Text() {
			t.Errorf("%s depth %d min leaf %d: CART's tree\n%s\ndiffers from the reference's\n%s", d.Name, depth, minLeaf, g.Text(), want.Text())
		}
		t.Logf("%s depth %d min leaf %d: %d errors", d.Name, depth, minLeaf, wantErrs)
	}
}

func TestCARTTestdata(t *testing.T) {
	for _, f := range []string{"vote.txt", "iris.csv", "monk1.csv", "500_Person_Gender_Height_Weight_Index.csv"} {
		d, err := model.ReadFile(filepath.Join("..", "..", "testdata", f), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkCART(t, d, 1)
		checkCART(t, d, 10)
	}
}

func TestCARTCP4IM(t *testing.T) {
	shared := sharedDir(t)
	files := []string{"anneal.txt", "heart-cleveland.txt", "hepatitis.txt", "lymph.txt", "primary-tumor.txt",
		"soybean.txt", "tic-tac-toe.txt", "zoo-1.txt", "breast-wisconsin.txt", "kr-vs-kp.txt"}
	if !testing.Short() {
		files = append(files, "mushroom.txt", "hypothyroid.txt")
	}
	for _, f := range files {
		d, err := model.ReadFile(filepath.Join(shared, "data", "cp4im", f), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkCART(t, d, 1)
		checkCART(t, d, 5)
	}
}

func TestCARTLeafCases(t *testing.T) {
	d := &model.Dataset{Name: "tiny", Classes: []string{"a", "b"}, Labels: []int{0, 0, 1, 1, 0},
		Features: []model.Feature{{Name: "x", Values: []float64{1, 2, 3, 4, 5}}}}
	v := model.Binarize(d)
	// Depth 0: the majority leaf.
	if g, e := Grow(context.Background(), v, 0, Config{}); g.Size() != 1 || e != 2 || g.Nodes[0].Class != 0 {
		t.Errorf("depth 0: size %d errors %v", g.Size(), e)
	}
	// Min leaf 3 forbids every split of 5 rows.
	if g, e := Grow(context.Background(), v, 3, Config{MinLeaf: 3}); g.Size() != 1 || e != 2 {
		t.Errorf("min leaf 3: size %d errors %v", g.Size(), e)
	}
	// Depth 2 separates the classes exactly.
	if g, e := Grow(context.Background(), v, 2, Config{}); e != 0 || g.Errors(d) != 0 {
		t.Errorf("depth 2: errors %v\n%s", e, g.Text())
	}
	// Weighted data: the heavy row wins the leaf.
	d.Weights = []float64{1, 1, 1, 5, 1}
	if g, e := Grow(context.Background(), model.Binarize(d), 0, Config{}); g.Nodes[0].Class != 1 || e != 3 {
		t.Errorf("weighted leaf: class %d errors %v", g.Nodes[0].Class, e)
	}
}

// CART on the 10k × 20 numeric file (coarsened to a 75 MB view) at depth
// 2 gives a verified tree; a cancelled context stops it at the root with
// a leaf whose error is still exact.
func TestCARTScaleAndCancel(t *testing.T) {
	d := modeltest.Numeric(10_000, 20, 1)
	v, err := model.BinarizeBudget(context.Background(), d, 75<<20)
	if err != nil {
		t.Fatal(err)
	}
	g, werr := Grow(context.Background(), v, 2, Config{})
	if e := g.WeightedErrors(d); e != werr || g.Depth() != 2 || werr >= 0.2*float64(d.Rows()) {
		t.Fatalf("depth %d, %v errors on the data, %v claimed", g.Depth(), e, werr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, werr = Grow(ctx, v, 2, Config{})
	if e := g.WeightedErrors(d); e != werr || g.Depth() != 0 {
		t.Fatalf("cancelled: depth %d, %v errors on the data, %v claimed", g.Depth(), e, werr)
	}
}

// A node limit caps the tests used (and never grows a tree beyond the
// unlimited one); a leaf cost keeps only splits that pay for their extra
// leaf: λ = 0 is the plain tree, a λ above the error rate of the root
// leaf gives that leaf, and every kept split lowers errors + λ·W·leaves.
func TestCARTLeafCostAndNodeLimit(t *testing.T) {
	d := modeltest.Numeric(300, 5, 7)
	v := model.Binarize(d)
	ctx := context.Background()
	plain, perr := Grow(ctx, v, 4, Config{})
	for k := 1; k <= 6; k++ {
		g, _ := Grow(ctx, v, 4, Config{MaxNodes: k})
		if g.InternalNodes() > k || g.InternalNodes() > plain.InternalNodes() {
			t.Errorf("max nodes %d: %d internal nodes (unlimited: %d)", k, g.InternalNodes(), plain.InternalNodes())
		}
	}
	if g, e := Grow(ctx, v, 4, Config{LeafCost: 0}); e != perr || g.Size() != plain.Size() {
		t.Errorf("λ = 0: %v errors, %d nodes; plain %v, %d", e, g.Size(), perr, plain.Size())
	}
	root, _ := Grow(ctx, v, 0, Config{})
	rootRate := root.WeightedErrors(d) / d.TotalWeight()
	if g, _ := Grow(ctx, v, 4, Config{LeafCost: rootRate + 0.01}); g.Size() != 1 {
		t.Errorf("λ above the root's error rate: %d nodes, want the leaf", g.Size())
	}
	prev := plain.Leaves()
	for _, lambda := range []float64{0.001, 0.01, 0.05} {
		g, e := Grow(ctx, v, 4, Config{LeafCost: lambda})
		if g.Leaves() > prev {
			t.Errorf("λ %v: %d leaves, more than with a smaller λ (%d)", lambda, g.Leaves(), prev)
		}
		prev = g.Leaves()
		if cost := e/d.TotalWeight() + lambda*float64(g.Leaves()); cost > rootRate+lambda+1e-12 {
			t.Errorf("λ %v: cost %v above the root leaf's %v", lambda, cost, rootRate+lambda)
		}
	}
}

// shape writes a grown tree as t<test>(<low>,<high>) and leaves as their
// class.
func shape(n *Node) string {
	if n.Test < 0 {
		return fmt.Sprint(n.Class)
	}
	return fmt.Sprintf("t%d(%s,%s)", n.Test, shape(n.Low), shape(n.High))
}

// On x = 1..5 with labels 0 0 1 1 0 the tests are x ≤ 1.5, 2.5, 3.5,
// 4.5 (t0-t3) and the n·Gini sums of the root's splits 2, 4/3, 7/3, 2:
// each case's tree follows by hand.
func TestCARTConfigByHand(t *testing.T) {
	d := &model.Dataset{Name: "tiny", Classes: []string{"a", "b"}, Labels: []int{0, 0, 1, 1, 0},
		Features: []model.Feature{{Name: "x", Values: []float64{1, 2, 3, 4, 5}}}}
	v := model.Binarize(d)
	if len(v.Tests) != 4 {
		t.Fatalf("%d tests, want 4", len(v.Tests))
	}
	t0 := 0
	rows := model.NewBitset(5)
	for _, r := range []int{0, 1, 2} {
		rows.Set(r)
	}
	for _, c := range []struct {
		name  string
		depth int
		cfg   Config
		want  string
		errs  float64
	}{
		// t1 leaves {1,2} pure: a leaf, or in the complete tree split by
		// the first test (its sides one row and none, both class 0).
		// {3,4,5} is split by t3 (two pure sides).
		{"plain", 2, Config{}, "t1(0,t3(1,0))", 0},
		{"complete", 2, Config{Complete: true}, "t1(t0(0,0),t3(1,0))", 0},
		// The root tests t0 (n·Gini 2, its low side one row): in the
		// complete tree the pure low side repeats t0 (an empty high side
		// taking its parent's class) unless repeats are barred. On
		// {2,3,4,5} t1 and t3 tie at 4/3: t1 is the first.
		{"root", 2, Config{Root: &t0}, "t0(0,t1(0,1))", 1},
		{"root complete", 2, Config{Root: &t0, Complete: true}, "t0(t0(0,0),t1(0,1))", 1},
		{"root complete no repeat", 2, Config{Root: &t0, Complete: true, NoRepeat: true}, "t0(t1(0,0),t1(0,1))", 1},
		// Only t2 and t3: t3 (2 below t2's 7/3); its low side ties 2-2,
		// class 0, so both sides predict 0 and the split is cut back
		// unless the tree is complete. A root test not among them leaves
		// the root a leaf.
		{"tests", 1, Config{Tests: []int{2, 3}}, "0", 2},
		{"tests complete", 1, Config{Tests: []int{2, 3}, Complete: true}, "t3(0,0)", 2},
		{"root not allowed", 2, Config{Tests: []int{2, 3}, Root: &t0}, "0", 2},
		{"no tests complete", 2, Config{Tests: []int{}, Complete: true}, "0", 2},
		// Rows x = 1, 2, 3 (labels 0 0 1): t1 separates them.
		{"rows", 2, Config{Rows: rows}, "t1(0,1)", 0},
		{"rows complete", 1, Config{Rows: rows, Complete: true}, "t1(0,1)", 0},
		// Depth 0 is a leaf, complete or not.
		{"complete depth 0", 0, Config{Complete: true}, "0", 2},
	} {
		n, e := GrowTree(context.Background(), v, c.depth, c.cfg)
		if got := shape(n); got != c.want || e != c.errs {
			t.Errorf("%s: %s with %v errors, want %s with %v", c.name, got, e, c.want, c.errs)
		}
	}
}

// checkConfig compares Grow under cfg with the reference (its allowed
// tests, root and rows taken from cfg) on d at depths 1-3, and checks the
// tree's own promises: the complete shape, no repeated test on a path,
// only allowed tests, the root's test.
func checkConfig(t *testing.T, d *model.Dataset, name string, cfg Config) {
	t.Helper()
	v := model.Binarize(d)
	var rows []int
	for r := range d.Rows() {
		if cfg.Rows == nil || cfg.Rows.Has(r) {
			rows = append(rows, r)
		}
	}
	root := -1
	if cfg.Root != nil {
		root = *cfg.Root
	}
	for depth := 1; depth <= 3; depth++ {
		ref := &refCART{d: d, tests: v.Tests, allowed: cfg.Tests, root: root, noRepeat: cfg.NoRepeat,
			complete: cfg.Complete, minLeaf: max(cfg.MinLeaf, 1), b: model.NewBuilder(d, model.KindTree)}
		rn, wantErrs := ref.grow(rows, depth, nil, 0)
		want := ref.b.Graph(rn)
		g, werr := Grow(context.Background(), v, depth, cfg)
		if werr != float64(wantErrs) || g.Text() != want.Text() {
			t.Errorf("%s %s depth %d: %v errors, tree\n%s\nthe reference: %d errors, tree\n%s", d.Name, name, depth, werr, g.Text(), wantErrs, want.Text())
		}
		n, _ := GrowTree(context.Background(), v, depth, cfg)
		if cfg.Root != nil && n.Test >= 0 && n.Test != *cfg.Root {
			t.Errorf("%s %s depth %d: root tests %d, want %d", d.Name, name, depth, n.Test, *cfg.Root)
		}
		var walk func(n *Node, level int, path []int)
		walk = func(n *Node, level int, path []int) {
			if n.Test < 0 {
				if cfg.Complete && level != depth {
					t.Errorf("%s %s depth %d: a leaf at level %d", d.Name, name, depth, level)
				}
				return
			}
			if cfg.NoRepeat && slices.Contains(path, n.Test) {
				t.Errorf("%s %s depth %d: test %d repeated on path %v", d.Name, name, depth, n.Test, path)
			}
			if cfg.Tests != nil && !slices.Contains(cfg.Tests, n.Test) {
				t.Errorf("%s %s depth %d: test %d not allowed", d.Name, name, depth, n.Test)
			}
			path = append(path[:len(path):len(path)], n.Test)
			walk(n.Low, level+1, path)
			walk(n.High, level+1, path)
		}
		walk(n, 0, nil)
	}
}

// Each Config field alone and together, on the test data, against the
// row-by-row reference.
func TestCARTConfigReference(t *testing.T) {
	for _, f := range []string{"vote.txt", "iris.csv", "monk1.csv"} {
		d, err := model.ReadFile(filepath.Join("..", "..", "testdata", f), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nt := len(model.Binarize(d).Tests)
		var odd []int
		for i := 1; i < nt; i += 2 {
			odd = append(odd, i)
		}
		rows := model.NewBitset(d.Rows())
		for r := 0; r < d.Rows(); r += 3 {
			rows.Set(r)
			if r+1 < d.Rows() {
				rows.Set(r + 1)
			}
		}
		last := nt - 1
		for _, c := range []struct {
			name string
			cfg  Config
		}{
			{"complete", Config{Complete: true}},
			{"complete no repeat", Config{Complete: true, NoRepeat: true}},
			{"no repeat", Config{NoRepeat: true}},
			{"odd tests", Config{Tests: odd}},
			{"odd tests complete", Config{Tests: odd, Complete: true, NoRepeat: true}},
			{"last root", Config{Root: &last}},
			{"last root complete", Config{Root: &last, Complete: true}},
			{"rows", Config{Rows: rows, MinLeaf: 3}},
			{"rows complete", Config{Rows: rows, Complete: true}},
		} {
			checkConfig(t, d, c.name, c.cfg)
		}
	}
}
