// Package oct is OCT, the optimal classification tree MILP of Bertsimas
// and Dunn (Machine Learning 106, 2017) with univariate splits, as the
// milp-oct backend: a complete tree of the depth whose branch nodes each
// choose whether to split (d_t), on which column (a_jt, one-hot) and at
// which threshold (b_t, on data normalised to [0, 1]); every row is
// assigned to one leaf (z_it) by big-M path constraints, strict
// inequalities stated with the paper's per-column ε_j; leaves count
// their rows per class (N_kt, N_t), predict a class (c_kt) when they hold
// rows (l_t) and pay their misclassifications (L_t). The objective is
// the paper's (1/L̂)·ΣL_t + α·Σd_t, stated in the problem's units (see
// Encoding.Build). It is a baseline, stated as published; odtkit's own MILPs
// (milp-odt, milp-flowoct) are the stronger ones. Options.Aggregate and
// Options.Strengthen (strengthen.go) are strengthenings not in the
// paper, off by default.
package oct

import (
	"context"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Encoding is the MILP of one job and the indices of its variables.
type Encoding struct {
	Data  *model.Dataset
	Cols  []milpjob.Column
	Opts  Options
	Model *milp.Model

	nInt, nLeaves int
	// norm[j][k] is Cols[j].Values[k] normalised to [0, 1].
	norm [][]float64
	// eps[j] is ε_j, the smallest gap between consecutive normalised
	// values of column j; epsMin, epsMax their extremes.
	eps            []float64
	epsMin, epsMax float64
	// Baseline is L̂, the (weighted) error of the majority class; Total
	// the data's total weight.
	Baseline, Total float64

	a       [][]int // a[t][j]
	b, d    []int   // per branch node
	z       [][]int // z[i][t], t a leaf (0-based among the leaves)
	l, L    []int   // per leaf
	nt      []int   // N_t per leaf
	nkt, ck [][]int // N_kt, c_kt: [leaf][class]
	// rep[i] is the first row identical to row i on every split column
	// and the class (strengthened; i itself otherwise).
	rep []int
	// Strengthen only: q[t][j][k], leaf t predicts k and its parent
	// splits on column j (j = len(Cols): it does not split); w[i][t],
	// row i is in leaf t and of its class.
	q  [][][]int
	qs [][]int // Q_tk = Σ_j q_tjk
	w  [][]int
}

// Alpha is the paper's complexity weight α of a leaf cost λ: the
// objective (1/L̂)·ΣL_t + α·Σd_t times L̂/W, plus λ, is the problem's
// error share plus λ per leaf when α = λ·W/L̂ (a tree of s splits has
// s+1 leaves).
func (e *Encoding) Alpha() float64 {
	if e.Baseline <= 0 {
		return 0
	}
	return e.Opts.LeafCost * e.Total / e.Baseline
}

// Plan prepares the encoding of d (its columns, the normalisation and
// the ε_j) without building the MILP.
func Plan(d *model.Dataset, o Options) *Encoding {
	e := &Encoding{Data: d, Cols: milpjob.Columns(d), Opts: o}
	if len(e.Cols) == 0 {
		// No column splits the rows: the tree is a leaf.
		e.Opts.Depth = 0
	}
	e.nInt = 1<<e.Opts.Depth - 1
	e.nLeaves = 1 << e.Opts.Depth
	e.epsMin, e.epsMax = 1, 0
	for _, c := range e.Cols {
		lo, hi := c.Values[0], c.Values[len(c.Values)-1]
		nv := make([]float64, len(c.Values))
		eps := 1.0
		for k, v := range c.Values {
			nv[k] = (v - lo) / (hi - lo)
			if k > 0 {
				eps = math.Min(eps, nv[k]-nv[k-1])
			}
		}
		nv[len(nv)-1] = 1
		e.norm = append(e.norm, nv)
		e.eps = append(e.eps, eps)
		e.epsMin, e.epsMax = math.Min(e.epsMin, eps), math.Max(e.epsMax, eps)
	}
	if len(e.Cols) == 0 {
		e.epsMin = 0
	}
	_, e.Baseline = model.Majority(d.ClassCounts())
	e.Total = d.TotalWeight()
	return e
}

// Encode builds the OCT MILP of d (Plan, then Build), checking ctx
// between rows of the data.
func Encode(ctx context.Context, d *model.Dataset, o Options) (*Encoding, error) {
	e := Plan(d, o)
	if err := e.Build(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// x is row i's normalised value of column j.
func (e *Encoding) x(i, j int) float64 { return e.norm[j][e.Cols[j].Index[i]] }

// Build writes the MILP, checking ctx between rows of the data.
//
// The objective is the paper's scaled by L̂/W with the constant λ added
// (the same minimisers): with a leaf cost, Σ L_t/W + λ·Σ d_t + λ, the
// problem's error share plus λ per leaf; without one, Σ L_t, the
// (weighted) errors.
func (e *Encoding) Build(ctx context.Context) error {
	d, o := e.Data, e.Opts
	m := &milp.Model{Name: "oct"}
	e.Model = m
	n, K, P := d.Rows(), d.NumClasses(), len(e.Cols)
	W := e.Total
	lcost, dcost := 1.0, 0.0
	if o.LeafCost > 0 {
		lcost, dcost = 1/W, o.LeafCost
		m.Offset = o.LeafCost
	}
	e.a = make([][]int, e.nInt)
	e.b, e.d = make([]int, e.nInt), make([]int, e.nInt)
	for t := range e.nInt {
		e.d[t] = m.AddBinary(fmt.Sprintf("d_%d", t), dcost)
		e.b[t] = m.AddContinuous(fmt.Sprintf("b_%d", t), 0, 1, 0)
		e.a[t] = make([]int, P)
		for j := range P {
			e.a[t][j] = m.AddBinary(fmt.Sprintf("a_%d_%d", t, j), 0)
		}
	}
	e.l, e.L, e.nt = make([]int, e.nLeaves), make([]int, e.nLeaves), make([]int, e.nLeaves)
	e.nkt, e.ck = make([][]int, e.nLeaves), make([][]int, e.nLeaves)
	for t := range e.nLeaves {
		e.l[t] = m.AddBinary(fmt.Sprintf("l_%d", t), 0)
		e.L[t] = m.AddContinuous(fmt.Sprintf("L_%d", t), 0, milp.Inf, lcost)
		e.nt[t] = m.AddContinuous(fmt.Sprintf("N_%d", t), 0, milp.Inf, 0)
		e.nkt[t], e.ck[t] = make([]int, K), make([]int, K)
		for k := range K {
			e.nkt[t][k] = m.AddContinuous(fmt.Sprintf("N_%d_%d", t, k), 0, milp.Inf, 0)
			e.ck[t][k] = m.AddBinary(fmt.Sprintf("c_%d_%d", t, k), 0)
		}
	}
	// Routed exactly, a row's leaf is whole once the tree is: z_it need
	// not be declared integer.
	e.rep = milpjob.SameRows(e.Data, e.Cols, o.Strengthen)
	e.z = milpjob.RowColumns(m, e.rep, e.nLeaves, "z", !e.routedExactly())

	// Branch nodes: Σ_j a_jt = d_t; b_t ≤ d_t; d_t ≤ d_p(t).
	var splits []int
	for t := range e.nInt {
		idx, val := []int{e.d[t]}, []float64{-1}
		for j := range P {
			idx, val = append(idx, e.a[t][j]), append(val, 1)
		}
		m.AddRow(fmt.Sprintf("split_%d", t), 0, 0, idx, val)
		m.AddRow(fmt.Sprintf("thr_%d", t), -milp.Inf, 0, []int{e.b[t], e.d[t]}, []float64{1, -1})
		if t > 0 {
			m.AddRow(fmt.Sprintf("parent_%d", t), -milp.Inf, 0, []int{e.d[t], e.d[(t-1)/2]}, []float64{1, -1})
		}
		splits = append(splits, e.d[t])
	}
	if o.MaxSplits > 0 && len(splits) > 0 {
		m.AddRow("max_splits", -milp.Inf, float64(o.MaxSplits), splits, milpjob.Ones(len(splits)))
	}

	// Leaves: N_kt and N_t count the rows, c_kt picks a class of a leaf
	// that holds rows, L_t is its misclassified weight (big-M W), a leaf
	// with rows holds at least N_min.
	nmin := max(o.MinSupport, 1)
	for t := range e.nLeaves {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		idxN, valN := []int{e.nt[t]}, []float64{-1}
		idxS, valS := []int{e.l[t]}, []float64{-float64(nmin)}
		for i := range n {
			idxN, valN = append(idxN, e.z[i][t]), append(valN, d.Weight(i))
			idxS, valS = append(idxS, e.z[i][t]), append(valS, 1)
			if e.rep[i] == i {
				m.AddRow(fmt.Sprintf("used_%d_%d", i, t), -milp.Inf, 0, []int{e.z[i][t], e.l[t]}, []float64{1, -1})
			}
		}
		m.AddRow(fmt.Sprintf("Nt_%d", t), 0, 0, idxN, valN)
		m.AddRow(fmt.Sprintf("minsup_%d", t), 0, milp.Inf, idxS, valS)
		idxC, valC := []int{e.l[t]}, []float64{-1}
		for k := range K {
			idx, val := []int{e.nkt[t][k]}, []float64{-1}
			for i := range n {
				if d.Labels[i] == k {
					idx, val = append(idx, e.z[i][t]), append(val, d.Weight(i))
				}
			}
			m.AddRow(fmt.Sprintf("Nkt_%d_%d", t, k), 0, 0, idx, val)
			// L_t ≥ N_t − N_kt − W(1 − c_kt); L_t ≤ N_t − N_kt + W·c_kt.
			cols := []int{e.L[t], e.nt[t], e.nkt[t][k], e.ck[t][k]}
			m.AddRow(fmt.Sprintf("Lge_%d_%d", t, k), -W, milp.Inf, cols, []float64{1, -1, 1, -W})
			if !e.splitAll() {
				m.AddRow(fmt.Sprintf("Lle_%d_%d", t, k), -milp.Inf, 0, cols, []float64{1, -1, 1, -W})
			}
			idxC, valC = append(idxC, e.ck[t][k]), append(valC, 1)
		}
		m.AddRow(fmt.Sprintf("class_%d", t), 0, 0, idxC, valC)
	}

	// Rows: each in one leaf, on the side of every ancestor's split that
	// its value takes (pathRow).
	for i := range n {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
		}
		if e.rep[i] != i {
			continue
		}
		idx, val := make([]int, e.nLeaves), milpjob.Ones(e.nLeaves)
		copy(idx, e.z[i])
		m.AddRow(fmt.Sprintf("assign_%d", i), 1, 1, idx, val)
		if e.routedExactly() {
			continue // strengthen's routing rows route every row
		}
		if o.Aggregate {
			for m0 := range e.nInt {
				for _, left := range []bool{true, false} {
					e.pathRow(m, i, m0, left, e.leafRange(m0, left))
				}
			}
			continue
		}
		for t := range e.nLeaves {
			node := e.nInt + t
			for node > 0 {
				parent := (node - 1) / 2
				e.pathRow(m, i, parent, node == 2*parent+1, []int{t})
				node = parent
			}
		}
	}
	if o.Strengthen {
		return e.strengthen(ctx)
	}
	return nil
}

// leafRange are the leaves (0-based) below branch node n's left (low)
// or right (high) child.
func (e *Encoding) leafRange(n int, left bool) []int {
	c := 2*n + 2
	if left {
		c = 2*n + 1
	}
	lo, hi := c, c
	for lo < e.nInt {
		lo, hi = 2*lo+1, 2*hi+2
	}
	var ls []int
	for l := lo; l <= hi; l++ {
		ls = append(ls, l-e.nInt)
	}
	return ls
}

// pathRow adds the path constraint of row i at branch node n for the
// leaves ls on its left (low) or right (high) side. Left: Σ_j a_jn(x_ij
// + ε_j − ε_min) + ε_min ≤ b_n + (1 + ε_max)(1 − Σ z_it); right: Σ_j
// a_jn·x_ij ≥ b_n − (1 − Σ z_it).
func (e *Encoding) pathRow(m *milp.Model, i, n int, left bool, ls []int) {
	bigM := 1 + e.epsMax
	idx, val := []int{e.b[n]}, []float64{-1}
	if left {
		for _, t := range ls {
			idx, val = append(idx, e.z[i][t]), append(val, bigM)
		}
		for j := range e.Cols {
			idx, val = append(idx, e.a[n][j]), append(val, e.x(i, j)+e.eps[j]-e.epsMin)
		}
		m.AddRow(fmt.Sprintf("left_%d_%d_%d", i, ls[0], n), -milp.Inf, bigM-e.epsMin, idx, val)
		return
	}
	for _, t := range ls {
		idx, val = append(idx, e.z[i][t]), append(val, -1)
	}
	for j := range e.Cols {
		idx, val = append(idx, e.a[n][j]), append(val, e.x(i, j))
	}
	m.AddRow(fmt.Sprintf("right_%d_%d_%d", i, ls[0], n), -1, milp.Inf, idx, val)
}

// TreeOf reads the tree of a MILP point (values rounded). A split's
// value index is the last value whose normalised value, plus ε_j, is
// within b_t up to half of ε_j (the rows of the point's low side).
func (e *Encoding) TreeOf(x []float64) (milpjob.ColumnTree, error) {
	if len(x) != len(e.Model.Columns) {
		return milpjob.ColumnTree{}, fmt.Errorf("oct: %d values for %d columns", len(x), len(e.Model.Columns))
	}
	t := milpjob.NewColumnTree(e.Opts.Depth)
	for n := range e.nInt {
		if x[e.d[n]] < 0.5 {
			continue
		}
		switch on := milpjob.Set(x, e.a[n]); len(on) {
		case 0:
			return t, fmt.Errorf("oct: node %d splits on no column", n)
		case 1:
			t.Col[n] = on[0]
		default:
			t.Col[n] = on[0]
			return t, fmt.Errorf("oct: node %d splits on two columns (%d and %d)", n, on[0], on[1])
		}
		j := t.Col[n]
		t.K[n] = -1
		for k, v := range e.norm[j] {
			if v+e.eps[j]/2 <= x[e.b[n]] {
				t.K[n] = k
			}
		}
	}
	t.ReadClasses(x, e.ck)
	return t, nil
}

// Decode reads the model of a MILP point: a branch node that does not
// split sends its rows high, as OCT does.
func (e *Encoding) Decode(x []float64) (*model.Graph, error) {
	t, err := e.TreeOf(x)
	if err != nil {
		return nil, err
	}
	return t.Graph(e.Data, e.Cols, true), nil
}

// Witness is a point of the built MILP known without a solver: the tree
// of one leaf (no node splits, so every row goes high, to the last leaf,
// which predicts the majority class). It is nil when the data has fewer
// rows than N_min (no tree is then feasible) or the MILP is not built.
func (e *Encoding) Witness() []float64 {
	d := e.Data
	x := milpjob.Witness(e.Model, d, e.Opts.MinSupport)
	if x == nil {
		return nil
	}
	if e.splitAll() {
		return e.witnessSplitAll(x)
	}
	n := d.Rows()
	t := e.nLeaves - 1
	x[e.l[t]] = 1
	counts := make([]float64, d.NumClasses())
	total := 0.0
	for i := range n {
		x[e.z[i][t]] = 1
		counts[d.Labels[i]] += d.Weight(i)
		total += d.Weight(i)
	}
	k, _ := model.Majority(counts)
	x[e.nt[t]] = total
	for c, w := range counts {
		x[e.nkt[t][c]] = w
	}
	x[e.ck[t][k]] = 1
	x[e.L[t]] = total - counts[k]
	e.witnessStrengthen(x, k)
	return x
}
