package cart

import (
	"context"
	"math/big"
	"path/filepath"
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
// documented on CART (unit weights): at every node, among the tests
// leaving at least minLeaf rows on each side, the one with the lowest sum
// of n·Gini over both sides, compared exactly as rationals, lowest test
// index on ties; a leaf at depth 0, when pure, when the node has fewer
// than 2·minLeaf rows or no admissible test; a split whose subtrees make
// no fewer errors than the node's majority leaf becomes that leaf.
type refCART struct {
	d       *model.Dataset
	tests   []model.Test
	minLeaf int
	b       *model.Builder
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

// purity is Σ_k count_k² / n over the rows; n·Gini = n − purity, so the
// lowest Gini sum is the highest purity sum.
func (c *refCART) purity(rows []int) *big.Rat {
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

func (c *refCART) grow(rows []int, depth int) (node, errs int) {
	cls, leafErr := c.majority(rows)
	if depth == 0 || leafErr == 0 || len(rows) < 2*c.minLeaf {
		return c.b.Leaf(cls), leafErr
	}
	best := -1
	var bestPurity *big.Rat
	var bestLo, bestHi []int
	for ti, test := range c.tests {
		var lo, hi []int
		for _, r := range rows {
			if test.Eval(c.d, r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if len(lo) < c.minLeaf || len(hi) < c.minLeaf {
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
	lo, le := c.grow(bestLo, depth-1)
	hi, he := c.grow(bestHi, depth-1)
	if le+he >= leafErr {
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
		ref := &refCART{d: d, tests: v.Tests, minLeaf: minLeaf, b: model.NewBuilder(d, model.KindTree)}
		root, wantErrs := ref.grow(all, depth)
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
