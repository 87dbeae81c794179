package satodt_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// randomData is n rows of f features with a few values each (the last
// one categorical), k classes with a signal on the first two features,
// and whole row weights in 1..3 when weighted.
func randomData(rng *rand.Rand, n, f, k int, weighted bool) *model.Dataset {
	d := &model.Dataset{Name: fmt.Sprintf("random-%dx%d-k%d", n, f, k)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		levels := 2 + j%3
		if j == f-1 && f > 1 {
			ft.Kind = model.Categorical
			ft.Levels = []string{"red", "green", "blue"}
			levels = 3
		}
		for r := range n {
			ft.Values[r] = float64(rng.IntN(levels))
		}
		d.Features = append(d.Features, ft)
	}
	d.Labels = make([]int, n)
	for r := range n {
		d.Labels[r] = (int(d.Features[0].Values[r]) + int(d.Features[min(1, f-1)].Values[r])) % k
		if rng.IntN(4) == 0 {
			d.Labels[r] = rng.IntN(k)
		}
	}
	for c := range k {
		d.Labels[c%n] = c
	}
	if weighted {
		d.Weights = make([]float64, n)
		for r := range d.Weights {
			d.Weights[r] = float64(1 + rng.IntN(3))
		}
	}
	return d
}

// bruteError is the least weighted error of a tree of depth at most
// depth on the rows, over every test of the binary view: the leaf's
// error, or the best split's two subtrees.
func bruteError(v *model.BinaryView, rows []int, depth int) float64 {
	cnt := make([]float64, len(v.Class))
	for _, r := range rows {
		cnt[v.Data.Labels[r]] += v.Data.Weight(r)
	}
	_, best := model.Majority(cnt)
	if depth == 0 || best == 0 {
		return best
	}
	for t := range v.Tests {
		var lo, hi []int
		for _, r := range rows {
			if v.Value(t, r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if len(lo) == 0 || len(hi) == 0 {
			continue
		}
		best = min(best, bruteError(v, lo, depth-1)+bruteError(v, hi, depth-1))
	}
	return best
}

func solve(t *testing.T, b backend.Backend, d *model.Dataset, p model.Problem, opts map[string]string) *model.Result {
	t.Helper()
	job, err := backend.NewJob(b.Info(), d, p, opts)
	if err != nil {
		t.Fatalf("%s on %s: %v", b.Info().Name, d.Name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := b.Solve(ctx, job)
	if err != nil {
		t.Fatalf("%s on %s: %v", b.Info().Name, d.Name, err)
	}
	if !res.Optimal {
		t.Fatalf("%s on %s depth %d: not proven (%s)", b.Info().Name, d.Name, p.MaxDepth, res.Status)
	}
	if e := res.Model.WeightedErrors(d); math.Abs(e-res.Objective) > 1e-9 {
		t.Fatalf("%s on %s: claims %v, its tree makes %v", b.Info().Name, d.Name, res.Objective, e)
	}
	if res.Model.Depth() > p.MaxDepth {
		t.Fatalf("%s on %s: depth %d above %d", b.Info().Name, d.Name, res.Model.Depth(), p.MaxDepth)
	}
	return res
}

// TestAgreesWithDL85AndBruteForce checks sat-odt's optimum against
// dl85's and an exhaustive search on random data: two to four classes,
// with and without whole row weights, depths one to three, on both
// in-process solvers, every search, both error counters, and bounds
// refuted root test by root test or on the whole tree.
func TestAgreesWithDL85AndBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	configs := []map[string]string{{}, {"sat-solver": "gini"}, {"search": "bisect"}, {"repeats": "true"}, {"dead": "true"}, {"search": "rows"}, {"search": "rows", "sat-solver": "gini"}, {"counter": "rows"}, {"counter": "rows", "search": "rows"}, {"counter": "rows", "dead": "true", "sat-solver": "gini"}, {"counter": "leaves", "search": "bisect", "sat-solver": "gini"}, {"per-root": "false"}, {"per-root": "false", "search": "bisect", "sat-solver": "gini"}}
	searched := 0 // cases where cart's tree was not optimal
	for i := range 52 {
		n := 10 + rng.IntN(30)
		k := 2 + i%3
		d := randomData(rng, n, 2+rng.IntN(3), k, i%2 == 1)
		depth := 1 + i%3
		p := model.Problem{Objective: model.MinError, MaxDepth: depth}
		v := model.Binarize(d)
		all := make([]int, d.Rows())
		for r := range all {
			all[r] = r
		}
		want := bruteError(v, all, depth)
		if got := solve(t, dl85.Backend{}, d, p, nil).Objective; got != want {
			t.Fatalf("%s depth %d: dl85 %v, brute force %v", d.Name, depth, got, want)
		}
		opts := configs[i%len(configs)]
		res := solve(t, satodt.Backend{}, d, p, opts)
		if res.Stats["solver_calls"].(int) > 1 {
			searched++
		}
		if got := res.Objective; got != want {
			t.Errorf("%s depth %d (weights %v, %v): sat-odt %v, brute force and dl85 %v", d.Name, depth, d.Weights != nil, opts, got, want)
		}
	}
	// The check means something only if the SAT search had work to do.
	if searched < 8 {
		t.Errorf("only %d of 52 cases took more than one solver call", searched)
	}
}

// withLeaf prepares d's binary view for a search and gives the
// one-leaf tree (class 0) as its incumbent, with its error.
func withLeaf(t *testing.T, d *model.Dataset) (*model.BinaryView, *satjob.Prepared, *model.Graph, int) {
	t.Helper()
	v := model.Binarize(d)
	p, err := satjob.Prepare(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	b := model.NewBuilder(d, model.KindTree)
	leaf := b.Graph(b.Leaf(0))
	return v, p, leaf, int(math.Round(leaf.WeightedErrors(d)))
}

// TestMajorityKeepsTheOptimum checks that making every leaf predict its
// heavier class (two classes) changes no optimum: on random weighted
// data the search with it equals the exhaustive minimum.
func TestMajorityKeepsTheOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 30 {
		d := &model.Dataset{Name: fmt.Sprint("random", i), Classes: []string{"a", "b"}}
		n := 8 + rng.IntN(20)
		for j := range 3 {
			ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
			for r := range n {
				ft.Values[r] = float64(rng.IntN(3))
			}
			d.Features = append(d.Features, ft)
		}
		d.Labels = make([]int, n)
		d.Weights = make([]float64, n)
		for r := range n {
			d.Labels[r] = rng.IntN(2)
			d.Weights[r] = float64(1 + rng.IntN(4))
		}
		depth := 1 + i%2
		v, p, leaf, e := withLeaf(t, d)
		out, err := satodt.Search(context.Background(), p, depth, leaf, e, satodt.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, n)
		for r := range all {
			all[r] = r
		}
		if want := int(math.Round(bruteError(v, all, depth))); !out.Optimal || out.Cost != want {
			t.Fatalf("%s depth %d: search %d (optimal %v), exhaustive %d", d.Name, depth, out.Cost, out.Optimal, want)
		}
	}
}

// budgeted is odtkit's CDCL stopped after a number of conflicts over
// all its solves: a deterministic stand-in for a time limit.
type budgeted struct {
	*sat.CDCL
	budget int64
}

func (b *budgeted) Solve(ctx context.Context, as ...sat.Lit) (sat.Status, error) {
	left := b.budget - b.Conflicts()
	if left <= 0 {
		return sat.Unknown, nil
	}
	b.SetConflictLimit(left)
	return b.CDCL.Solve(ctx, as...)
}

// TestStoppedSearchBound stops searches after a few conflicts (a
// deterministic stop) and checks what they return: the tree's error is
// its claimed cost and the lower bound is at most the exhaustive
// minimum, whether the bounds are refuted root test by root test or on
// the whole tree, descending or bisecting.
func TestStoppedSearchBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	stopped, refuted := 0, 0
	for i := range 24 {
		d := randomData(rng, 30+rng.IntN(30), 3+rng.IntN(3), 2+i%2, i%3 == 0)
		depth := 2 + i%2
		v, p, leaf, cost := withLeaf(t, d)
		budget := int64(10 + rng.IntN(400))
		s := satodt.Settings{
			PerRoot:   i%2 == 0,
			Bisect:    i%4 < 2,
			NewSolver: func() (sat.Solver, error) { return &budgeted{sat.NewCDCL(), budget}, nil },
		}
		out, err := satodt.Search(context.Background(), p, depth, leaf, cost, s)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, d.Rows())
		for r := range all {
			all[r] = r
		}
		want := int(math.Round(bruteError(v, all, depth)))
		if e := int(math.Round(out.Model.WeightedErrors(d))); e != out.Cost || out.Model.Depth() > depth {
			t.Fatalf("%s depth %d: claims %d, its tree (depth %d) makes %d", d.Name, depth, out.Cost, out.Model.Depth(), e)
		}
		if out.LowerBound > want || out.Cost < want || out.Optimal && out.Cost != want {
			t.Fatalf("%s depth %d (%+v): bound %d, cost %d (optimal %v), exhaustive %d", d.Name, depth, s, out.LowerBound, out.Cost, out.Optimal, want)
		}
		if out.Stopped {
			stopped++
			for _, st := range out.Steps {
				if st.Status == sat.Unsatisfiable {
					refuted++
					break
				}
			}
		}
	}
	// The check means something only if searches were stopped, some
	// after refuting bounds.
	if stopped < 4 || refuted < 2 {
		t.Errorf("%d of 24 searches stopped, %d after refuting a bound", stopped, refuted)
	}
}

// TestSizedAtTheGreedyTree gives Search a poor incumbent (one leaf) and a
// clause cap that the formula fits only when its counters are cut at the
// greedy tree's error: the search must take the greedy tree first, size
// the formula at its error and prove the optimum, not refuse the formula.
func TestSizedAtTheGreedyTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	tried := 0
	for i := range 12 {
		d := randomData(rng, 60+rng.IntN(60), 4, 2+i%2, i%2 == 0)
		depth := 2
		v, p, leaf, leafCost := withLeaf(t, d)
		greedy := satodt.Tree(p, satodt.Greedy(p, depth, satodt.Options{}))
		greedyCost := int(math.Round(greedy.WeightedErrors(d)))
		fits := satodt.Estimate(p, depth, satodt.CounterLeaves, greedyCost).Constraints
		if greedyCost >= leafCost || fits >= satodt.Estimate(p, depth, satodt.CounterLeaves, leafCost).Constraints {
			continue // the cap would not tell the two apart
		}
		tried++
		out, err := satodt.Search(context.Background(), p, depth, leaf, leafCost, satodt.Settings{MaxClauses: fits, PerRoot: true})
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, d.Rows())
		for r := range all {
			all[r] = r
		}
		if want := int(math.Round(bruteError(v, all, depth))); out.TooLarge || !out.Optimal || out.Cost != want {
			t.Fatalf("%s: too large %v, optimal %v, cost %d, exhaustive %d (cap %d clauses)", d.Name, out.TooLarge, out.Optimal, out.Cost, want, fits)
		}
	}
	if tried < 6 {
		t.Errorf("only %d of 12 cases had a greedy tree better than the leaf", tried)
	}
}

// searchOptions is every way sat-odt searches: the three searches, each
// bound refuted root test by root test or on the whole tree, and both
// error counters.
func searchOptions() []map[string]string {
	var out []map[string]string
	for _, search := range []string{"descend", "bisect", "rows"} {
		for _, perRoot := range []string{"true", "false"} {
			for _, counter := range []string{string(satodt.CounterLeaves), string(satodt.CounterRows)} {
				out = append(out, map[string]string{"search": search, "per-root": perRoot, "counter": counter})
			}
		}
	}
	return out
}

// agreeOnAll checks that each of the options proves dl85's optimum on d
// at the given depth (and that want, when not negative, is that optimum).
func agreeOnAll(t *testing.T, d *model.Dataset, depth int, want float64, options []map[string]string) {
	t.Helper()
	p := model.Problem{Objective: model.MinError, MaxDepth: depth}
	ref := solve(t, dl85.Backend{}, d, p, nil).Objective
	if want >= 0 && ref != want {
		t.Fatalf("%s depth %d: dl85 %v, brute force %v", d.Name, depth, ref, want)
	}
	for _, opts := range options {
		res := solve(t, satodt.Backend{}, d, p, opts)
		if res.Objective != ref || res.LowerBound != ref {
			t.Errorf("%s depth %d %v: sat-odt proves %v (lower bound %v), dl85 %v", d.Name, depth, opts, res.Objective, res.LowerBound, ref)
		}
	}
}

// TestEverySearchAgrees proves the optimum with every search option on
// generated data (checked against brute force too) and on the data in
// testdata, and compares it with dl85's. search=rows refutes bounds on
// the groups of rows met so far, so data where a leaf's heavier class on
// those groups is not its heavier class on all rows is what it must get
// right.
func TestEverySearchAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for i := range 10 {
		k := 2 + i/8
		d := randomData(rng, 40+rng.IntN(60), 3+rng.IntN(3), k, i%2 == 1)
		depth := 2
		if i%4 == 3 {
			depth = 3
		}
		v := model.Binarize(d)
		all := make([]int, d.Rows())
		for r := range all {
			all[r] = r
		}
		agreeOnAll(t, d, depth, bruteError(v, all, depth), searchOptions())
	}
	d, err := model.ReadFile(filepath.Join("..", "..", "testdata", "monk1.csv"), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	agreeOnAll(t, d, 2, -1, searchOptions())
}

// TestEverySearchAgreesCP4IM proves hepatitis and vote at depth 2 with
// the search options and compares each optimum with dl85's (../shared):
// hepatitis with every option, vote with search=rows (every option with
// ODTKIT_LONG=1: each takes seconds there).
func TestEverySearchAgreesCP4IM(t *testing.T) {
	if testing.Short() {
		t.Skip("the search options on two cp4im files take a minute")
	}
	dir := shared.Dir(t, "data/cp4im")
	for _, name := range []string{"hepatitis", "vote"} {
		d, err := model.ReadFile(filepath.Join(dir, "data", "cp4im", name+".txt"), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		options := searchOptions()
		if name == "vote" && !shared.Long() {
			options = slices.DeleteFunc(options, func(o map[string]string) bool { return o["search"] != "rows" })
		}
		agreeOnAll(t, d, 2, -1, options)
	}
}
