package odd

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// closeValues is one column with five rows at 1.0 (class a), five at
// 1.00001 (class b) and one at 1000 (class a): min-max scaled, the first
// two values are 1e-8 apart, far below a fixed margin of 1e-4.
func closeValues() *model.Dataset {
	d := &model.Dataset{Name: "close", Classes: []string{"a", "b"},
		Features: []model.Feature{{Name: "x", Kind: model.Numeric}}}
	add := func(v float64, c int) {
		d.Features[0].Values = append(d.Features[0].Values, v)
		d.Labels = append(d.Labels, c)
	}
	for range 5 {
		add(1.0, 0)
		add(1.00001, 1)
	}
	add(1000, 0)
	return d
}

func TestMarginsFromTheData(t *testing.T) {
	d := closeValues()
	e, err := Encode(context.Background(), d, Options{Skeleton: TreeSkeleton(2), Tree: true})
	if err != nil {
		t.Fatal(err)
	}
	c := e.cols[0]
	// Three distinct values scaled by rank: 0, 0.5, 1; the margin is the
	// gap, at most 1e-4.
	if c.eps != 1e-4 || e.x[0][0] != 0 || e.x[1][0] != 0.5 || e.x[10][0] != 1 {
		t.Fatalf("margin %v, scaled values %v %v %v; want 1e-4 and 0, 0.5, 1", c.eps, e.x[0][0], e.x[1][0], e.x[10][0])
	}
	// A column of more distinct values than 1/1e-4 has its gap as margin.
	wide := &model.Dataset{Name: "wide", Classes: []string{"a", "b"},
		Features: []model.Feature{{Name: "w", Kind: model.Numeric}, {Name: "v", Kind: model.Numeric}}}
	for i := range 20001 {
		wide.Features[0].Values = append(wide.Features[0].Values, float64(i))
		wide.Features[1].Values = append(wide.Features[1].Values, float64(i%3))
		wide.Labels = append(wide.Labels, i%2)
	}
	cols, err := scaleColumns(wide, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := margins(wide, cols, &Options{}); err != nil {
		t.Fatal(err)
	}
	if cols[0].eps != 1.0/20000 || cols[1].eps != 1e-4 {
		t.Fatalf("margins %v and %v, want 1/20000 and 1e-4", cols[0].eps, cols[1].eps)
	}
	// The split between 1 and 1.00001 maps back between them.
	if thr := c.raw(0.25); !(thr >= 1 && thr < 1.00001) {
		t.Fatalf("raw threshold of scaled 0.25 is %v, want in [1, 1.00001)", thr)
	}
	// The heuristic now finds the perfect tree (it could not split
	// values closer than the fixed margin before).
	inc := e.Heuristic(t.Context(), 10, 1)
	if inc == nil || inc.Errors != 0 {
		t.Fatalf("heuristic: %+v, want a tree of no error", inc)
	}
	if err := e.Model.CheckPoint(inc.X, 1e-9); err != nil {
		t.Fatalf("the heuristic's point is not a solution of the MILP: %v", err)
	}
	// An explicit epsilon applies to every column.
	e2, err := Encode(context.Background(), d, Options{Skeleton: TreeSkeleton(2), Tree: true, Epsilon: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if e2.cols[0].eps != 0.01 {
		t.Fatalf("margin %v with epsilon 0.01", e2.cols[0].eps)
	}
}

func TestObliqueMarginTooSmallRefused(t *testing.T) {
	d := closeValues()
	_, err := Encode(context.Background(), d, Options{Skeleton: []int{1}, Multivariate: true})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "feature x") || !strings.Contains(err.Error(), "1.00001") {
		t.Fatalf("oblique splits on values 1e-8 apart after scaling: %v, want an input error naming x and its values", err)
	}
	// With the margin given, the request is the user's.
	if _, err := Encode(context.Background(), d, Options{Skeleton: []int{1}, Multivariate: true, Epsilon: 1e-9}); err != nil {
		t.Fatal(err)
	}
	// Values that scaling leaves apart get the oblique margin min(1e-4, gap).
	d.Features[0].Values[10] = 1.00002
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1}, Multivariate: true})
	if err != nil {
		t.Fatal(err)
	}
	if e.eps != 1e-4 {
		t.Fatalf("oblique margin %v, want 1e-4", e.eps)
	}
}

func TestOneClassHasAnEmptyTerminal(t *testing.T) {
	d := &model.Dataset{Name: "one", Classes: []string{"a"},
		Features: []model.Feature{{Name: "x", Kind: model.Numeric, Values: []float64{1, 2, 3}}}, Labels: []int{0, 0, 0}}
	e, err := Encode(context.Background(), d, Options{Skeleton: TreeSkeleton(2), Tree: true})
	if err != nil {
		t.Fatal(err)
	}
	if e.nCls != 2 {
		t.Fatalf("%d terminals, want the class and an empty one", e.nCls)
	}
	if e.Heuristic(t.Context(), 3, 1) != nil {
		t.Fatal("the heuristic offers a diagram on one class")
	}
	// The root sends every row to the class: a point of the MILP, which
	// decodes to the single leaf.
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
	for u := range e.nInt {
		x[e.E[u][0]] = 1 // constraint 15 holds for inactive nodes too
	}
	x[e.B[0]] = e.cols[0].eps // a·x + ε = ε ≤ b: every row negative
	for i := range d.Rows() {
		x[e.W[Neg][i][0]] = 1
		x[e.Z[Neg][i][0][indexOf(e.succ[0], e.nInt)]] = 1
		x[e.Leaf[i][0]] = 1
	}
	if err := e.Model.CheckPoint(x, 1e-9); err != nil {
		t.Fatalf("the one-leaf point is not a solution: %v", err)
	}
	g, err := e.Decode(x)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 1 || !g.Nodes[g.Root].Leaf || g.Errors(d) != 0 {
		t.Fatalf("decoded %s, want the single leaf", g.Text())
	}
}

func indexOf(s []int, v int) int {
	for i, w := range s {
		if w == v {
			return i
		}
	}
	return -1
}
