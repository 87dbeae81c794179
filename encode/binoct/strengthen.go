package binoct

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// capped reports whether the MILP caps each node's threshold index below
// its column's last but one value (strengthen): for the error objective
// alone, strengthened, with a branch node.
func (e *Encoding) capped() bool {
	return e.Opts.Strengthen && !e.Opts.extended() && e.nInt > 0
}

// strengthen adds the inequalities of formulation=strengthened to the
// built MILP. Each keeps an optimal tree of every problem; together they
// route the rows of 0/1 columns without a big-M and lift the LP bound
// (V_j is column j's number of values, k_rj row r's value index on it):
//
//   - threshold cap, for the error objective alone (no used-leaf
//     variables): τ_n ≤ Σ_j (V_j − 2)·f_nj, so no split sends every row
//     low. A point whose node n does test column j with τ_n ≥ V_j − 1 has
//     a point of the same errors without it: n tests any column at τ = 0
//     and its high subtree copies its low one (the same tests, thresholds
//     and classes), so every row reaches a leaf of the class it reached
//     before; repeated top-down, no such split is left. (With a leaf
//     cost, a minimum leaf size or a node cap the copy can cost more or
//     break the leaf size, so the cap is not stated.)
//   - least value: a row at value index 0 never goes high: Σ_{l high of
//     n} l_rl ≤ 1 − Σ_{j: k_rj = 0} f_nj.
//   - greatest value: a row at index V_j − 1 goes low only when τ_n ≥
//     V_j − 1 ≥ 1, which the cap forbids and which otherwise sets a bit
//     of τ_n: Σ_{l low of n} l_rl ≤ 1 − Σ_{j: k_rj = V_j−1} f_nj (+ Σ_i
//     t_ni without the cap).
//   - per-row errors: q_ljk ≥ 0 (leaf l predicts k and its parent tests
//     j) with Σ_k q_ljk ≤ f_pj and Σ_j q_ljk ≤ p_lk; w_rl ≥ 0 (row r
//     reaches leaf l, which predicts its class) with w_rl ≤ l_rl and w_rl
//     ≤ Σ q_{l,j,y_r} over the columns on which row r can take leaf l's
//     side of its parent (high: k_rj > 0; low: k_rj < V_j − 1 under the
//     cap, every column otherwise, and then also ≤ that sum plus Σ_i
//     t_pi); Σ_c e_lc ≥ Σ_r w_r·(l_rl − w_rl). At every point of a tree
//     the q, w of its tests and classes meet these rows with the e_lc at
//     their published values, so no tree is cut off or costs more.
//
// Under the cap a 0/1 column's split has τ = 0, and the least- and
// greatest-value rows then say all its path rows say (rows of value 0
// low, of value 1 high): Build leaves those out.
func (e *Encoding) strengthen(ctx context.Context) error {
	d, m := e.Data, e.Model
	n, K, P := d.Rows(), d.NumClasses(), len(e.Cols)
	capped := e.capped()
	top := func(r, j int) bool { return e.Cols[j].Index[r] == len(e.Cols[j].Values)-1 }
	if capped {
		for nd := range e.nInt {
			idx, val := []int{}, []float64{}
			for i, c := range e.t[nd] {
				idx, val = append(idx, c), append(val, float64(int(1)<<(e.Bits-1-i)))
			}
			for j := range P {
				idx, val = append(idx, e.f[nd][j]), append(val, -float64(len(e.Cols[j].Values)-2))
			}
			m.AddRow(fmt.Sprintf("cap_%d", nd), -milp.Inf, 0, idx, val)
		}
	}
	for r := range n {
		if r%64 == 0 {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
		}
		if e.rep[r] != r {
			continue
		}
		for nd := range e.nInt {
			idx, val := []int{}, []float64{}
			lo, hi := e.leavesBelow(nd, true)
			for l := lo; l <= hi; l++ {
				idx, val = append(idx, e.lr[r][l]), append(val, 1)
			}
			// Σ_j f_nj = 1: the row over the fewer columns, Σ_{k=0} f ≤ 1
			// or −Σ_{k>0} f ≤ 0.
			var first, rest []int
			for j := range P {
				if e.Cols[j].Index[r] == 0 {
					first = append(first, e.f[nd][j])
				} else {
					rest = append(rest, e.f[nd][j])
				}
			}
			ub := 1.0
			if len(first) <= len(rest) {
				idx, val = milpjob.AppendCoefs(idx, val, first, 1)
			} else {
				idx, val = milpjob.AppendCoefs(idx, val, rest, -1)
				ub = 0
			}
			m.AddRow(fmt.Sprintf("least_%d_%d", r, nd), -milp.Inf, ub, idx, val)
			idx, val = idx[:0], val[:0]
			lo, hi = e.leavesBelow(nd, false)
			for l := lo; l <= hi; l++ {
				idx, val = append(idx, e.lr[r][l]), append(val, 1)
			}
			var last, below []int
			for j := range P {
				if top(r, j) {
					last = append(last, e.f[nd][j])
				} else {
					below = append(below, e.f[nd][j])
				}
			}
			ub = 1.0
			if len(last) <= len(below) {
				idx, val = milpjob.AppendCoefs(idx, val, last, 1)
			} else {
				idx, val = milpjob.AppendCoefs(idx, val, below, -1)
				ub = 0
			}
			if !capped {
				for _, c := range e.t[nd] {
					idx, val = append(idx, c), append(val, -1)
				}
			}
			m.AddRow(fmt.Sprintf("greatest_%d_%d", r, nd), -milp.Inf, ub, idx, val)
		}
	}

	e.q, e.qs = make([][][]int, e.nLeaves), make([][]int, e.nLeaves)
	if e.nInt > 0 {
		for l := range e.nLeaves {
			p, _ := e.parent(l)
			e.q[l] = make([][]int, P)
			for j := range P {
				e.q[l][j] = make([]int, K)
				idx, val := []int{e.f[p][j]}, []float64{-1}
				for k := range K {
					e.q[l][j][k] = m.AddContinuous(fmt.Sprintf("q_%d_%d_%d", l, j, k), 0, 1, 0)
					idx, val = append(idx, e.q[l][j][k]), append(val, 1)
				}
				m.AddRow(fmt.Sprintf("qf_%d_%d", l, j), -milp.Inf, 0, idx, val)
			}
			// Q_lk = Σ_j q_ljk ≤ p_lk.
			e.qs[l] = make([]int, K)
			for k := range K {
				e.qs[l][k] = m.AddContinuous(fmt.Sprintf("Q_%d_%d", l, k), 0, 1, 0)
				m.AddRow(fmt.Sprintf("qp_%d_%d", l, k), -milp.Inf, 0, []int{e.qs[l][k], e.p[l][k]}, []float64{1, -1})
				idx, val := []int{e.qs[l][k]}, []float64{-1}
				for j := range P {
					idx, val = append(idx, e.q[l][j][k]), append(val, 1)
				}
				m.AddRow(fmt.Sprintf("qsum_%d_%d", l, k), 0, 0, idx, val)
			}
		}
	}
	e.w = milpjob.RowColumns(m, e.rep, e.nLeaves, "w", false)
	for l := range e.nLeaves {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		idxE, valE := []int{}, []float64{}
		for c := range K {
			idxE, valE = append(idxE, e.e[l][c]), append(valE, 1)
		}
		p, low := 0, false
		if e.nInt > 0 {
			p, low = e.parent(l)
		}
		for r := range n {
			idxE, valE = append(idxE, e.lr[r][l], e.w[r][l]), append(valE, -d.Weight(r), d.Weight(r))
			if e.rep[r] != r {
				continue
			}
			y := d.Labels[r]
			m.AddRow(fmt.Sprintf("wl_%d_%d", r, l), -milp.Inf, 0, []int{e.w[r][l], e.lr[r][l]}, []float64{1, -1})
			if e.nInt == 0 {
				m.AddRow(fmt.Sprintf("wq_%d_%d", r, l), -milp.Inf, 0, []int{e.w[r][l], e.p[l][y]}, []float64{1, -1})
				continue
			}
			// w_rl ≤ Σ_{j∈S} q_{l,j,y} = Q_ly − Σ_{j∉S} q_{l,j,y}, over the
			// fewer columns.
			var in, out []int
			for j := range P {
				switch {
				case !low && e.Cols[j].Index[r] > 0, low && (!capped || !top(r, j)):
					in = append(in, e.q[l][j][y])
				default:
					out = append(out, e.q[l][j][y])
				}
			}
			idx, val := []int{e.w[r][l]}, []float64{1}
			if len(in) <= len(out)+1 {
				idx, val = milpjob.AppendCoefs(idx, val, in, -1)
			} else {
				idx, val = milpjob.AppendCoefs(append(idx, e.qs[l][y]), append(val, -1), out, 1)
			}
			m.AddRow(fmt.Sprintf("wq_%d_%d", r, l), -milp.Inf, 0, idx, val)
			if low && !capped {
				idx, val = []int{e.w[r][l]}, []float64{1}
				for j := range P {
					if !top(r, j) {
						idx, val = append(idx, e.q[l][j][y]), append(val, -1)
					}
				}
				for _, c := range e.t[p] {
					idx, val = append(idx, c), append(val, -1)
				}
				m.AddRow(fmt.Sprintf("wt_%d_%d", r, l), -milp.Inf, 0, idx, val)
			}
		}
		m.AddRow(fmt.Sprintf("ew_%d", l), 0, milp.Inf, idxE, valE)
	}
	return nil
}

// parent is leaf l's parent branch node and whether l is its low child
// (depth at least 1).
func (e *Encoding) parent(l int) (p int, low bool) {
	node := e.nInt + l
	p = (node - 1) / 2
	return p, node == 2*p+1
}

// witnessStrengthen completes the witness x (every row in the first
// leaf, which predicts class k; every node tests column 0) with the
// strengthened MILP's variables.
func (e *Encoding) witnessStrengthen(x []float64, k int) {
	if e.nInt > 0 {
		x[e.q[0][0][k]], x[e.qs[0][k]] = 1, 1
	}
	for r := range e.Data.Rows() {
		if e.Data.Labels[r] == k {
			x[e.w[r][0]] = 1
		}
	}
}

// witnessCapped completes the zero point x to the witness of a capped
// MILP (no split may send every row low): every node tests column 0 at
// τ = 0 and every leaf predicts the majority class k, a tree of one leaf
// once decoded.
func (e *Encoding) witnessCapped(x []float64) []float64 {
	d := e.Data
	counts := d.ClassCounts()
	k, _ := model.Majority(counts)
	for nd := range e.nInt {
		x[e.f[nd][0]] = 1
	}
	perLeaf := make([][]float64, e.nLeaves)
	for l := range e.nLeaves {
		x[e.p[l][k]] = 1
		x[e.q[l][0][k]], x[e.qs[l][k]] = 1, 1
		perLeaf[l] = make([]float64, d.NumClasses())
	}
	for r := range d.Rows() {
		nd := 0
		for nd < e.nInt {
			if e.Cols[0].Index[r] == 0 {
				nd = 2*nd + 1
			} else {
				nd = 2*nd + 2
			}
		}
		l := nd - e.nInt
		x[e.lr[r][l]] = 1
		perLeaf[l][d.Labels[r]] += d.Weight(r)
		if d.Labels[r] == k {
			x[e.w[r][l]] = 1
		}
	}
	for l := range e.nLeaves {
		for c, wgt := range perLeaf[l] {
			if c != k {
				x[e.e[l][c]] = wgt
			}
		}
	}
	return x
}
