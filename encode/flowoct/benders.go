package flowoct

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/milp"
)

// routing adds the min-support rows: every group is routed from the root
// along its tests to the node that predicts for it (r, q), and a node
// that predicts holds at least MinSupport rows.
func (e *Encoding) routing(ctx context.Context) error {
	m := e.Model
	var idx []int
	var val []float64
	add := func(col int, v float64) { idx, val = append(idx, col), append(val, v) }
	for g := range e.groups {
		if g%8 == 0 {
			if ctx.Err() != nil {
				return fmt.Errorf("writing the routing constraints: %w", context.Cause(ctx))
			}
		}
		for n := range e.nNodes {
			// Conservation: in = children + stop.
			idx, val = idx[:0], val[:0]
			add(e.r[g][n], 1)
			add(e.q[g][n], -1)
			if !e.isLeaf(n) {
				add(e.r[g][2*n+1], -1)
				add(e.r[g][2*n+2], -1)
			}
			m.AddRow(fmt.Sprintf("route_%d_%d", g, n), 0, 0, idx, val)
			// A group stops only where a node predicts.
			m.AddRow(fmt.Sprintf("stop_%d_%d", g, n), -milp.Inf, 0, []int{e.q[g][n], e.p[n]}, []float64{1, -1})
		}
		for n := range e.nInt {
			for side := range 2 {
				idx, val = idx[:0], val[:0]
				add(e.r[g][2*n+1+side], 1)
				for j, c := range e.b[n] {
					if e.value(g, j) == (side == 1) {
						add(c, -1)
					}
				}
				m.AddRow(fmt.Sprintf("rarc_%d_%d_%d", g, n, side), -milp.Inf, 0, idx, val)
			}
		}
	}
	// Support: a predicting node holds at least MinSupport rows.
	for n := range e.nNodes {
		idx, val = idx[:0], val[:0]
		for g, gr := range e.groups {
			add(e.q[g][n], float64(gr.rows))
		}
		add(e.p[n], -float64(e.Opts.MinSupport))
		m.AddRow(fmt.Sprintf("support_%d", n), 0, milp.Inf, idx, val)
	}
	return nil
}

// Cut is a Benders cut of the master: the share of a group's class
// classified correctly is at most the capacity of a cut of the group's
// flow graph, the arcs the node's tests open to its children and the
// sink arcs of the nodes that predict the class.
type Cut struct {
	Group, Class int
	// Index, Value and Upper state g[Group][Class] − Σ capacity ≤ Upper
	// (Upper > 0 where an arc's capacity, the sum of the tests that send
	// the group that way, is written as 1 − the sum of the others: one
	// test per node in the plain form, and the sparser sum is written).
	Index []int
	Value []float64
	Upper float64
}

// NumCutVars is the number of (group, class) pairs of the master, each
// with its cuts.
func (e *Encoding) NumCutVars() int {
	k := 0
	for g := range e.gc {
		for _, c := range e.gc[g] {
			if c >= 0 {
				k++
			}
		}
	}
	return k
}

// MinCut finds a minimum cut of the flow graph of group g and class c
// under the capacities of point x (tree variables read from x): from the
// root, each node's flow is cut either at the arc into the node or below
// it. The graph is a tree, so the recursion is exact. It returns the cut
// and its capacity; g[g][c] > capacity means the cut is violated.
func (e *Encoding) MinCut(g, c int, x []float64) (Cut, float64) {
	// part is the cut of a subtree: the columns whose sum is its
	// capacity (pos), and the plain form's arcs written as 1 − Σ others
	// (neg, one unit of upper each).
	type part struct {
		pos, neg []int
		upper    float64
		capa     float64
	}
	plain := !e.Opts.general()
	var below func(n int) part
	below = func(n int) part {
		var pt part
		if e.w[n] != nil {
			pt.pos = append(pt.pos, e.w[n][c])
			pt.capa += x[e.w[n][c]]
		}
		if e.isLeaf(n) {
			return pt
		}
		for side := range 2 {
			var arc, others []int
			a := 0.0
			for j, col := range e.b[n] {
				if e.value(g, j) == (side == 1) {
					arc = append(arc, col)
					a += x[col]
				} else {
					others = append(others, col)
				}
			}
			sub := below(2*n + 1 + side)
			switch {
			case a > sub.capa+1e-9:
				pt.pos, pt.neg = append(pt.pos, sub.pos...), append(pt.neg, sub.neg...)
				pt.upper += sub.upper
				pt.capa += sub.capa
			case plain && len(others) < len(arc):
				// Σ_arc b = 1 − Σ_others b: the sparser sum.
				pt.neg = append(pt.neg, others...)
				pt.upper++
				pt.capa += a
			default:
				pt.pos = append(pt.pos, arc...)
				pt.capa += a
			}
		}
		return pt
	}
	pt := below(0)
	cut := Cut{Group: g, Class: c, Index: []int{e.gc[g][c]}, Value: []float64{1}, Upper: pt.upper}
	for _, col := range pt.pos {
		cut.Index = append(cut.Index, col)
		cut.Value = append(cut.Value, -1)
	}
	for _, col := range pt.neg {
		cut.Index = append(cut.Index, col)
		cut.Value = append(cut.Value, 1)
	}
	return cut, pt.capa
}

// Violated returns the cuts of point x that x violates by more than tol,
// one per (group, class) at most. When ctx ends first it returns the
// cuts found so far and ctx's error.
func (e *Encoding) Violated(ctx context.Context, x []float64, tol float64) ([]Cut, error) {
	var cuts []Cut
	for g := range e.gc {
		if err := cutsPoll(ctx, g); err != nil {
			return cuts, err
		}
		for c, col := range e.gc[g] {
			if col < 0 || x[col] <= tol {
				continue
			}
			cut, capa := e.MinCut(g, c, x)
			if x[col] > capa+tol {
				cuts = append(cuts, cut)
			}
		}
	}
	return cuts, nil
}

// AllCuts returns the minimum cut of every (group, class) at point x,
// violated or not (the cuts of a tree's paths seed the master). When
// ctx ends first it returns the cuts found so far and ctx's error.
func (e *Encoding) AllCuts(ctx context.Context, x []float64) ([]Cut, error) {
	var cuts []Cut
	for g := range e.gc {
		if err := cutsPoll(ctx, g); err != nil {
			return cuts, err
		}
		for c, col := range e.gc[g] {
			if col >= 0 {
				cut, _ := e.MinCut(g, c, x)
				cuts = append(cuts, cut)
			}
		}
	}
	return cuts, nil
}

// cutsPoll looks at ctx every 16 groups of a cut search (a minimum cut
// per group and class: thousands of groups take seconds).
func cutsPoll(ctx context.Context, g int) error {
	if g%16 == 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("searching the Benders cuts: %w", err)
		}
	}
	return nil
}

// AddCuts adds cuts to the master as rows named cut_G_C_K.
func (e *Encoding) AddCuts(cuts []Cut) {
	for _, c := range cuts {
		e.Model.AddRow(fmt.Sprintf("cut_%d_%d_%d", c.Group, c.Class, len(e.Model.Rows)), -milp.Inf, c.Upper, c.Index, c.Value)
	}
}
