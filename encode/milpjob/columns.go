package milpjob

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Column is one column a threshold MILP (milp-oct, milp-binoct) splits
// on: a numeric feature, or one level of a categorical feature as a 0/1
// indicator (1: the row has that level). A split at value index k sends
// the rows whose value is at most Values[k] low, the others high.
type Column struct {
	Feature int
	// Level is the categorical level of an indicator column, −1 for a
	// numeric feature.
	Level int
	// Values are the column's distinct values, increasing (at least two).
	Values []float64
	// Index holds, per row, the index into Values of the row's value.
	Index []int
}

// Columns are the columns of d that split its rows: every numeric
// feature with at least two distinct values, and for a categorical
// feature one indicator per level (one only when it has two levels, as
// the binary view has one test), each taking both values on d. Their
// splits are exactly the binary view's tests (model.Binarize).
func Columns(d *model.Dataset) []Column {
	var cols []Column
	for fi, f := range d.Features {
		if f.Kind == model.Categorical {
			levels := len(f.Levels)
			if levels == 2 {
				levels = 1
			}
			for lv := range levels {
				c := Column{Feature: fi, Level: lv, Values: []float64{0, 1}, Index: make([]int, len(f.Values))}
				ones := 0
				for r, v := range f.Values {
					if int(v) == lv {
						c.Index[r] = 1
						ones++
					}
				}
				if ones > 0 && ones < len(f.Values) {
					cols = append(cols, c)
				}
			}
			continue
		}
		vals := slices.Clone(f.Values)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		if len(vals) < 2 {
			continue
		}
		c := Column{Feature: fi, Level: -1, Values: vals, Index: make([]int, len(f.Values))}
		for r, v := range f.Values {
			c.Index[r], _ = slices.BinarySearch(vals, v)
		}
		cols = append(cols, c)
	}
	return cols
}

// Test is the binary-view test of the split at value index k (k below
// the last index): true, high, for the rows whose value is above
// Values[k].
func (c *Column) Test(k int) model.Test {
	if c.Level >= 0 {
		return model.Test{Feature: c.Feature, Categorical: true, Level: c.Level}
	}
	return model.Test{Feature: c.Feature, Threshold: model.Midpoint(c.Values[k], c.Values[k+1])}
}

// TreeGraph builds the model of a complete tree of depth depth in heap
// order (root 0, children 2n+1 low and 2n+2 high) on d: split(n) gives
// internal node n's column and value index (col < 0: the node does not
// split; its rows follow side, high when highSide), class(n) a leaf's
// class (−1: none). A split that sends every row reaching it to one side
// is left out (its other side is empty), so every leaf of the model
// holds a row, unless no row reaches the root; a node that does not
// split predicts the class of the leaf its rows reach.
func TreeGraph(d *model.Dataset, cols []Column, depth int, split func(n int) (col, k int), highSide bool, class func(n int) int) *model.Graph {
	bld := model.NewBuilder(d, model.KindTree)
	nInt := 1<<depth - 1
	type built struct{ id, class int } // class ≥ 0: a leaf of that class
	var walk func(n int, rows []int) built
	walk = func(n int, rows []int) built {
		for n < nInt {
			col, k := split(n)
			if col < 0 {
				if highSide {
					n = 2*n + 2
				} else {
					n = 2*n + 1
				}
				continue
			}
			var lo, hi []int
			for _, r := range rows {
				if cols[col].Index[r] <= k {
					lo = append(lo, r)
				} else {
					hi = append(hi, r)
				}
			}
			switch {
			case len(hi) == 0 || k >= len(cols[col].Values)-1:
				n = 2*n + 1
			case len(lo) == 0:
				n = 2*n + 2
			default:
				l := walk(2*n+1, lo)
				h := walk(2*n+2, hi)
				if l.class >= 0 && l.class == h.class {
					return l // a split between two leaves of one class predicts as that leaf
				}
				return built{bld.Split(cols[col].Test(k), l.id, h.id), -1}
			}
		}
		c := class(n)
		if c < 0 {
			c = 0
		}
		return built{bld.Leaf(c), c}
	}
	rows := make([]int, d.Rows())
	for r := range rows {
		rows[r] = r
	}
	return bld.Graph(walk(0, rows).id)
}

// Set lists, in order, the indices k of vars whose value in the point x
// rounds to one (above one half): a node's one-hot column or a leaf's
// class, as a tree MILP's decode reads them.
func Set(x []float64, vars []int) []int {
	var on []int
	for k, v := range vars {
		if x[v] > 0.5 {
			on = append(on, k)
		}
	}
	return on
}

// A ColumnTree is the tree of a point of a threshold MILP (milp-oct,
// milp-binoct), a complete tree in heap order: per branch node its
// column (−1: it does not split) and the value index K at or below which
// rows go low; per leaf its class (−1: none).
type ColumnTree struct {
	Col, K []int
	Class  []int
}

// NewColumnTree is the tree of depth depth with no split and no class.
func NewColumnTree(depth int) ColumnTree {
	t := ColumnTree{Col: make([]int, 1<<depth-1), K: make([]int, 1<<depth-1), Class: make([]int, 1<<depth)}
	for n := range t.Col {
		t.Col[n] = -1
	}
	for l := range t.Class {
		t.Class[l] = -1
	}
	return t
}

// ReadClasses sets each leaf l's class to the last k whose variable
// classes[l][k] rounds to one in the point x (none: −1).
func (t ColumnTree) ReadClasses(x []float64, classes [][]int) {
	for l := range t.Class {
		t.Class[l] = -1
		if on := Set(x, classes[l]); len(on) > 0 {
			t.Class[l] = on[len(on)-1]
		}
	}
}

// Graph is the model of the tree on d and its columns (see TreeGraph):
// the rows of a branch node that does not split go high when highSide.
func (t ColumnTree) Graph(d *model.Dataset, cols []Column, highSide bool) *model.Graph {
	nInt := len(t.Col)
	return TreeGraph(d, cols, bits.Len(uint(nInt)),
		func(n int) (int, int) { return t.Col[n], t.K[n] }, highSide,
		func(n int) int { return t.Class[n-nInt] })
}

// Witness starts the point of a form's witness, a tree of one leaf: the
// zero point of the built MILP m, or nil when m is not built or d has no
// row or fewer rows than minSupport (no tree is then feasible).
func Witness(m *milp.Model, d *model.Dataset, minSupport int) []float64 {
	n := d.Rows()
	if m == nil || n == 0 || n < max(minSupport, 1) {
		return nil
	}
	return make([]float64, len(m.Columns))
}

// Ones is n coefficients of one, a row's that sums its variables.
func Ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// SameRows maps each row of d to the first row identical to it on every
// column of cols and in its class: such rows take the same path in every
// tree on those columns and count alike, so a MILP may give them one
// set of routing variables. With distinct false, every row maps to
// itself.
func SameRows(d *model.Dataset, cols []Column, distinct bool) []int {
	n := d.Rows()
	rep := make([]int, n)
	if !distinct {
		for i := range rep {
			rep[i] = i
		}
		return rep
	}
	first := map[string]int{}
	key := make([]byte, 0, 4*(len(cols)+1))
	for i := range n {
		key = strconv.AppendInt(key[:0], int64(d.Labels[i]), 10)
		for _, c := range cols {
			key = strconv.AppendInt(append(key, ','), int64(c.Index[i]), 10)
		}
		r, ok := first[string(key)]
		if !ok {
			r = i
			first[string(key)] = i
		}
		rep[i] = r
	}
	return rep
}

// AppendCoefs appends the MILP columns vars to a row's indices idx and
// values val, each with the coefficient c.
func AppendCoefs(idx []int, val []float64, vars []int, c float64) ([]int, []float64) {
	for _, v := range vars {
		idx, val = append(idx, v), append(val, c)
	}
	return idx, val
}

// RowColumns adds, for every row that is its own representative in rep
// (SameRows), one column in [0, 1] per leaf, named name_i_t and integer
// when integer is true, and gives every other row its representative's
// columns: identical rows share their leaf.
func RowColumns(m *milp.Model, rep []int, leaves int, name string, integer bool) [][]int {
	cols := make([][]int, len(rep))
	for i, r := range rep {
		if r != i {
			cols[i] = cols[r]
			continue
		}
		cols[i] = make([]int, leaves)
		for t := range leaves {
			cols[i][t] = m.AddColumn(fmt.Sprintf("%s_%d_%d", name, i, t), 0, 1, 0, integer)
		}
	}
	return cols
}
