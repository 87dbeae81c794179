package flowoct

import (
	"fmt"

	"github.com/odtkit/odtkit/model"
)

// Tree is a tree on the encoding's complete tree: per internal node the
// index into Tests it tests (−1: it predicts or lies below a
// prediction), per node the class it predicts (−1: none).
type Tree struct {
	Test  []int
	Class []int
}

// Point is the MILP point of tree t (a MIP start): tree variables from t,
// each group's flow along its path, to the sink when the leaf predicts
// one of the group's classes. It reports false when t does not fit the
// encoding's form (a plain-form internal node without a test).
func (e *Encoding) Point(t Tree) ([]float64, bool) {
	x := make([]float64, len(e.Model.Columns))
	gen := e.Opts.general()
	pred := make([]bool, e.nNodes)
	var mark func(n int, above bool) bool
	mark = func(n int, above bool) bool {
		if above {
			return n >= e.nInt || mark(2*n+1, true) && mark(2*n+2, true)
		}
		if n < e.nInt && t.Test[n] >= 0 {
			x[e.b[n][t.Test[n]]] = 1
			return mark(2*n+1, false) && mark(2*n+2, false)
		}
		if !gen && n < e.nInt {
			return false
		}
		pred[n] = true
		if e.p[n] >= 0 {
			x[e.p[n]] = 1
		}
		if t.Class[n] < 0 {
			return false
		}
		x[e.w[n][t.Class[n]]] = 1
		if n < e.nInt {
			return mark(2*n+1, true) && mark(2*n+2, true)
		}
		return true
	}
	if !mark(0, false) {
		return nil, false
	}
	if e.v != nil {
		for n := e.nInt; n < e.nNodes; n++ {
			if j := t.Test[(n-1)/2]; pred[n] && j >= 0 {
				x[e.v[n][j][t.Class[n]]] = 1
			}
		}
	}
	if e.compact() {
		return x, true
	}
	for g, gr := range e.groups {
		n := 0
		for !pred[n] {
			if e.value(g, t.Test[n]) {
				n = 2*n + 2
			} else {
				n = 2*n + 1
			}
		}
		c := t.Class[n]
		if e.r != nil {
			for a := n; ; a = (a - 1) / 2 {
				x[e.r[g][a]] = 1
				if a == 0 {
					break
				}
			}
			x[e.q[g][n]] = 1
		}
		if gr.w[c] <= 0 {
			continue // misclassified: no flow
		}
		if e.gc != nil {
			x[e.gc[g][c]] = 1
			continue
		}
		for a := n; ; a = (a - 1) / 2 {
			x[e.z[g][a]] = 1
			if a == 0 {
				break
			}
		}
		for _, s := range e.s[g] {
			if s[0] == n && sinkClass(e.Model.Columns[s[1]].Name) == c {
				x[s[1]] = 1
			}
		}
	}
	return x, true
}

// TreeOf reads the tree of a MILP point (values rounded).
func (e *Encoding) TreeOf(x []float64) (Tree, error) {
	if len(x) != len(e.Model.Columns) {
		return Tree{}, fmt.Errorf("flowoct: %d values for %d columns", len(x), len(e.Model.Columns))
	}
	t := Tree{Test: make([]int, e.nInt), Class: make([]int, e.nNodes)}
	for n := range e.nInt {
		t.Test[n] = -1
		for j, c := range e.b[n] {
			if x[c] > 0.5 {
				if t.Test[n] >= 0 {
					return t, fmt.Errorf("flowoct: node %d tests two tests (%d and %d)", n, t.Test[n], j)
				}
				t.Test[n] = j
			}
		}
	}
	for n := range e.nNodes {
		t.Class[n] = -1
		if e.w[n] == nil {
			continue
		}
		for c, col := range e.w[n] {
			if x[col] > 0.5 {
				t.Class[n] = c
			}
		}
	}
	return t, nil
}

// Graph builds the model of tree t: from the root, a node with a test
// splits, a node with a class is a leaf. In the plain form, a split whose
// two sides are leaves of one class is merged into that leaf (the same
// predictions, fewer nodes).
func (e *Encoding) Graph(t Tree) (*model.Graph, error) {
	d := e.View.Data
	bld := model.NewBuilder(d, model.KindTree)
	merge := !e.Opts.general()
	type built struct {
		id, class int // class ≥ 0: a leaf of that class
	}
	var walk func(n int) (built, error)
	walk = func(n int) (built, error) {
		if n < e.nInt && t.Test[n] >= 0 {
			lo, err := walk(2*n + 1)
			if err != nil {
				return built{}, err
			}
			hi, err := walk(2*n + 2)
			if err != nil {
				return built{}, err
			}
			if merge && lo.class >= 0 && lo.class == hi.class {
				return lo, nil
			}
			return built{bld.Split(e.View.Tests[e.Tests[t.Test[n]]], lo.id, hi.id), -1}, nil
		}
		c := t.Class[n]
		if c < 0 {
			return built{}, fmt.Errorf("flowoct: node %d neither tests nor predicts", n)
		}
		return built{bld.Leaf(c), c}, nil
	}
	root, err := walk(0)
	if err != nil {
		return nil, err
	}
	return bld.Graph(root.id), nil
}

// Decode reads the model of a MILP point.
func (e *Encoding) Decode(x []float64) (*model.Graph, error) {
	t, err := e.TreeOf(x)
	if err != nil {
		return nil, err
	}
	return e.Graph(t)
}
