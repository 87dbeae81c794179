// Package binoct is BinOCT, the binary linear program of Verwer and
// Zhang (AAAI 2019) for an optimal classification tree, as the
// milp-binoct backend: a complete tree of the depth whose every branch
// node tests one column (f_nj) against a threshold chosen by a binary
// encoding (t_ni, ⌈log2 V⌉ bits per node for columns of at most V
// distinct values), rows reach leaves (l_rl, continuous: the path
// constraints make them whole), leaves predict a class (p_lc) and pay
// the rows of each class they do not predict (e_lc). A path constraint
// covers a whole range of a column's values at once, one per node of the
// binary search over the threshold's bits, so the rows of the MILP grow
// with the distinct values, not with the rows. The objective is the
// (weighted) errors. A leaf cost, a minimum leaf size and a cap on the
// splits, which the paper does not state, add a used-leaf variable per
// leaf (u_l) only when the problem asks for them. Options.Strengthen
// (strengthen.go) adds valid inequalities not in the paper, off by
// default.
package binoct

import (
	"context"
	"fmt"
	"math/bits"

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
	// Bits is the number of threshold bits per node: 2^Bits is at least
	// every column's number of distinct values.
	Bits int

	nInt, nLeaves int
	f             [][]int // f[n][j]
	t             [][]int // t[n][i], bit i the (Bits-1-i)-th binary digit of the threshold index
	p, e          [][]int // [leaf][class]
	lr            [][]int // lr[r][leaf]
	u             []int   // per leaf, when extended
	// rep[r] is the first row identical to row r on every split column
	// and the class (strengthened; r itself otherwise).
	rep []int
	// Strengthen only: q[l][j][k], leaf l predicts k and its parent tests
	// column j; w[r][l], row r reaches leaf l and is of its class.
	q  [][][]int
	qs [][]int // Q_lk = Σ_j q_ljk
	w  [][]int
}

// Plan prepares the encoding of d without building the MILP.
func Plan(d *model.Dataset, o Options) *Encoding {
	e := &Encoding{Data: d, Cols: milpjob.Columns(d), Opts: o}
	if len(e.Cols) == 0 {
		// No column splits the rows: the tree is a leaf.
		e.Opts.Depth = 0
	}
	e.nInt, e.nLeaves = 1<<e.Opts.Depth-1, 1<<e.Opts.Depth
	most := 1
	for _, c := range e.Cols {
		most = max(most, len(c.Values))
	}
	e.Bits = bits.Len(uint(most - 1))
	return e
}

// Encode builds the BinOCT MILP of d (Plan, then Build), checking ctx
// between nodes.
func Encode(ctx context.Context, d *model.Dataset, o Options) (*Encoding, error) {
	e := Plan(d, o)
	if err := e.Build(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// leavesBelow are the leaves (0-based) under node n's low (high: false)
// or high child.
func (e *Encoding) leavesBelow(n int, high bool) (lo, hi int) {
	c := 2*n + 1
	if high {
		c++
	}
	lo, hi = c, c
	for lo < e.nInt {
		lo, hi = 2*lo+1, 2*hi+2
	}
	return lo - e.nInt, hi - e.nInt
}

// Build writes the MILP, checking ctx between nodes.
//
// The objective is Σ e_lc, the (weighted) errors; with a leaf cost
// Σ e_lc/W + λ·Σ u_l, the problem's error share plus λ per leaf holding
// rows.
func (e *Encoding) Build(ctx context.Context) error {
	d, o := e.Data, e.Opts
	m := &milp.Model{Name: "binoct"}
	e.Model = m
	n, K, P := d.Rows(), d.NumClasses(), len(e.Cols)
	W := d.TotalWeight()
	ecost := 1.0
	if o.LeafCost > 0 {
		ecost = 1 / W
	}
	e.f, e.t = make([][]int, e.nInt), make([][]int, e.nInt)
	for nd := range e.nInt {
		e.f[nd] = make([]int, P)
		for j := range P {
			e.f[nd][j] = m.AddBinary(fmt.Sprintf("f_%d_%d", nd, j), 0)
		}
		e.t[nd] = make([]int, e.Bits)
		for i := range e.Bits {
			e.t[nd][i] = m.AddBinary(fmt.Sprintf("t_%d_%d", nd, i), 0)
		}
	}
	e.p, e.e = make([][]int, e.nLeaves), make([][]int, e.nLeaves)
	for l := range e.nLeaves {
		e.p[l], e.e[l] = make([]int, K), make([]int, K)
		for c := range K {
			e.p[l][c] = m.AddBinary(fmt.Sprintf("p_%d_%d", l, c), 0)
			e.e[l][c] = m.AddContinuous(fmt.Sprintf("e_%d_%d", l, c), 0, milp.Inf, ecost)
		}
	}
	e.rep = milpjob.SameRows(e.Data, e.Cols, o.Strengthen)
	e.lr = milpjob.RowColumns(m, e.rep, e.nLeaves, "l", o.BinaryLeaves)
	if o.extended() {
		e.u = make([]int, e.nLeaves)
		for l := range e.nLeaves {
			e.u[l] = m.AddBinary(fmt.Sprintf("u_%d", l), o.LeafCost)
		}
	}

	// One column per node, one class per leaf, one leaf per row.
	for nd := range e.nInt {
		if P > 0 {
			m.AddRow(fmt.Sprintf("feature_%d", nd), 1, 1, e.f[nd], milpjob.Ones(P))
		}
	}
	for l := range e.nLeaves {
		m.AddRow(fmt.Sprintf("predict_%d", l), 1, 1, e.p[l], milpjob.Ones(K))
	}
	for r := range n {
		if e.rep[r] != r {
			continue
		}
		idx := append([]int(nil), e.lr[r]...)
		m.AddRow(fmt.Sprintf("row_%d", r), 1, 1, idx, milpjob.Ones(e.nLeaves))
	}

	// Path constraints, per node and column, over the binary search on
	// the threshold index τ (a row of value index k goes low iff k ≤ τ):
	// at prefix P of length m (τ in [lo, hi], halves split after mid),
	// when the node tests the column, τ's first m bits are P and its bit
	// m is 0 (τ ≤ mid), the rows of values mid+1..hi reach no leaf below
	// the low child; when bit m is 1 (τ > mid), those of values lo..mid
	// reach no leaf below the high child; at a whole prefix (τ known) the
	// rows of value τ reach no leaf below the high child. Each row's
	// leaves weigh M, the range's rows, against the M of each literal
	// that is off.
	for nd := range e.nInt {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		for j := range P {
			if e.capped() && len(e.Cols[j].Values) == 2 {
				continue // strengthen's routing rows route a 0/1 column
			}
			e.pathRows(m, nd, j)
		}
	}

	// Errors: e_lc ≥ (weight of class c in l) − W_c·p_lc.
	wc := d.ClassCounts()
	for l := range e.nLeaves {
		for c := range K {
			idx, val := []int{e.e[l][c], e.p[l][c]}, []float64{-1, -wc[c]}
			for r := range n {
				if d.Labels[r] == c {
					idx, val = append(idx, e.lr[r][l]), append(val, d.Weight(r))
				}
			}
			m.AddRow(fmt.Sprintf("error_%d_%d", l, c), -milp.Inf, 0, idx, val)
		}
	}
	if o.extended() {
		nmin := float64(max(o.MinSupport, 1))
		for l := range e.nLeaves {
			idx, val := []int{e.u[l]}, []float64{-float64(n)}
			for r := range n {
				idx, val = append(idx, e.lr[r][l]), append(val, 1)
			}
			m.AddRow(fmt.Sprintf("used_%d", l), -milp.Inf, 0, idx, val)
			if o.MinSupport > 1 {
				val2 := append([]float64(nil), val...)
				val2[0] = -nmin
				m.AddRow(fmt.Sprintf("minsup_%d", l), 0, milp.Inf, idx, val2)
			}
		}
		if o.MaxSplits > 0 {
			m.AddRow("max_splits", -milp.Inf, float64(o.MaxSplits+1), e.u, milpjob.Ones(e.nLeaves))
		}
	}
	if o.Strengthen {
		return e.strengthen(ctx)
	}
	return nil
}

// pathRows adds the path constraints of node nd and column j.
func (e *Encoding) pathRows(m *milp.Model, nd, j int) {
	col := &e.Cols[j]
	nv := len(col.Values)
	byValue := make([][]int, nv)
	for r, k := range col.Index {
		byValue[k] = append(byValue[k], r)
	}
	lowLo, lowHi := e.leavesBelow(nd, false)
	highLo, highHi := e.leavesBelow(nd, true)
	type lit struct {
		col int
		on  bool // the literal is the variable (true) or its complement
	}
	add := func(name string, vlo, vhi int, high bool, lits []lit) {
		vhi = min(vhi, nv-1)
		if vlo > vhi {
			return
		}
		llo, lhi := lowLo, lowHi
		if high {
			llo, lhi = highLo, highHi
		}
		var idx []int
		var val []float64
		rows := 0
		for k := vlo; k <= vhi; k++ {
			for _, r := range byValue[k] {
				for l := llo; l <= lhi; l++ {
					idx, val = append(idx, e.lr[r][l]), append(val, 1)
				}
				rows++
			}
		}
		if rows == 0 {
			return
		}
		// Σ leaves + M·Σ lits ≤ M·|lits|, a complemented literal's 1
		// moved to the bound.
		M := float64(rows)
		ub := M * float64(len(lits))
		for _, lt := range lits {
			if lt.on {
				idx, val = append(idx, lt.col), append(val, M)
			} else {
				idx, val = append(idx, lt.col), append(val, -M)
				ub -= M
			}
		}
		m.AddRow(name, -milp.Inf, ub, idx, val)
	}
	var walk func(prefix []lit, depth, lo int)
	walk = func(prefix []lit, depth, lo int) {
		if lo > nv-1 {
			return
		}
		if depth == e.Bits {
			lits := append([]lit{{e.f[nd][j], true}}, prefix...)
			add(fmt.Sprintf("eq_%d_%d_%d", nd, j, lo), lo, lo, true, lits)
			return
		}
		size := 1 << (e.Bits - depth)
		mid := lo + size/2 - 1
		hi := lo + size - 1
		base := append([]lit{{e.f[nd][j], true}}, prefix...)
		add(fmt.Sprintf("hi_%d_%d_%d_%d", nd, j, depth, lo), mid+1, hi, false, append(append([]lit(nil), base...), lit{e.t[nd][depth], false}))
		add(fmt.Sprintf("lo_%d_%d_%d_%d", nd, j, depth, lo), lo, mid, true, append(append([]lit(nil), base...), lit{e.t[nd][depth], true}))
		walk(append(append([]lit(nil), prefix...), lit{e.t[nd][depth], false}), depth+1, lo)
		walk(append(append([]lit(nil), prefix...), lit{e.t[nd][depth], true}), depth+1, mid+1)
	}
	walk(nil, 0, 0)
}

// TreeOf reads the tree of a MILP point (values rounded): a split's
// value index is its threshold index τ, the bits t_ni.
func (e *Encoding) TreeOf(x []float64) (milpjob.ColumnTree, error) {
	if len(x) != len(e.Model.Columns) {
		return milpjob.ColumnTree{}, fmt.Errorf("binoct: %d values for %d columns", len(x), len(e.Model.Columns))
	}
	t := milpjob.NewColumnTree(e.Opts.Depth)
	for nd := range e.nInt {
		switch on := milpjob.Set(x, e.f[nd]); len(on) {
		case 0:
		case 1:
			t.Col[nd] = on[0]
		default:
			t.Col[nd] = on[0]
			return t, fmt.Errorf("binoct: node %d tests two columns (%d and %d)", nd, on[0], on[1])
		}
		for i, c := range e.t[nd] {
			if x[c] > 0.5 {
				t.K[nd] |= 1 << (e.Bits - 1 - i)
			}
		}
	}
	t.ReadClasses(x, e.p)
	return t, nil
}

// Decode reads the model of a MILP point: a node that tests no column
// (none splits the rows) sends its rows low.
func (e *Encoding) Decode(x []float64) (*model.Graph, error) {
	t, err := e.TreeOf(x)
	if err != nil {
		return nil, err
	}
	return t.Graph(e.Data, e.Cols, false), nil
}

// Witness is a point of the built MILP known without a solver: the tree
// of one leaf (every node tests the first column with the largest
// threshold index, so every row goes low, to the first leaf, which
// predicts the majority class; the other leaves hold no row). It is nil
// when the data has fewer rows than the minimum leaf size (no tree is
// then feasible) or the MILP is not built.
func (e *Encoding) Witness() []float64 {
	d := e.Data
	x := milpjob.Witness(e.Model, d, e.Opts.MinSupport)
	if x == nil {
		return nil
	}
	if e.capped() {
		return e.witnessCapped(x)
	}
	n := d.Rows()
	for nd := range e.nInt {
		x[e.f[nd][0]] = 1
		for _, c := range e.t[nd] {
			x[c] = 1
		}
	}
	counts := d.ClassCounts()
	k, _ := model.Majority(counts)
	for l := range e.nLeaves {
		x[e.p[l][0]] = 1
	}
	x[e.p[0][0]], x[e.p[0][k]] = 0, 1
	for c, w := range counts {
		if c != k {
			x[e.e[0][c]] = w
		}
	}
	for r := range n {
		x[e.lr[r][0]] = 1
	}
	if e.u != nil {
		x[e.u[0]] = 1
	}
	if e.w != nil {
		e.witnessStrengthen(x, k)
	}
	return x
}
