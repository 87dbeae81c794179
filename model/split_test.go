package model

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomLabels builds a dataset of n rows over k classes with skewed class
// sizes and one numeric feature.
func randomLabels(n, k int, seed uint64) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 7))
	d := &Dataset{Name: "random", Features: []Feature{{Name: "x", Values: make([]float64, n)}}}
	for c := range k {
		d.Classes = append(d.Classes, string(rune('a'+c)))
	}
	for r := range n {
		// Class c with probability proportional to c+1.
		u := rng.IntN(k * (k + 1) / 2)
		c := 0
		for u >= c+1 {
			u -= c + 1
			c++
		}
		d.Labels = append(d.Labels, c)
		d.Features[0].Values[r] = float64(rng.IntN(10))
	}
	return d
}

func TestStratifiedSplit(t *testing.T) {
	for _, tc := range []struct {
		n, k  int
		fracs []float64
	}{
		{200, 3, []float64{0.5, 0.25, 0.25}},
		{37, 2, []float64{0.75, 0.25}},
		{1000, 5, []float64{0.6, 0.2, 0.2}},
		{11, 4, []float64{0.5, 0.5}},
	} {
		d := randomLabels(tc.n, tc.k, uint64(tc.n))
		parts, err := StratifiedSplit(d, tc.fracs, 42)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := StratifiedSplit(d, tc.fracs, 42)
		other, _ := StratifiedSplit(d, tc.fracs, 43)
		if !equalParts(parts, again) {
			t.Fatalf("n=%d: same seed, different split", tc.n)
		}
		if equalParts(parts, other) {
			t.Errorf("n=%d: seeds 42 and 43 give the same split", tc.n)
		}
		// Every row exactly once, parts sorted.
		seen := make([]int, tc.n)
		for _, p := range parts {
			if !slices.IsSorted(p) {
				t.Fatalf("n=%d: part not sorted", tc.n)
			}
			for _, r := range p {
				seen[r]++
			}
		}
		for r, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d: row %d in %d parts", tc.n, r, s)
			}
		}
		// Sizes within one row of the share, and each class within one
		// row (plus the carry) of its share in every part.
		total := d.ClassCounts()
		for j, p := range parts {
			if math.Abs(float64(len(p))-tc.fracs[j]*float64(tc.n)) > 1+1e-9 {
				t.Errorf("n=%d: part %d has %d rows, share %.2f", tc.n, j, len(p), tc.fracs[j]*float64(tc.n))
			}
			cnt := make([]float64, tc.k)
			for _, r := range p {
				cnt[d.Labels[r]]++
			}
			for c := range tc.k {
				if math.Abs(cnt[c]-tc.fracs[j]*total[c]) > 2+1e-9 {
					t.Errorf("n=%d: part %d holds %v rows of class %d, share %.2f", tc.n, j, cnt[c], c, tc.fracs[j]*total[c])
				}
			}
		}
	}
	d := randomLabels(10, 2, 1)
	for _, bad := range [][]float64{nil, {0.5, 0.4}, {1.2, -0.2}, {0, 1}, {math.NaN(), 1}} {
		if _, err := StratifiedSplit(d, bad, 1); err == nil {
			t.Errorf("fractions %v accepted", bad)
		}
	}
}

func equalParts(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

func TestStratifiedFolds(t *testing.T) {
	d := randomLabels(103, 3, 9)
	for _, k := range []int{2, 5, 10, 103} {
		folds, err := StratifiedFolds(d, k, 5)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, d.Rows())
		for _, f := range folds {
			if len(f) < d.Rows()/k || len(f) > d.Rows()/k+1 {
				t.Errorf("k=%d: fold of %d rows", k, len(f))
			}
			for _, r := range f {
				seen[r]++
			}
		}
		for r, s := range seen {
			if s != 1 {
				t.Fatalf("k=%d: row %d in %d folds", k, r, s)
			}
		}
		again, _ := StratifiedFolds(d, k, 5)
		if !equalParts(folds, again) {
			t.Fatalf("k=%d: not deterministic", k)
		}
		if k == 5 {
			total := d.ClassCounts()
			for _, f := range folds {
				cnt := make([]float64, 3)
				for _, r := range f {
					cnt[d.Labels[r]]++
				}
				for c := range cnt {
					if math.Abs(cnt[c]-total[c]/5) > 1 {
						t.Errorf("fold holds %v of class %d's %v rows", cnt[c], c, total[c])
					}
				}
			}
		}
	}
	for _, k := range []int{-1, 0, 1, 104} {
		if _, err := StratifiedFolds(d, k, 1); err == nil {
			t.Errorf("%d folds accepted", k)
		}
	}
}

func TestBalancedWeights(t *testing.T) {
	d := randomLabels(90, 3, 3)
	w := BalancedWeights(d)
	d.Weights = slices.Clone(w)
	per := d.ClassCounts()
	for c := range per {
		if math.Abs(per[c]-30) > 1e-9 {
			t.Errorf("class %d weighs %v, want 30 (90 rows / 3 classes)", c, per[c])
		}
	}
	// Existing weights are multiplied in: doubling them doubles the result.
	for r := range d.Weights {
		d.Weights[r] = 2
	}
	for r, x := range BalancedWeights(d) {
		if math.Abs(x-2*w[r]) > 1e-12 {
			t.Fatalf("row %d: %v with weight 2, %v without", r, x, w[r])
		}
	}
}

func TestCountsAndProba(t *testing.T) {
	d := flowers()
	g := flowerTree(d)
	if _, err := g.Proba(d, 0); !errors.Is(err, ErrNoCounts) {
		t.Fatalf("proba without counts: %v", err)
	}
	d.Weights = []float64{1, 1, 1, 1, 1, 1, 1, 2.5}
	g.SetCounts(d)
	// Independent count: group rows by the leaf they reach.
	want := map[int][]float64{}
	for r, l := range d.Labels {
		leaf := g.Leaf(d, r)
		if want[leaf] == nil {
			want[leaf] = make([]float64, 3)
		}
		want[leaf][l] += d.Weight(r)
	}
	for i, n := range g.Nodes {
		if n.Leaf && !slices.Equal(n.Counts, want[i]) {
			t.Errorf("leaf %d counts %v, want %v", i, n.Counts, want[i])
		}
	}
	for r := range d.Rows() {
		p, err := g.Proba(d, r)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, x := range p {
			sum += x
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("row %d: probabilities %v sum to %v", r, p, sum)
		}
		c := want[g.Leaf(d, r)]
		tot := c[0] + c[1] + c[2]
		for k := range p {
			if math.Abs(p[k]-c[k]/tot) > 1e-12 {
				t.Errorf("row %d: p = %v, counts %v", r, p, c)
			}
		}
	}
	// Counts survive JSON; text and DOT show them.
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var back Graph
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i := range g.Nodes {
		if !slices.Equal(g.Nodes[i].Counts, back.Nodes[i].Counts) {
			t.Fatalf("node %d counts %v after JSON, %v before", i, back.Nodes[i].Counts, g.Nodes[i].Counts)
		}
	}
	if !strings.Contains(g.Text(), "class: versicolor [0 3 0]") || !strings.Contains(g.DOT(), `virginica\n[0 2.5 2]`) {
		t.Errorf("counts not shown:\n%s\n%s", g.Text(), g.DOT())
	}
	// Bad counts are rejected.
	for _, bad := range []string{`[1,2]`, `[1,-1,0]`, `[1,"x",0]`} {
		js := strings.Replace(string(b), `"counts":[2,0,0]`, `"counts":`+bad, 1)
		if js == string(b) {
			t.Fatalf("test setup: no setosa counts in %s", b)
		}
		if err := json.Unmarshal([]byte(js), &back); err == nil {
			t.Errorf("counts %s accepted", bad)
		}
	}
}

func TestEvaluate(t *testing.T) {
	d := flowers()
	g := flowerTree(d)
	ev := Evaluate(g, d)
	// Row 7 (versicolor) is predicted virginica: the one error.
	if ev.Errors != 1 || ev.Rows != 8 || ev.Accuracy != 7.0/8 || ev.Confusion[1][2] != 1 || ev.Confusion[1][1] != 3 {
		t.Fatalf("evaluation %+v", ev)
	}
	// Balanced: setosa 2/2, versicolor 3/4, virginica 2/2.
	if want := (1 + 0.75 + 1) / 3; math.Abs(ev.BalancedAccuracy-want) > 1e-12 {
		t.Errorf("balanced accuracy %v, want %v", ev.BalancedAccuracy, want)
	}
}
