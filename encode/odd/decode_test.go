package odd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// decodeData has a numeric column on a raw scale, a constant column and a
// 0/1 column; the label is irrelevant here.
func decodeData(n int, r *rand.Rand) *model.Dataset {
	d := &model.Dataset{Name: "raw", Classes: []string{"neg", "pos"},
		Features: []model.Feature{
			{Name: "size", Kind: model.Numeric},
			{Name: "const", Kind: model.Numeric},
			{Name: "flag", Kind: model.Numeric},
		}}
	for range n {
		d.Features[0].Values = append(d.Features[0].Values, 100+float64(r.IntN(150))+0.25*float64(r.IntN(4)))
		d.Features[1].Values = append(d.Features[1].Values, 7)
		d.Features[2].Values = append(d.Features[2].Values, float64(r.IntN(2)))
		d.Labels = append(d.Labels, r.IntN(2))
	}
	return d
}

// stump writes a one-node MILP point: the root's negative side to class
// 0, its positive side to class 1, hyperplane (a, b), univariate on
// column col when col ≥ 0.
func stump(e *Encoding, a []float64, b float64, col int) []float64 {
	x := make([]float64, len(e.Model.Columns))
	x[e.D[0]] = 1
	for k, v := range e.succ[0] {
		if v == e.nInt {
			x[e.Y[Neg][0][k]] = 1
		}
		if v == e.nInt+1 {
			x[e.Y[Pos][0][k]] = 1
		}
	}
	for j, v := range a {
		x[e.A[0][j]] = v
	}
	x[e.B[0]] = b
	if col >= 0 {
		x[e.E[0][col]] = 1
	}
	return x
}

// testedMargin is the margin of the split a: the column's own margin for
// a univariate split (its one non-zero weight; column 0 when none).
func testedMargin(e *Encoding, a []float64) float64 {
	if e.Opts.Multivariate {
		return e.eps
	}
	for j, v := range a {
		if v != 0 {
			return e.cols[j].eps
		}
	}
	return e.cols[0].eps
}

// checkRouting asserts that g sends every row the MILP puts on a side
// (a·x + ε ≤ b: negative, class 0; a·x ≥ b: positive, class 1) to that
// side's class; rows strictly inside the margin fit neither side.
func checkRouting(t *testing.T, e *Encoding, g *model.Graph, a []float64, b float64) (neg, pos int) {
	t.Helper()
	for i := range e.data.Rows() {
		s := 0.0
		for j, v := range a {
			s += v * e.x[i][j]
		}
		want := -1
		switch {
		case s+testedMargin(e, a) <= b+1e-12:
			want, neg = 0, neg+1
		case s >= b-1e-12:
			want, pos = 1, pos+1
		}
		if got := g.Predict(e.data, i); want >= 0 && got != want {
			t.Fatalf("a=%v b=%v: row %d (a·x = %v) goes to class %d, the MILP sends it to %d\n%s", a, b, i, s, got, want, g.Text())
		}
	}
	return neg, pos
}

func TestDecodeUnivariateThresholdsAndSides(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	d := decodeData(40, r)
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	sc := e.cols[0]
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range d.Features[0].Values {
		lo, hi = min(lo, v), max(hi, v)
	}
	if sc.feature != 0 || sc.min != lo || sc.rng != hi-lo {
		t.Fatalf("scaling %+v, want min %v range %v", sc, lo, hi-lo)
	}
	for trial := range 200 {
		row := r.IntN(d.Rows())
		av := (0.05 + 0.95*r.Float64())
		if trial%2 == 1 {
			av = -av // a < 0: the sides swap
		}
		s := av * e.x[row][0]
		// The row sits exactly on one boundary: a·x + ε = b (negative
		// side) or a·x = b (positive side).
		b := s + sc.eps
		if trial%4 >= 2 {
			b = s
		}
		a := []float64{av, 0, 0}
		g, err := e.Decode(stump(e, a, b, 0))
		if err != nil {
			t.Fatal(err)
		}
		root := g.Nodes[g.Root]
		if root.Feature != 0 || root.Weights != nil {
			t.Fatalf("root tests %+v, want feature size", root)
		}
		// t = b − ε/2 on the scaled value, mapped back to raw units: a raw
		// value is at most the threshold exactly when its scaled value is
		// at most t/a, and the threshold lies between two data values.
		ts := (b - sc.eps/2) / av
		for _, v := range sc.vals {
			if (v <= root.Threshold) != (sc.scaled(v) <= ts) {
				t.Fatalf("threshold %v, scaled %v: value %v (scaled %v) on the wrong side", root.Threshold, ts, v, sc.scaled(v))
			}
		}
		lowClass := g.Nodes[root.Low].Class
		if (av > 0) != (lowClass == 0) {
			t.Fatalf("a = %v: the low side (size ≤ t) leads to class %d", av, lowClass)
		}
		neg, pos := checkRouting(t, e, g, a, b)
		if neg+pos == 0 {
			t.Fatalf("no row checked")
		}
	}
}

func TestDecodeZeroWeightAndConstantColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	d := decodeData(30, r)
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	// a = 0 on the chosen column: every row takes the side of 0 vs b.
	for _, b := range []float64{0.5, -0.5} {
		for _, col := range []int{0, 1} { // column 1 is constant
			a := []float64{0, 0, 0}
			if col == 1 {
				a[1] = 0.7 // a constant column scales to 0: its weight is irrelevant
			}
			g, err := e.Decode(stump(e, a, b, col))
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if b < 0 {
				want = 1
			}
			for i := range d.Rows() {
				if got := g.Predict(d, i); got != want {
					t.Fatalf("b=%v column %d: row %d to class %d, want %d (every row on one side)\n%s", b, col, i, got, want, g.Text())
				}
			}
		}
	}
}

func TestDecodeMultivariateRawWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	d := decodeData(50, r)
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1}, Multivariate: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		a := []float64{2*r.Float64() - 1, 2*r.Float64() - 1, 2*r.Float64() - 1}
		row := r.IntN(d.Rows())
		s := a[0]*e.x[row][0] + a[1]*e.x[row][1] + a[2]*e.x[row][2]
		b := s + e.eps
		if r.IntN(2) == 0 {
			b = s
		}
		g, err := e.Decode(stump(e, a, b, -1))
		if err != nil {
			t.Fatal(err)
		}
		root := g.Nodes[g.Root]
		if w, ok := root.Weights[1]; ok && w != 0 {
			t.Fatalf("the constant column has weight %v, want 0", w)
		}
		checkRouting(t, e, g, a, b)
	}
}

// Decoding reads the topology and hyperplanes only: the leaf flow
// variables (and with them the MILP's objective) do not change the graph,
// whose errors are recomputed on the data.
func TestDecodeIgnoresClaimedErrors(t *testing.T) {
	d := randomBinary(4, 40, 4, 2)
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2, 2}, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	inc := e.Heuristic(context.Background(), 3, 1)
	if inc == nil || inc.Errors == 0 {
		t.Fatal("want a heuristic diagram with errors")
	}
	x := append([]float64(nil), inc.X...)
	for i := range d.Rows() {
		for c := range d.NumClasses() {
			x[e.Leaf[i][c]] = 0
		}
		x[e.Leaf[i][d.Labels[i]]] = 1 // claim: every row right
	}
	if e.Model.Objective(x) >= inc.Objective {
		t.Fatalf("the doctored point should claim a lower objective")
	}
	g, err := e.Decode(x)
	if err != nil {
		t.Fatal(err)
	}
	if g.Errors(d) != inc.Errors {
		t.Fatalf("decoded graph makes %d errors, the diagram %d", g.Errors(d), inc.Errors)
	}
}
