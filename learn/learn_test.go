package learn

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// noisy is a dataset of n rows, two numeric features and three classes
// decided by thresholds on the features, with 15% of the labels flipped,
// so that deeper trees overfit and the validation-best depth is not the
// deepest.
func noisy(n int, seed uint64) *model.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &model.Dataset{Name: "noisy", Classes: []string{"a", "b", "c"},
		Features: []model.Feature{{Name: "x", Values: make([]float64, n)}, {Name: "y", Values: make([]float64, n)}}}
	for r := range n {
		x, y := float64(rng.IntN(20)), float64(rng.IntN(20))
		d.Features[0].Values[r], d.Features[1].Values[r] = x, y
		c := 0
		switch {
		case x > 12:
			c = 2
		case y > 8:
			c = 1
		}
		if rng.Float64() < 0.15 {
			c = rng.IntN(3)
		}
		d.Labels = append(d.Labels, c)
	}
	return d
}

// greedy is a stand-in solver: a tree grown greedily to p.MaxDepth, each
// node splitting on the threshold with the fewest (weighted) errors of
// its two majority leaves, and leaves of at least p.MinSupport rows.
func greedy(_ context.Context, d *model.Dataset, p model.Problem) (*model.Result, error) {
	b := model.NewBuilder(d, model.KindTree)
	var grow func(rows []int, depth int) int
	grow = func(rows []int, depth int) int {
		cnt := make([]float64, d.NumClasses())
		for _, r := range rows {
			cnt[d.Labels[r]] += d.Weight(r)
		}
		leafClass, leafErr := model.Majority(cnt)
		if depth == 0 || leafErr == 0 {
			return b.Leaf(leafClass)
		}
		bestErr, bestF, bestT := leafErr, -1, 0.0
		for f := range d.Features {
			for t := 0.5; t < 20; t++ {
				lo, hi := make([]float64, d.NumClasses()), make([]float64, d.NumClasses())
				nlo := 0
				for _, r := range rows {
					if d.Features[f].Values[r] <= t {
						lo[d.Labels[r]] += d.Weight(r)
						nlo++
					} else {
						hi[d.Labels[r]] += d.Weight(r)
					}
				}
				if nlo < max(p.MinSupport, 1) || len(rows)-nlo < max(p.MinSupport, 1) {
					continue
				}
				_, e1 := model.Majority(lo)
				_, e2 := model.Majority(hi)
				if e1+e2 < bestErr-1e-9 {
					bestErr, bestF, bestT = e1+e2, f, t
				}
			}
		}
		if bestF < 0 {
			return b.Leaf(leafClass)
		}
		var lo, hi []int
		for _, r := range rows {
			if d.Features[bestF].Values[r] <= bestT {
				lo = append(lo, r)
			} else {
				hi = append(hi, r)
			}
		}
		l := grow(lo, depth-1)
		return b.Threshold(bestF, bestT, l, grow(hi, depth-1))
	}
	all := make([]int, d.Rows())
	for r := range all {
		all[r] = r
	}
	g := b.Graph(grow(all, p.MaxDepth))
	return &model.Result{Backend: "greedy", Problem: p, Rows: d.Rows(), Errors: g.Errors(d), Status: model.StatusFeasible, Model: g}, nil
}

func TestGridProblems(t *testing.T) {
	g := Grid{Depths: []int{2, 3}, Alphas: []float64{0, 0.1, 0.5}, MinSupports: []int{1, 5}}
	ps := g.Problems(model.Problem{MaxDepth: 9, MaxNodes: 7})
	if len(ps) != 12 {
		t.Fatalf("%d problems, want 12", len(ps))
	}
	// Alpha varies fastest, depth slowest; untouched fields kept.
	if ps[0].MaxDepth != 2 || ps[1].Alpha != 0.1 || ps[3].MinSupport != 5 || ps[6].MaxDepth != 3 || ps[11].MaxNodes != 7 {
		t.Fatalf("grid order: %+v", ps)
	}
	if n := len((Grid{}).Problems(model.Problem{MaxDepth: 4})); n != 1 {
		t.Fatalf("empty grid gives %d problems", n)
	}
}

func TestTunePicksValidationBest(t *testing.T) {
	d := noisy(400, 3)
	sf, err := NewSplitFile(d, []float64{0.5, 0.25, 0.25}, 7)
	if err != nil {
		t.Fatal(err)
	}
	split, _ := sf.Split(0)
	candidates := Grid{Depths: []int{0, 1, 2, 3, 4, 5, 6}, MinSupports: []int{1, 10}}.Problems(model.Problem{})
	out, err := HoldOut(context.Background(), greedy, d, split, candidates, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Independent loop: train each candidate on the training rows, count
	// right answers on the validation rows by hand, keep the first best.
	train := d.Subset(split.Train)
	bestRight, bestP := -1, model.Problem{}
	var rights []int
	for _, p := range candidates {
		res, _ := greedy(context.Background(), train, p)
		right := 0
		for _, r := range split.Valid {
			if res.Model.Classes[res.Model.Predict(d, r)] == d.Classes[d.Labels[r]] {
				right++
			}
		}
		rights = append(rights, right)
		if right > bestRight {
			bestRight, bestP = right, p
		}
	}
	if out.Problem.MaxDepth != bestP.MaxDepth || out.Problem.MinSupport != bestP.MinSupport {
		t.Fatalf("chose %+v, the independent loop %+v (right answers per grid point %v)", out.Problem, bestP, rights)
	}
	if slices.Max(rights) == slices.Min(rights) {
		t.Fatalf("test setup: every grid point scores the same (%v)", rights)
	}
	res := out.Result
	if res.Validation == nil || res.Validation.Rows != len(split.Valid) || res.Validation.Rows-res.Validation.Errors != bestRight {
		t.Fatalf("validation block %+v, want %d right of %d", res.Validation, bestRight, len(split.Valid))
	}
	// Refitted on train+valid, tested on test.
	if res.Rows != len(split.Train)+len(split.Valid) || res.Train.Rows != res.Rows || res.Test.Rows != len(split.Test) {
		t.Fatalf("rows: result %d, train %d, test %d", res.Rows, res.Train.Rows, res.Test.Rows)
	}
	chosen := 0
	for i, tr := range res.Tuning {
		if tr.Chosen {
			chosen++
			if tr.Problem.MaxDepth != bestP.MaxDepth || tr.Problem.MinSupport != bestP.MinSupport {
				t.Fatalf("trial %d marked chosen", i)
			}
		}
		if want := float64(rights[i]) / float64(len(split.Valid)); tr.Score != want {
			t.Errorf("trial %d score %v, want %v", i, tr.Score, want)
		}
	}
	if chosen != 1 || len(res.Tuning) != len(candidates) {
		t.Fatalf("%d chosen of %d trials", chosen, len(res.Tuning))
	}
	if !res.Model.HasCounts() {
		t.Fatal("final model has no leaf counts")
	}
}

func TestCrossValidate(t *testing.T) {
	d := noisy(150, 5)
	folds, err := model.StratifiedFolds(d, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	candidates := Grid{Depths: []int{1, 2, 3}}.Problems(model.Problem{})
	outs, err := CrossValidate(context.Background(), greedy, d, folds, candidates, Options{InnerFolds: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tested := make([]int, d.Rows())
	for f, o := range outs {
		if o.Result.Test.Rows != len(folds[f]) || o.Result.Rows != d.Rows()-len(folds[f]) {
			t.Fatalf("fold %d: trained on %d, tested on %d", f, o.Result.Rows, o.Result.Test.Rows)
		}
		for _, r := range FoldSplit(folds, f).Test {
			tested[r]++
		}
		for _, r := range FoldSplit(folds, f).Train {
			if slices.Contains(folds[f], r) {
				t.Fatalf("fold %d trains on its test row %d", f, r)
			}
		}
		if len(o.Result.Tuning) != 3 {
			t.Fatalf("fold %d: %d trials", f, len(o.Result.Tuning))
		}
	}
	for r, n := range tested {
		if n != 1 {
			t.Fatalf("row %d tested %d times", r, n)
		}
	}
}

func TestBalancedEqualsExplicitWeights(t *testing.T) {
	d := noisy(120, 8)
	d.Labels[0], d.Labels[1] = 2, 2
	p := model.Problem{MaxDepth: 2}
	a, err := Balanced(greedy)(context.Background(), d, p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Weights != nil {
		t.Fatal("Balanced changed the caller's dataset")
	}
	w := *d
	w.Weights = model.BalancedWeights(d)
	b, _ := greedy(context.Background(), &w, p)
	if a.Model.Text() != b.Model.Text() {
		t.Fatalf("balanced:\n%s\nexplicit weights:\n%s", a.Model.Text(), b.Model.Text())
	}
}

func TestSplitFileRoundTrip(t *testing.T) {
	d := noisy(60, 1)
	dir := t.TempDir()
	for _, mk := range []func() (*SplitFile, error){
		func() (*SplitFile, error) { return NewSplitFile(d, []float64{0.5, 0.25, 0.25}, 3) },
		func() (*SplitFile, error) { return NewSplitFile(d, []float64{0.8, 0.2}, 3) },
		func() (*SplitFile, error) { return NewFoldsFile(d, 4, 3) },
	} {
		sf, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "s.json")
		if err := sf.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSplitFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fold := 0
		if len(sf.Folds) > 0 {
			fold = 2
		}
		s1, err1 := sf.Split(fold)
		s2, err2 := back.Split(fold)
		if err1 != nil || err2 != nil || !slices.Equal(s1.Train, s2.Train) || !slices.Equal(s1.Test, s2.Test) || !slices.Equal(s1.Valid, s2.Valid) {
			t.Fatalf("%s: split changed through the file (%v %v)", sf.Protocol, err1, err2)
		}
		if err := back.Check(d.Subset([]int{0, 1})); err == nil {
			t.Fatal("a split for 60 rows accepted for 2")
		}
	}
	if _, err := NewSplitFile(d.Subset([]int{0, 1}), []float64{0.5, 0.25, 0.25}, 1); err == nil {
		t.Error("2-row 50/25/25 split accepted (a part is empty)")
	}
}

func TestParsers(t *testing.T) {
	if f, err := ParseFractions("50/25/25"); err != nil || f[0] != 0.5 || f[2] != 0.25 {
		t.Fatalf("50/25/25 → %v %v", f, err)
	}
	if f, err := ParseFractions("0.8/0.2"); err != nil || f[1] != 0.2 {
		t.Fatalf("0.8/0.2 → %v %v", f, err)
	}
	for _, bad := range []string{"", "50", "50/", "50/25/25/0", "a/b", "50/-25/75", "50/0/50", "1/2/3/4", "NaN/1", "Inf/1"} {
		if _, err := ParseFractions(bad); err == nil {
			t.Errorf("ParseFractions(%q) accepted", bad)
		}
	}
	if s, err := ParseSeeds("1-3,10,-2"); err != nil || !slices.Equal(s, []int64{1, 2, 3, 10, -2}) {
		t.Fatalf("seeds → %v %v", s, err)
	}
	if s, err := ParseSeeds("-3--1"); err != nil || !slices.Equal(s, []int64{-3, -2, -1}) {
		t.Fatalf("-3--1 → %v %v", s, err)
	}
	for _, bad := range []string{"", "1-", "-", "5-1", "1,,2", "1-3,2", "x", "1-1000000000", "1.5", "9223372036854775807-x"} {
		if _, err := ParseSeeds(bad); err == nil {
			t.Errorf("ParseSeeds(%q) accepted", bad)
		}
	}
	if sk, err := ParseSkeletons("1,2,2:1,2,4;1,3"); err != nil || len(sk) != 3 || !slices.Equal(sk[1], []int{1, 2, 4}) {
		t.Fatalf("skeletons → %v %v", sk, err)
	}
	for _, bad := range []string{"", ":", "1,0", "1,a", "1,,2"} {
		if _, err := ParseSkeletons(bad); err == nil {
			t.Errorf("ParseSkeletons(%q) accepted", bad)
		}
	}
	if a, err := ParseFloats("0,0.01, 1e-3"); err != nil || len(a) != 3 {
		t.Fatalf("floats → %v %v", a, err)
	}
	for _, bad := range []string{"", "-1", "NaN", "Inf", "0,", "x"} {
		if _, err := ParseFloats(bad); err == nil {
			t.Errorf("ParseFloats(%q) accepted", bad)
		}
	}
	if _, err := ParseInts("2,-1", 0); err == nil {
		t.Error("ParseInts accepted -1")
	}
}
