package avellaneda

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// randomData makes a small dataset: nf numeric columns with few distinct
// values (4, 6, ...: chains of thresholds for the order clauses), one
// categorical column, nc classes; labels from a random rule plus noise so
// that depths vary.
func randomData(rng *rand.Rand, n, nf, nc int) *model.Dataset {
	d := &model.Dataset{Name: "random"}
	for f := range nf {
		col := model.Feature{Name: fmt.Sprintf("x%d", f), Kind: model.Numeric}
		levels := 4 + 2*f // longer threshold chains in later columns
		for range n {
			col.Values = append(col.Values, float64(rng.IntN(levels)))
		}
		d.Features = append(d.Features, col)
	}
	cat := model.Feature{Name: "colour", Kind: model.Categorical, Levels: []string{"red", "green", "blue"}}
	for range n {
		cat.Values = append(cat.Values, float64(rng.IntN(3)))
	}
	d.Features = append(d.Features, cat)
	for c := range nc {
		d.Classes = append(d.Classes, fmt.Sprintf("c%d", c))
	}
	for r := range n {
		l := (int(d.Features[0].Values[r]) + int(cat.Values[r])) % nc
		if rng.IntN(4) == 0 {
			l = rng.IntN(nc)
		}
		d.Labels = append(d.Labels, l)
	}
	return d
}

// bruteErr is the least number of rows of set a tree of depth <= k
// misclassifies (exhaustive over the binary view's tests).
func bruteErr(v *model.BinaryView, set []int, k int) int {
	cnt := make([]int, len(v.Class))
	for _, r := range set {
		cnt[v.Data.Labels[r]]++
	}
	best := len(set)
	for _, c := range cnt {
		best = min(best, len(set)-c)
	}
	if k == 0 || best == 0 {
		return best
	}
	for t := range v.Tests {
		var lo, hi []int
		for _, r := range set {
			if v.True[t].Has(r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if len(lo) == 0 || len(hi) == 0 {
			continue
		}
		best = min(best, bruteErr(v, lo, k-1)+bruteErr(v, hi, k-1))
	}
	return best
}

// bruteSize is the fewest nodes of a tree of depth <= k with no error on
// set (a large number when there is none).
func bruteSize(v *model.BinaryView, set []int, k int) int {
	pure := true
	for _, r := range set {
		if v.Data.Labels[r] != v.Data.Labels[set[0]] {
			pure = false
		}
	}
	if pure {
		return 1
	}
	best := 1 << 20
	if k == 0 {
		return best
	}
	for t := range v.Tests {
		var lo, hi []int
		for _, r := range set {
			if v.True[t].Has(r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		if len(lo) == 0 || len(hi) == 0 {
			continue
		}
		best = min(best, 1+bruteSize(v, lo, k-1)+bruteSize(v, hi, k-1))
	}
	return best
}

func allRows(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestBruteForce compares DT_depth and DT_size with exhaustive search on
// small random data: min error at the found depth is 0 and at depth−1
// positive; the size equals the brute-force fewest nodes at that depth.
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	solved := 0
	for it := range 120 {
		n := 4 + rng.IntN(10)
		// Five classes now and then: the depth cuts need more than four.
		d := randomData(rng, n, 2, []int{2, 3, 2, 3, 5}[it%5])
		for _, amo := range []AMO{AMONone, AMOSequential, AMOPairwise} {
			p, err := Prepare(d, false)
			if errors.Is(err, ErrConflict) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			s := Settings{Options: Options{AMO: amo, Counter: []Counter{CounterTotalizer, CounterSequential}[it%2], Symmetry: it%3 != 1, PaperClauses: it%5 == 2, NoClassCuts: it%7 == 3}, Batch: 1 + it%3, Bisect: it%4 < 2, SizeNoDirect: it%2 == 1, SizeDirectAfter: 1 - it%3, FirstMisclassified: it%4 == 1, Seed: it%3 == 2}
			od, err := MinDepth(context.Background(), p, s)
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, d, od.Model)
			k := od.Depth
			if e := bruteErr(p.View, allRows(n), k); e != 0 {
				t.Fatalf("case %d: depth %d but brute force min error there is %d", it, k, e)
			}
			if k > 0 {
				if e := bruteErr(p.View, allRows(n), k-1); e == 0 {
					t.Fatalf("case %d: depth %d but a consistent tree of depth %d exists", it, k, k-1)
				}
			}
			os, err := MinSize(context.Background(), p, s)
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, d, os.Model)
			if want := bruteSize(p.View, allRows(n), k); os.Model.Size() != want || os.Model.Depth() != k || !os.Optimal {
				t.Fatalf("case %d (amo %s): size %d depth %d, brute force %d at depth %d", it, amo, os.Model.Size(), os.Model.Depth(), want, k)
			}
			solved++
		}
	}
	if solved < 120 {
		t.Fatalf("only %d random cases were conflict-free", solved)
	}
}

// TestFormulaSatisfiability checks the whole formula at each depth and
// node limit against brute force, through gini.
func TestFormulaSatisfiability(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 40 {
		n := 4 + rng.IntN(8)
		d := randomData(rng, n, 2, 2)
		p, err := Prepare(d, true)
		if err != nil {
			t.Fatal(err)
		}
		rows := p.Keep.Rows(nil)
		for k := 0; k <= 3; k++ {
			wantSat := bruteErr(p.View, rows, k) == 0
			for _, maxNodes := range []int{0, 1, 2, 3, 4, 5, 6, 7, 9} { // even limits: trees have odd sizes
				if maxNodes > 0 {
					wantSat = bruteSize(p.View, rows, k) <= maxNodes
				}
				e, err := Encode(context.Background(), p, "sat-depth", k, maxNodes, Options{AMO: []AMO{AMONone, AMOSequential, AMOPairwise}[it%3], Counter: []Counter{CounterTotalizer, CounterSequential}[it%2], PaperClauses: it%4 == 3, Symmetry: it%5 != 4, NoClassCuts: it%3 == 2})
				if err != nil {
					t.Fatal(err)
				}
				s := sat.NewGini()
				sat.AddCNF(s, e.CNF, 0)
				st, err := s.Solve(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if (st == sat.Satisfiable) != wantSat {
					t.Fatalf("case %d depth %d max nodes %d: %s, brute force says satisfiable=%v", it, k, maxNodes, st, wantSat)
				}
				if st == sat.Satisfiable {
					g := e.Decode(s.Value)
					for _, r := range rows {
						if g.Predict(d, r) != d.Labels[r] {
							t.Fatalf("case %d: decoded tree misclassifies row %d", it, r)
						}
					}
					if g.Depth() > k || (maxNodes > 0 && g.Size() > maxNodes) {
						t.Fatalf("case %d: tree depth %d size %d beyond depth %d, %d nodes", it, g.Depth(), g.Size(), k, maxNodes)
					}
				}
			}
		}
	}
}

// TestConflicts: identical tests with different labels fail with the
// count and first rows, or are dropped on request.
func TestConflicts(t *testing.T) {
	d := &model.Dataset{Name: "conflict", Classes: []string{"no", "yes"},
		Features: []model.Feature{{Name: "a", Values: []float64{0, 0, 1, 1, 0, 2}}},
		Labels:   []int{0, 1, 1, 0, 0, 1}}
	_, err := Prepare(d, false)
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("want ErrConflict, got %v", err)
	}
	for _, want := range []string{"2 groups", "5 rows", "row 1 (label no)", "row 2 (label yes)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	p, err := Prepare(d, true)
	if err != nil {
		t.Fatal(err)
	}
	// Group a=0: rows 0,1,4 labels no,yes,no: drop row 1. Group a=1:
	// rows 2,3 yes,no: tie, keep class 0 (no), drop row 2.
	if p.Dropped != 2 || p.Keep.Has(1) || p.Keep.Has(2) {
		t.Fatalf("dropped %d, keep %v", p.Dropped, p.Keep.Rows(nil))
	}
	o, err := MinDepth(context.Background(), p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Keep.Rows(nil) {
		if o.Model.Predict(d, r) != d.Labels[r] {
			t.Fatalf("kept row %d misclassified", r)
		}
	}
	if o.Model.Errors(d) != 2 {
		t.Fatalf("tree makes %d errors, want the 2 dropped rows", o.Model.Errors(d))
	}
}

// TestCancelled: a cancelled context stops with Stopped and no tree.
func TestCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := randomData(rng, 30, 3, 3)
	p, err := Prepare(d, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err := MinSize(ctx, p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Stopped || o.Model != nil {
		t.Fatalf("cancelled solve: stopped %v, tree %v", o.Stopped, o.Model != nil)
	}
}

// TestDecodePrunes checks Decode against the model's own tree on random
// data and random models (a test per node, a class or none per leaf):
// every example slot gets the class the perfect tree of the model gives
// it (an unlabelled leaf's parent replaced by its other child), from the
// graph and from the tree the incremental loop reads (predict), and
// every leaf of the decoded tree is reached by some slot.
func TestDecodePrunes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	pruned := 0
	for it := range 300 {
		d := randomData(rng, 20+rng.IntN(40), 2, 2+rng.IntN(2))
		p, err := Prepare(d, true)
		if err != nil {
			t.Fatal(err)
		}
		k := 2 + it%3
		e, err := NewEncoding(context.Background(), nil, p.View, p.Tests, p.Reps, k, Options{})
		if err != nil {
			t.Fatal(err)
		}
		test := make([]int, 1<<k-1) // node q+1's feature
		for q := range test {
			test[q] = rng.IntN(len(e.Tests))
		}
		class := make([]int, 1<<k) // leaf v's class, -1 unlabelled
		for v := range class {
			class[v] = rng.IntN(len(e.View.Class)+2) - 2
			if class[v] < 0 && rng.IntN(2) == 0 {
				class[v] = 0
			}
		}
		true_ := map[sat.Lit]bool{}
		for q, f := range test {
			true_[e.F.Lit(q, f)] = true
		}
		for v, a := range class {
			if a >= 0 {
				true_[e.C.Lit(v, a)] = true
			}
		}
		value := func(l sat.Lit) bool {
			if l < 0 {
				return !true_[-l]
			}
			return true_[l]
		}
		var any func(q, lvl int) bool // a labelled leaf below node q
		any = func(q, lvl int) bool {
			if lvl == k {
				return class[q-1<<k] >= 0
			}
			return any(2*q, lvl+1) || any(2*q+1, lvl+1)
		}
		var predict func(q, lvl, r int) int
		predict = func(q, lvl, r int) int {
			if lvl == k {
				return class[q-1<<k]
			}
			lo, hi := any(2*q, lvl+1), any(2*q+1, lvl+1)
			if !lo || hi && e.View.True[e.Tests[test[q-1]]].Has(r) {
				return predict(2*q+1, lvl+1, r)
			}
			return predict(2*q, lvl+1, r)
		}
		g := e.Decode(value)
		if !any(1, 0) { // no leaf labelled: one leaf of the most frequent class
			if g.Leaves() != 1 {
				t.Fatalf("case %d: no labelled leaf, decoded tree has %d leaves", it, g.Leaves())
			}
			continue
		}
		reached := map[int]bool{}
		for i := range e.NumExamples() {
			r := e.Row(i)
			want := predict(1, 0, r)
			if got := g.Predict(d, r); got != want {
				t.Fatalf("case %d: slot %d (row %d) decoded class %d, the model's tree says %d", it, i, r, got, want)
			}
			if got := e.predict(r); got != want { // the loop's prediction, before any graph
				t.Fatalf("case %d: slot %d (row %d) read tree's class %d, the model's tree says %d", it, i, r, got, want)
			}
			reached[g.Leaf(d, r)] = true
		}
		if len(reached) != g.Leaves() {
			t.Fatalf("case %d: slots reach %d of the decoded tree's %d leaves", it, len(reached), g.Leaves())
		}
		labelled := 0
		for _, a := range class {
			if a >= 0 {
				labelled++
			}
		}
		if g.Leaves() < labelled {
			pruned++
		}
	}
	if pruned < 50 {
		t.Fatalf("only %d of 300 trees lost a labelled leaf", pruned)
	}
}

// TestSizeDirectAfter: DT_size finds the same optimum whether the
// per-threshold clauses come at once, after a call's first conflict (the
// call is solved again with them), by default, or never.
func TestSizeDirectAfter(t *testing.T) {
	d, err := model.ReadFile(filepath.Join("..", "..", "testdata", "iris.csv"), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(d, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Settings{{SizeDirectAfter: -1}, {SizeDirectAfter: 1}, {}, {SizeNoDirect: true}} {
		var log []string
		s.Log = func(l string) { log = append(log, l) }
		o, err := MinSize(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, d, o.Model)
		switched := strings.Contains(strings.Join(log, "\n"), "per-threshold clauses added")
		if !o.Optimal || o.Depth != 4 || o.Leaves != 8 || switched != (s.SizeDirectAfter == 1) {
			t.Fatalf("%+v: optimal %v, depth %d, %d leaves, switched %v", s, o.Optimal, o.Depth, o.Leaves, switched)
		}
	}
}

// TestChooseNearest checks the loop's choice of examples against
// distances computed from the binary view directly: the batch chosen
// are the pending slots nearest to an added slot of another class,
// lowest slot first among equals; with FirstMisclassified, the first
// pending slots. It fails when choose keeps a farther slot or breaks a
// tie the other way.
func TestChooseNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for it := range 200 {
		d := randomData(rng, 20+rng.IntN(60), 3, 2+rng.IntN(3))
		p, err := Prepare(d, true)
		if err != nil {
			t.Fatal(err)
		}
		first := it%5 == 0
		s := &Settings{FirstMisclassified: first}
		var sb *slotBits
		if !first {
			sb = newSlotBits(p)
		}
		calls := 0
		r, err := newRun(context.Background(), p, 2, s, nil, &calls, nil, sb)
		if err != nil {
			t.Fatal(err)
		}
		n := r.enc.NumExamples()
		var pending []int
		for i := range n {
			switch rng.IntN(3) {
			case 0:
				r.add(i)
			case 1:
				pending = append(pending, i)
			}
		}
		dist := func(i int) int { // to the nearest added slot of another class
			best := math.MaxInt32
			for j := range n {
				if !r.enc.IsAdded(j) || r.enc.classOf[j] == r.enc.classOf[i] {
					continue
				}
				dd := 0
				for _, tt := range p.Tests {
					if p.View.True[tt].Has(r.enc.Row(i)) != p.View.True[tt].Has(r.enc.Row(j)) {
						dd++
					}
				}
				best = min(best, dd)
			}
			return best
		}
		want := slices.Clone(pending)
		if !first {
			slices.SortStableFunc(want, func(a, b int) int { return dist(a) - dist(b) })
		}
		batch := 1 + rng.IntN(3)
		want = want[:min(batch, len(want))]
		r.pending = slices.Clone(pending)
		r.choose(batch)
		slices.Sort(want) // the set chosen; its order is the solver's business
		if got := slices.Sorted(slices.Values(r.pending)); !slices.Equal(got, want) {
			t.Fatalf("case %d (first %v, batch %d): chose %v, want %v", it, first, batch, r.pending, want)
		}
	}
}
