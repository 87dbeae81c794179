package blossom

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/dp/internal/blossom"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// blossomGroups groups the rows of v by their values on every binary
// test (computed here from v.Value, independently of prepare) and
// returns the weighted class counts of each group.
func blossomGroups(v *model.BinaryView) map[string][]int64 {
	C := v.Data.NumClasses()
	groups := map[string][]int64{}
	for r := range v.N {
		var key strings.Builder
		for t := range v.Tests {
			if v.Value(t, r) {
				key.WriteByte('1')
			} else {
				key.WriteByte('0')
			}
		}
		k := key.String()
		if groups[k] == nil {
			groups[k] = make([]int64, C)
		}
		groups[k][v.Data.Labels[r]] += int64(v.Data.Weight(r))
	}
	return groups
}

// blossomRandomTree draws a tree of depth at most depth over the engine's
// features, with random leaf classes.
func blossomRandomTree(rng *rand.Rand, m, C, depth int) *blossom.Tree {
	if depth == 0 || m == 0 || rng.IntN(4) == 0 {
		return &blossom.Tree{Feature: -1, Class: rng.IntN(C)}
	}
	return &blossom.Tree{Feature: rng.IntN(m), Low: blossomRandomTree(rng, m, C, depth-1),
		High: blossomRandomTree(rng, m, C, depth-1)}
}

// blossomEngineError is the weighted error of t on the engine's rows.
func blossomEngineError(d *blossom.Data, t *blossom.Tree) int64 {
	var e int64
	for r := range d.N {
		if d.Orig[r] < 0 {
			continue // padding
		}
		x := t
		for x.Feature >= 0 {
			if d.Cols[x.Feature][r>>6]>>uint(r&63)&1 != 0 {
				x = x.High
			} else {
				x = x.Low
			}
		}
		if x.Class != d.Label[r] {
			e += d.Weight[r]
		}
	}
	return e
}

// The merged rows follow the paper's weighting: per group of identical
// feature vectors, the smallest class count m is subtracted from every
// class count (two classes: the majority keeps |w⁻−w⁺|, a tie drops the
// group) and (C−1)·m is added to the offset. Then every tree makes, on the
// original data, exactly its error on the merged rows plus the offset.
func TestBlossomPrepareWeighting(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	for trial := range 60 {
		C := 2 + trial%3
		d := blossomRandom(rng, 10+rng.IntN(60), 1+rng.IntN(2), 1+rng.IntN(2), C, trial%2 == 1)
		v := model.Binarize(d)
		groups := blossomGroups(v)
		var offset, total, merged int64
		rows := 0
		for _, cnt := range groups {
			m := cnt[0]
			for _, c := range cnt {
				m = min(m, c)
			}
			offset += int64(C-1) * m
			for _, c := range cnt {
				total += c
				if c > m {
					rows++
				}
			}
			merged += int64(C) * m
		}
		p, err := prepare(context.Background(), v, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if p.offset != offset {
			t.Fatalf("trial %d (C=%d): offset %d, want Σ(C−1)·m = %d", trial, C, p.offset, offset)
		}
		var engineRows int
		var engineWeight int64
		for r := range p.data.N {
			if p.data.Orig[r] >= 0 {
				engineRows++
				engineWeight += p.data.Weight[r]
			}
		}
		if engineRows != rows || engineWeight != total-merged {
			t.Fatalf("trial %d (C=%d): %d merged rows of weight %d, want %d of weight %d",
				trial, C, engineRows, engineWeight, rows, total-merged)
		}
		if C == 2 {
			// One row per group at most, the majority class with weight
			// |w⁻−w⁺|; nothing for a tie. Groups are keyed here by the
			// kept tests (they determine the dropped ones).
			key := func(value func(k int) bool) string {
				var b strings.Builder
				for k := range p.tests {
					if value(k) {
						b.WriteByte('1')
					} else {
						b.WriteByte('0')
					}
				}
				return b.String()
			}
			cnts := map[string][2]int64{}
			for r := range v.N {
				k := key(func(k int) bool { return v.Value(p.tests[k], r) })
				c := cnts[k]
				c[d.Labels[r]] += int64(d.Weight(r))
				cnts[k] = c
			}
			if len(cnts) != len(groups) {
				t.Fatalf("trial %d: %d vectors on the kept tests, %d on all tests", trial, len(cnts), len(groups))
			}
			want := map[string][2]int64{}
			for k, cnt := range cnts {
				switch {
				case cnt[0] > cnt[1]:
					want[k] = [2]int64{0, cnt[0] - cnt[1]}
				case cnt[1] > cnt[0]:
					want[k] = [2]int64{1, cnt[1] - cnt[0]}
				}
			}
			got := map[string][2]int64{}
			for r := range p.data.N {
				if p.data.Orig[r] < 0 {
					continue
				}
				k := key(func(k int) bool { return p.data.Cols[k][r>>6]>>uint(r&63)&1 != 0 })
				if _, dup := got[k]; dup {
					t.Fatalf("trial %d: two merged rows for one feature vector", trial)
				}
				got[k] = [2]int64{int64(p.data.Label[r]), p.data.Weight[r]}
			}
			if len(got) != len(want) {
				t.Fatalf("trial %d: %d merged rows, want %d", trial, len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Fatalf("trial %d: group %s merged to (class, weight) %v, want %v", trial, k, got[k], w)
				}
			}
		}
		// Any tree: error on the original data = merged error + offset.
		for range 20 {
			tr := blossomRandomTree(rng, len(p.tests), C, 3)
			b := model.NewBuilder(d, model.KindTree)
			var build func(x *blossom.Tree) int
			build = func(x *blossom.Tree) int {
				if x.Feature < 0 {
					return b.Leaf(x.Class)
				}
				lo, hi := build(x.Low), build(x.High)
				return b.Split(v.Tests[p.tests[x.Feature]], lo, hi)
			}
			g := b.Graph(build(tr))
			if got, want := g.WeightedErrors(d), float64(blossomEngineError(p.data, tr)+offset); got != want {
				t.Fatalf("trial %d (C=%d): tree makes %v errors on the data, merged error + offset = %v", trial, C, got, want)
			}
		}
	}
}

// Dropping redundant tests keeps one test per class of equal or
// complementary columns and no constant one.
func TestBlossomPrepareDropsRedundant(t *testing.T) {
	d := &model.Dataset{Classes: []string{"a", "b", "c"},
		Features: []model.Feature{
			{Name: "x", Values: []float64{0, 1, 0, 1, 1, 0}},
			{Name: "same", Values: []float64{0, 1, 0, 1, 1, 0}},
			{Name: "comp", Values: []float64{1, 0, 1, 0, 0, 1}},
			{Name: "const", Values: []float64{3, 3, 3, 3, 3, 3}},
			{Name: "y", Values: []float64{0, 0, 1, 1, 0, 1}},
		},
		Labels: []int{0, 1, 2, 1, 0, 2}}
	v := model.Binarize(d)
	p, err := prepare(context.Background(), v, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, t := range p.tests {
		kept = append(kept, d.Features[v.Tests[t].Feature].Name)
	}
	if strings.Join(kept, ",") != "x,y" {
		t.Fatalf("kept tests on %v, want x,y", kept)
	}
	p, err = prepare(context.Background(), v, Config{NoDropRedundant: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.tests) != v.NumTests() {
		t.Fatalf("NoDropRedundant keeps %d of %d tests", len(p.tests), v.NumTests())
	}
	p, err = prepare(context.Background(), v, Config{NoMergeRows: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.offset != 0 || blossomCountRows(p.data) != d.Rows() {
		t.Fatalf("NoMergeRows: offset %d, %d rows of %d", p.offset, blossomCountRows(p.data), d.Rows())
	}
}

func blossomCountRows(d *blossom.Data) int {
	n := 0
	for _, o := range d.Orig {
		if o >= 0 {
			n++
		}
	}
	return n
}

// With depth enough to separate every feature vector, the optimum is the
// floor of the merged rows, Σ(C−1)·m: the engine's error reaches 0 and the
// search stops there, proven optimal.
func TestBlossomStopsAtFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	for trial := range 20 {
		C := 2 + trial%3
		d := blossomRandom(rng, 20+rng.IntN(60), 1, 1, C, trial%2 == 1)
		v := model.Binarize(d)
		var floor float64
		for _, cnt := range blossomGroups(v) {
			var tot, mx int64
			for _, c := range cnt {
				tot += c
				mx = max(mx, c)
			}
			floor += float64(tot - mx) // what any tree must miss in the group
		}
		// Every binary test on a path separates every vector.
		r := blossomCheck(t, context.Background(), v, Config{MaxDepth: v.NumTests()})
		if !r.Optimal || r.Objective != floor {
			t.Fatalf("trial %d (C=%d, %d tests): objective %v (optimal=%v), irreducible error %v", trial, C, v.NumTests(), r.Objective, r.Optimal, floor)
		}
		if C == 2 && r.Stats["error_offset"].(int64) != int64(floor) {
			// For two classes the offset Σ min(w⁻, w⁺) is the floor itself.
			t.Fatalf("trial %d: offset %v, floor %v", trial, r.Stats["error_offset"], floor)
		}
	}
}

// Blossom agrees with DL8.5 at depth 4 on random data too large for the
// brute force, with classes and weights.
func TestBlossomAgreesWithDL85(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 4))
	for trial := range 12 {
		C := 2 + trial%3
		d := blossomRandom(rng, 150+rng.IntN(150), 3, 3, C, trial%2 == 1)
		v := model.Binarize(d)
		for depth := 3; depth <= 4; depth++ {
			want, err := dl85.Solve(context.Background(), v, dl85.Config{MaxDepth: depth})
			if err != nil {
				t.Fatal(err)
			}
			r := blossomCheck(t, context.Background(), v, Config{MaxDepth: depth})
			if !want.Optimal || !r.Optimal || r.Objective != want.Error {
				t.Fatalf("trial %d (C=%d, %d tests) depth %d: blossom %v (optimal=%v), dl85 %v (optimal=%v)",
					trial, C, v.NumTests(), depth, r.Objective, r.Optimal, want.Error, want.Optimal)
			}
		}
	}
}

// prepare looks at its context (a million rows take seconds there): a
// stop at any of its checks ends it with the context's error, and a stop
// after its last check changes nothing.
func TestPrepareStops(t *testing.T) {
	v := model.Binarize(modeltest.Numeric(300, 4, 5))
	want, err := prepare(context.Background(), v, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; ; n++ {
		p, err := prepare(modeltest.StopAfter(n), v, Config{})
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("stop after %d checks: %v, want context.Canceled", n, err)
			}
			continue
		}
		if n == 0 {
			t.Fatal("prepare never looked at its context")
		}
		if p.offset != want.offset || p.rows != want.rows || len(p.tests) != len(want.tests) {
			t.Fatalf("stop after %d checks: prepared %+v, want %+v", n, p, want)
		}
		break
	}
}

// When the row-major copies do not fit the memory budget, Solve returns
// the greedy tree with a memory cause instead of failing.
func TestSolvePrepareOverBudget(t *testing.T) {
	d := modeltest.Numeric(300, 4, 5)
	v := model.Binarize(d)
	r, err := Solve(context.Background(), v, Config{MaxDepth: 2, Budget: backend.NewBudget(1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(r.Cause, model.ErrMemoryLimit) || r.Optimal || r.Model == nil {
		t.Fatalf("cause %v, optimal %v, model %v; want the greedy tree stopped for memory", r.Cause, r.Optimal, r.Model != nil)
	}
	if got := r.Model.WeightedErrors(d); got != r.Objective {
		t.Fatalf("objective %v, tree makes %v errors", r.Objective, got)
	}
}
