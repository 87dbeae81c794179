package oct

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// strengthen adds the inequalities of formulation=strengthened to the
// built MILP. Each keeps an optimal tree of every problem; together they
// route the rows of 0/1 columns without a big-M and lift the LP bound:
//
//   - first gap: b_m ≥ Σ_j ε_j·a_jm. A split below its column's first gap
//     sends every row high; it is left out of the decoded tree, and the
//     point whose node m does not split and whose subtree below m's high
//     child is moved up to m (its lowest level not splitting) has the
//     same leaves' rows and one split less: no objective rises.
//
//   - least value: a row whose value on the column is the least goes low
//     (with the first gap, x_ij = 0 < b_m): Σ_{t high of m} z_it ≤ 1 −
//     Σ_{j: x_ij = 0} a_jm.
//
//   - greatest value: a row whose value is the greatest never goes low
//     (x_ij + ε_j > 1 ≥ b_m), nor does any row at a node that does not
//     split: Σ_{t low of m} z_it ≤ Σ_{j: x_ij < 1} a_jm.
//
//   - per-row errors: q_tjk ≥ 0 (leaf t predicts k and its parent splits
//     on column j, or does not split) with Σ_k q_tjk ≤ a_jp (≤ 1 − d_p
//     for the parent not splitting, a high leaf only) and Σ_j q_tjk ≤
//     c_kt; w_it ≥ 0 (row i is in leaf t, which predicts its class) with
//     w_it ≤ z_it and w_it ≤ Σ q_{t,j,y_i} over the columns j on which
//     row i can take leaf t's side of its parent (low: x_ij < 1; high:
//     x_ij > 0, or no split); L_t ≥ N_t − Σ_i w_i·w_it. At every point
//     of a tree the q, w of its splits and classes meet these rows with
//     L_t at its published value, so no tree is cut off or costs more;
//     in the LP a depth-1 tree's bound is that of a mixture of stumps,
//     where the big-M rows of L_t allow 0.
//
//   - every node splits, for the error objective alone (no leaf cost,
//     minimum leaf size or cap on the splits): d_t = 1. A node that does
//     not split sends its rows high; splitting it on any column with its
//     low subtree a copy of its high one (the same splits and classes)
//     sends every row to a leaf of the class it reached before, so the
//     errors are the same; repeated top-down, every node splits. The
//     published upper bounds on L_t (L_t ≤ N_t − N_kt + W·c_kt, which
//     make a leaf predict its majority class) are then left out: L_t is
//     minimised, so at an optimum it is the leaf's errors all the same,
//     and a point of a tree of one leaf (every leaf predicting one
//     class) is at hand as the witness.
//
// For a 0/1 column the two routing rows say exactly which side a row
// takes; for other columns they bound the extremes and the published
// path rows route the rest. When every column is 0/1 the path rows are
// left out (routedExactly).
func (e *Encoding) strengthen(ctx context.Context) error {
	d, m := e.Data, e.Model
	n, K, P := d.Rows(), d.NumClasses(), len(e.Cols)
	if e.splitAll() {
		for t := range e.nInt {
			m.Columns[e.d[t]].Lower = 1
		}
	}
	for t := range e.nInt {
		idx, val := []int{e.b[t]}, []float64{1}
		for j := range P {
			idx, val = append(idx, e.a[t][j]), append(val, -e.eps[j])
		}
		m.AddRow(fmt.Sprintf("gap_%d", t), 0, milp.Inf, idx, val)
	}
	for i := range n {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
		}
		if e.rep[i] != i {
			continue
		}
		for t := range e.nInt {
			// low: Σ z ≤ Σ_{x<1} a = d − Σ_{x=1} a; high: Σ z ≤ 1 −
			// Σ_{x=0} a = 1 − d + Σ_{x>0} a; each stated over the fewer
			// columns.
			var lt, eq []int
			for j := range P {
				if e.x(i, j) < 1 {
					lt = append(lt, e.a[t][j])
				} else {
					eq = append(eq, e.a[t][j])
				}
			}
			idx, val := e.sideSum(i, t, true)
			if len(lt) <= len(eq)+1 {
				idx, val = milpjob.AppendCoefs(idx, val, lt, -1)
			} else {
				idx, val = milpjob.AppendCoefs(append(idx, e.d[t]), append(val, -1), eq, 1)
			}
			m.AddRow(fmt.Sprintf("low_%d_%d", i, t), -milp.Inf, 0, idx, val)
			var zero, pos []int
			for j := range P {
				if e.x(i, j) == 0 {
					zero = append(zero, e.a[t][j])
				} else {
					pos = append(pos, e.a[t][j])
				}
			}
			idx, val = e.sideSum(i, t, false)
			if len(zero) <= len(pos)+1 {
				idx, val = milpjob.AppendCoefs(idx, val, zero, 1)
				m.AddRow(fmt.Sprintf("high_%d_%d", i, t), -milp.Inf, 1, idx, val)
			} else {
				idx, val = milpjob.AppendCoefs(append(idx, e.d[t]), append(val, 1), pos, -1)
				m.AddRow(fmt.Sprintf("high_%d_%d", i, t), -milp.Inf, 1, idx, val)
			}
		}
	}

	// q per leaf: columns 0..P−1 its parent's, P no split (a high leaf
	// only); none at depth 0, where w ≤ c states the class.
	e.q, e.qs = make([][][]int, e.nLeaves), make([][]int, e.nLeaves)
	if e.nInt > 0 {
		for t := range e.nLeaves {
			p, low := e.parent(t)
			e.q[t] = make([][]int, P+1)
			for j := range P + 1 {
				if j == P && low {
					continue
				}
				e.q[t][j] = make([]int, K)
				idx, val := []int{}, []float64{}
				for k := range K {
					e.q[t][j][k] = m.AddContinuous(fmt.Sprintf("q_%d_%d_%d", t, j, k), 0, 1, 0)
					idx, val = append(idx, e.q[t][j][k]), append(val, 1)
				}
				if j < P {
					m.AddRow(fmt.Sprintf("qa_%d_%d", t, j), -milp.Inf, 0, append(idx, e.a[p][j]), append(val, -1))
				} else {
					m.AddRow(fmt.Sprintf("qa_%d_none", t), -milp.Inf, 1, append(idx, e.d[p]), append(val, 1))
				}
			}
			// Q_tk = Σ_j q_tjk ≤ c_kt.
			e.qs[t] = make([]int, K)
			for k := range K {
				e.qs[t][k] = m.AddContinuous(fmt.Sprintf("Q_%d_%d", t, k), 0, 1, 0)
				m.AddRow(fmt.Sprintf("qc_%d_%d", t, k), -milp.Inf, 0, []int{e.qs[t][k], e.ck[t][k]}, []float64{1, -1})
				idx, val := []int{e.qs[t][k]}, []float64{-1}
				for j := range P + 1 {
					if e.q[t][j] != nil {
						idx, val = append(idx, e.q[t][j][k]), append(val, 1)
					}
				}
				m.AddRow(fmt.Sprintf("qsum_%d_%d", t, k), 0, 0, idx, val)
			}
		}
	}
	e.w = milpjob.RowColumns(m, e.rep, e.nLeaves, "w", false)
	for t := range e.nLeaves {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		idxL, valL := []int{e.L[t], e.nt[t]}, []float64{1, -1}
		_, low := e.parent(t)
		for i := range n {
			idxL, valL = append(idxL, e.w[i][t]), append(valL, d.Weight(i))
			if e.rep[i] != i {
				continue
			}
			y := d.Labels[i]
			m.AddRow(fmt.Sprintf("wz_%d_%d", i, t), -milp.Inf, 0, []int{e.w[i][t], e.z[i][t]}, []float64{1, -1})
			// w_it ≤ Σ_{j∈S} q_{t,j,y} = Q_ty − Σ_{j∉S} q_{t,j,y}, over the
			// fewer columns.
			idx, val := []int{e.w[i][t]}, []float64{1}
			if e.nInt == 0 {
				idx, val = append(idx, e.ck[t][y]), append(val, -1)
			} else {
				var in, out []int
				for j := range P + 1 {
					switch {
					case e.q[t][j] == nil:
					case j == P, low && e.x(i, j) < 1, !low && e.x(i, j) > 0:
						in = append(in, e.q[t][j][y])
					default:
						out = append(out, e.q[t][j][y])
					}
				}
				if len(in) <= len(out)+1 {
					idx, val = milpjob.AppendCoefs(idx, val, in, -1)
				} else {
					idx, val = milpjob.AppendCoefs(append(idx, e.qs[t][y]), append(val, -1), out, 1)
				}
			}
			m.AddRow(fmt.Sprintf("wq_%d_%d", i, t), -milp.Inf, 0, idx, val)
		}
		m.AddRow(fmt.Sprintf("Lw_%d", t), 0, milp.Inf, idxL, valL)
	}
	return nil
}

// sideSum is the z of row i in the leaves on node t's low or high side,
// each with coefficient 1.
func (e *Encoding) sideSum(i, t int, low bool) ([]int, []float64) {
	var idx []int
	var val []float64
	for _, l := range e.leafRange(t, low) {
		idx, val = append(idx, e.z[i][l]), append(val, 1)
	}
	return idx, val
}

// splitAll reports whether the strengthened MILP makes every node split:
// for the error objective alone, with a branch node.
func (e *Encoding) splitAll() bool {
	o := e.Opts
	return o.Strengthen && o.LeafCost == 0 && o.MinSupport <= 1 && o.MaxSplits == 0 && e.nInt > 0
}

// witnessSplitAll completes the zero point x to the witness when every
// node splits: each splits on column 0 at its first gap (the rows of its
// least value low, the others high) and every leaf holding rows predicts
// the majority class k, a tree of one leaf once decoded.
func (e *Encoding) witnessSplitAll(x []float64) []float64 {
	d := e.Data
	counts := d.ClassCounts()
	k, _ := model.Majority(counts)
	for t := range e.nInt {
		x[e.d[t]], x[e.a[t][0]], x[e.b[t]] = 1, 1, e.eps[0]
	}
	nt := make([]float64, e.nLeaves)
	nkt := make([][]float64, e.nLeaves)
	for t := range nkt {
		nkt[t] = make([]float64, d.NumClasses())
	}
	for i := range d.Rows() {
		node := 0
		for node < e.nInt {
			if e.Cols[0].Index[i] == 0 {
				node = 2*node + 1
			} else {
				node = 2*node + 2
			}
		}
		t := node - e.nInt
		x[e.z[i][t]] = 1
		nt[t] += d.Weight(i)
		nkt[t][d.Labels[i]] += d.Weight(i)
		if d.Labels[i] == k {
			x[e.w[i][t]] = 1
		}
	}
	for t := range e.nLeaves {
		if nt[t] == 0 {
			continue
		}
		x[e.l[t]], x[e.ck[t][k]] = 1, 1
		x[e.q[t][0][k]], x[e.qs[t][k]] = 1, 1
		x[e.nt[t]], x[e.L[t]] = nt[t], nt[t]-nkt[t][k]
		for c, v := range nkt[t] {
			x[e.nkt[t][c]] = v
		}
	}
	return x
}

// routedExactly reports whether the strengthened MILP leaves out the
// big-M path rows: when every column is 0/1 (two values), the first-gap
// and extreme-value rows send every row of a split node low when its
// value is 0 and high when it is 1, and every row of a node that does
// not split high, which is all the path rows say at an integer point
// (the threshold of a split is then 1, of no split 0).
func (e *Encoding) routedExactly() bool {
	if !e.Opts.Strengthen {
		return false
	}
	for _, c := range e.Cols {
		if len(c.Values) != 2 {
			return false
		}
	}
	return true
}

// parent is leaf t's parent branch node and whether t is its low child
// (depth at least 1).
func (e *Encoding) parent(t int) (p int, low bool) {
	node := e.nInt + t
	p = (node - 1) / 2
	return p, node == 2*p+1
}

// witnessStrengthen completes the witness x (no split, every row in the
// last leaf, which predicts class k) with the strengthened MILP's
// variables.
func (e *Encoding) witnessStrengthen(x []float64, k int) {
	if e.w == nil {
		return
	}
	t := e.nLeaves - 1
	if e.nInt > 0 {
		x[e.q[t][len(e.Cols)][k]], x[e.qs[t][k]] = 1, 1
	}
	for i := range e.Data.Rows() {
		if e.Data.Labels[i] == k {
			x[e.w[i][t]] = 1
		}
	}
}
