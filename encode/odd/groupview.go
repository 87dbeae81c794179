package odd

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// entry is a nonzero class weight of a row group.
type entry struct {
	c int
	w float64
}

// groupView is the data as the bounds of the count cut and the diagram
// cut see it: groups of identical rows, their nonzero class weights, the
// distinct threshold tests, each column's order of the groups, and
// scratch. One view serves both.
type groupView struct {
	K       int
	groups  [][]int
	weight  [][]float64
	entries [][]entry
	tests   [][]uint8
	orders  [][]int     // per column: the groups by increasing value
	vals    [][]float64 // per column: each group's value
	in      []bool      // scratch: the groups of a sweep

	low, high, start []float64 // scratch of bestLastTest
}

// viewCells caps the entries of a groupView's tables (groups × columns
// for the orders and values, groups × tests for the tests, a byte each):
// the bounds are for small data, where they can pay.
const viewCells = 1 << 24

// newGroupView builds the view, or returns nil when its tables would
// pass viewCells.
func (e *Encoding) newGroupView() *groupView {
	v := &groupView{K: e.nCls}
	v.groups, v.weight = e.rowGroups()
	G := len(v.groups)
	tests := 0
	for j := range e.cols {
		distinct := make(map[float64]bool)
		for _, rows := range v.groups {
			distinct[e.x[rows[0]][j]] = true
		}
		tests += len(distinct) - 1
	}
	if G*len(e.cols) > viewCells/8 || G*tests > viewCells {
		return nil
	}
	v.tests = e.groupTests(v.groups)
	v.entries = make([][]entry, G)
	for g, w := range v.weight {
		for c, x := range w {
			if x != 0 {
				v.entries[g] = append(v.entries[g], entry{c, x})
			}
		}
	}
	v.orders = make([][]int, len(e.cols))
	v.vals = make([][]float64, len(e.cols))
	for j := range e.cols {
		v.vals[j] = make([]float64, G)
		for g, rows := range v.groups {
			v.vals[j][g] = e.x[rows[0]][j]
		}
		v.orders[j] = make([]int, G)
		for g := range G {
			v.orders[j][g] = g
		}
		vals := v.vals[j]
		slices.SortStableFunc(v.orders[j], func(a, b int) int { return cmp.Compare(vals[a], vals[b]) })
	}
	v.in = make([]bool, G)
	return v
}

// rowGroups groups the rows with identical scaled columns; weight[g][c]
// is the cost of the rows of group g and class c.
func (e *Encoding) rowGroups() (groups [][]int, weight [][]float64) {
	index := map[string]int{}
	for i, xs := range e.x {
		var b strings.Builder
		for _, v := range xs {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			b.WriteByte(' ')
		}
		k := b.String()
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
			weight = append(weight, make([]float64, e.nCls))
		}
		groups[g] = append(groups[g], i)
		weight[g][e.data.Labels[i]] += e.cost(i)
	}
	return groups, weight
}

// groupTests lists the distinct threshold tests on the row groups: per
// column, one test between each two neighbouring values (1: the group's
// value is at most the lower one); a test and its complement count once.
func (e *Encoding) groupTests(groups [][]int) [][]uint8 {
	seen := map[string]bool{}
	var tests [][]uint8
	for j := range e.cols {
		vals := make([]float64, len(groups))
		for g, rows := range groups {
			vals[g] = e.x[rows[0]][j]
		}
		distinct := slices.Clone(vals)
		slices.Sort(distinct)
		distinct = slices.Compact(distinct)
		for _, thr := range distinct[:len(distinct)-1] {
			t := make([]uint8, len(groups))
			for g, v := range vals {
				if (v <= thr) != (vals[0] <= thr) {
					t[g] = 1 // canonical: group 0 answers 0
				}
			}
			if k := string(t); !seen[k] {
				seen[k] = true
				tests = append(tests, t)
			}
		}
	}
	return tests
}
