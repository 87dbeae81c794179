// Package odd encodes the training of an optimal decision diagram (ODD)
// as a mixed-integer linear program, after Florio, Martins, Schiffer,
// Serra and Vidal, "Optimal Decision Diagrams for Classification"
// (AAAI 2023), and decodes solutions back into decision graphs.
//
// The skeleton gives the widths of the D layers of internal nodes (the
// first is the root). Every node of layer l may link to any node of layer
// l+1 and, through long arcs, to the terminal node of any class. Per row i
// the flow variables w⁻, w⁺ (per internal node) and z⁻, z⁺ (per arc) trace
// its path; the binaries λ_il (one per row and layer) make the flows
// integral; the binaries d_u, y⁻_uv, y⁺_uv are the topology; a_u, b_u are
// the node's hyperplane. Constraints 1–12 and 17 of the paper are built as
// stated; the indicator constraints 13–14 are linearised with big-M values
// derived from the variable bounds (features are scaled to [0,1]: by rank
// for univariate splits, min-max for oblique ones; decoding maps the
// hyperplanes back to raw values).
//
// The margin ε of the strict side comes from the data, as in OCT-style
// models: with univariate splits each column has its own margin, the
// smallest gap between its distinct scaled values (at most 1e-4), so
// that every split between two neighbouring values is a solution and no
// other; rank scaling makes that gap 1/(distinct values − 1) whatever
// the raw spacing (values 1 and 1.00001 next to 1000 stay apart).
// Oblique splits use one margin, at most 1e-4 and at most the smallest
// gap of any column. A margin the MILP solver's feasibility tolerance cannot tell
// from zero (below MinMargin) is refused rather than solved into a model
// whose "optimal" errors come from rounding.
//
// A dataset of one class has a second, empty terminal, so that the root
// (always active in the paper's model) can send every row to the one
// class; decoding drops a node whose side leads to the empty terminal. Options add
// univariate splits (15–16), demographic parity (19), a parsimony cap,
// stability (20), and the tree special case; and strengthenings that
// keep every optimal diagram: constraint 12 on layer 1 too, and valid
// lower bounds on the error (identical rows, the best stump, the best
// two-node diagram, the best classifier of m threshold tests, the best
// tree of the skeleton's depth) linked to the active nodes (cuts.go,
// countcut.go).
package odd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Fairness asks for demographic parity between the rows whose Column
// (a 0/1 feature, then excluded from the splits) is 1 and those where it
// is 0: each group's rate of rows classified Positive is at least Xi times
// the other group's.
type Fairness struct {
	Column   int
	Positive int
	Xi       float64
}

// Options describe the MILP to build.
type Options struct {
	// Skeleton holds the layer widths; Skeleton[0] must be 1.
	Skeleton []int
	// Alpha weighs the active internal nodes but the root, divided by
	// (number of skeleton nodes − 1) as in objective 18.
	Alpha float64
	// RowCost, when not nil, is the cost of misclassifying each row
	// instead of 1/n (e.g. the row weights for a plain error count).
	RowCost []float64
	// Multivariate allows oblique splits; otherwise each node tests one
	// feature column (constraints 15–16).
	Multivariate bool
	// Tree restricts the topology to a tree (skeleton 1-2-4-…): node k of
	// layer l may only link to nodes 2k (negative side) and 2k+1
	// (positive side) of layer l+1, or to terminals.
	Tree bool
	// Epsilon, when positive, is the margin of the negative side,
	// a·x + ε ≤ b, for every column; 0 derives the margins from the data
	// (see the package doc). A margin larger than a column's smallest
	// scaled gap forbids the splits between its closest values.
	Epsilon float64
	// MaxActive caps the number of active internal nodes (0 = no cap).
	MaxActive int
	// MinFlow is the least number of rows through each active internal
	// node but the root (stability, constraint 20; 0 = none).
	MinFlow int
	// Fair adds the demographic-parity constraints (19).
	Fair *Fairness
	// MaxNodes, in the tree special case, admits only trees of at most
	// that many nodes: at most ⌊(MaxNodes−1)/2⌋ active internal nodes
	// (0 = no limit).
	MaxNodes int
	// NoSymmetryBreaking leaves out constraints 11–12 (for tests).
	NoSymmetryBreaking bool
	// FirstLayerOrder extends the in-degree order (12), which the paper
	// states for layers 2..D−1, to layer 1 (tree: the root's children).
	FirstLayerOrder bool
	// ErrorCuts adds valid lower bounds on the misclassification cost:
	// the cost of identical rows with different labels, and the best
	// univariate stump's cost while no internal node but the root is
	// active (see addErrorCuts).
	ErrorCuts bool
	// PairCut, with ErrorCuts and FirstLayerOrder (or Tree), strengthens
	// the stump cut with the best cost of a diagram of two internal nodes
	// (see addErrorCuts; skipped on data too large for its scan).
	PairCut bool
	// CountCut, with ErrorCuts and univariate splits, bounds the
	// misclassification cost by the number of active internal nodes (rows
	// that answer the tests of m nodes alike share a class), by the best
	// diagram of two and of three nodes, and by the best tree of the
	// skeleton's depth (see addCountCut).
	CountCut bool
	// DiagramCut, with ErrorCuts, univariate splits and a skeleton of
	// depth 2 or 3 (not the tree special case), bounds the objective by a
	// branch and bound over the skeleton's diagrams (see diagramSearch)
	// and keeps its best diagram as an incumbent.
	DiagramCut bool
}

// MinMargin is the smallest split margin the MILP is built with: HiGHS's
// default feasibility tolerance on integrality and rows (1e-6) is of
// that order, so a smaller margin cannot separate two rows reliably.
const MinMargin = 1e-6

// column is one scaled feature column of the MILP.
type column struct {
	feature  int
	level    int // categorical: the level of this one-hot column; -1 for numeric
	min, rng float64
	// vals, for a numeric column scaled by rank, are its distinct values
	// in increasing order: value vals[k] is scaled to k/(len(vals)−1).
	vals []float64
	// eps is the column's margin.
	eps float64
}

// Encoding is the MILP of a dataset and options, with the indices needed
// to decode its solutions.
type Encoding struct {
	Model *milp.Model
	Opts  Options

	data    *model.Dataset
	cols    []column
	x       [][]float64 // scaled values, x[i][j]
	layer   [][]int     // internal nodes per layer
	layerOf []int
	nInt    int // internal nodes
	nCls    int
	eps     float64

	// Variable indices (-1 = absent).
	Lambda [][]int // [i][l]
	D      []int   // [u] (internal)
	Y      [2][][]int
	A      [][]int // [u][j]
	B      []int
	E      [][]int
	W      [2][][]int // [side][i][u]
	Z      [2][][][]int
	Leaf   [][]int // [i][c]
	// Q[k] (k ≥ 1): at least k internal nodes but the root are active
	// (Options.CountCut); nil without it.
	Q []int

	succ [][]int // successors of u: internal node ids, then nInt+c for classes

	diagram *diagramStats // the diagram cut's search (nil: not run)
	// cutsLeftOut names the cut rows left out because alpha makes their
	// coefficients too large for a solver (see nodeCostInRows).
	cutsLeftOut []string
}

// Sides of a node.
const (
	Neg = 0
	Pos = 1
)

// ErrInput is wrapped by errors about unusable data or options.
var ErrInput = errors.New("odd")

// TreeSkeleton returns the skeleton 1-2-4-… of a tree of the given depth.
func TreeSkeleton(depth int) []int {
	s := make([]int, depth)
	for l := range s {
		s[l] = 1 << l
	}
	return s
}

func (o *Options) check(d *model.Dataset) error {
	if len(o.Skeleton) == 0 || o.Skeleton[0] != 1 {
		return fmt.Errorf("%w: the skeleton must start with the root layer of width 1, got %v", ErrInput, o.Skeleton)
	}
	for l, w := range o.Skeleton {
		if w < 1 {
			return fmt.Errorf("%w: skeleton layer %d has width %d", ErrInput, l, w)
		}
		if o.Tree && w != 1<<l {
			return fmt.Errorf("%w: the tree special case needs the skeleton 1-2-4-…, layer %d has width %d", ErrInput, l, w)
		}
	}
	if o.Alpha < 0 || math.IsNaN(o.Alpha) || math.IsInf(o.Alpha, 0) {
		return fmt.Errorf("%w: alpha %v must be a non-negative number", ErrInput, o.Alpha)
	}
	if o.Epsilon < 0 || o.Epsilon >= 0.5 || math.IsNaN(o.Epsilon) {
		return fmt.Errorf("%w: epsilon %v must be in [0, 0.5)", ErrInput, o.Epsilon)
	}
	if o.RowCost != nil && len(o.RowCost) != d.Rows() {
		return fmt.Errorf("%w: %d row costs for %d rows", ErrInput, len(o.RowCost), d.Rows())
	}
	if d.Rows() == 0 {
		return fmt.Errorf("%w: no rows", ErrInput)
	}
	if d.NumClasses() < 1 {
		return fmt.Errorf("%w: no classes", ErrInput)
	}
	if o.MaxNodes > 0 && !o.Tree {
		return fmt.Errorf("%w: a node limit applies to the tree special case only", ErrInput)
	}
	if o.MaxActive < 0 || o.MinFlow < 0 || o.MaxNodes < 0 {
		return fmt.Errorf("%w: negative parsimony cap or minimum flow", ErrInput)
	}
	if f := o.Fair; f != nil {
		if f.Column < 0 || f.Column >= d.NumFeatures() {
			return fmt.Errorf("%w: fairness column %d out of range", ErrInput, f.Column)
		}
		if f.Positive < 0 || f.Positive >= d.NumClasses() {
			return fmt.Errorf("%w: positive class %d out of range", ErrInput, f.Positive)
		}
		if f.Xi < 0 || f.Xi > 1 || math.IsNaN(f.Xi) {
			return fmt.Errorf("%w: fairness ratio %v must be in [0,1]", ErrInput, f.Xi)
		}
		col := d.Features[f.Column]
		for r, v := range col.Values {
			if col.Kind != model.Numeric || (v != 0 && v != 1) {
				return fmt.Errorf("%w: fairness column %s must be 0/1 (row %d has %v)", ErrInput, col.Name, r+1, v)
			}
		}
	}
	return nil
}

// FairGroups returns the rows of the two groups of the fairness column.
func FairGroups(d *model.Dataset, col int) (g1, g0 []int) {
	for r, v := range d.Features[col].Values {
		if v == 1 {
			g1 = append(g1, r)
		} else {
			g0 = append(g0, r)
		}
	}
	return g1, g0
}

// scaleColumns lists the MILP's feature columns: numeric features scaled
// to [0,1], categorical features one-hot (one column per level; a single
// column for two levels).
func scaleColumns(d *model.Dataset, o *Options) ([]column, error) {
	var cols []column
	for f, ft := range d.Features {
		if o.Fair != nil && f == o.Fair.Column {
			continue
		}
		if ft.Kind == model.Categorical {
			if o.Multivariate {
				return nil, fmt.Errorf("%w: multivariate splits need numeric features; %s is categorical (one-hot encode it)", ErrInput, ft.Name)
			}
			first := 0
			if len(ft.Levels) == 2 {
				first = 1
			}
			for lv := first; lv < len(ft.Levels); lv++ {
				cols = append(cols, column{feature: f, level: lv, rng: 1})
			}
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range ft.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: feature %s has the value %v", ErrInput, ft.Name, v)
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		c := column{feature: f, level: -1, min: lo, rng: hi - lo}
		if !o.Multivariate {
			c.vals = slices.Clone(ft.Values)
			slices.Sort(c.vals)
			c.vals = slices.Compact(c.vals)
		}
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%w: no feature to split on", ErrInput)
	}
	return cols, nil
}

// maxMargin caps a margin derived from the data: larger margins (up to
// the gap itself, 0.5 on three values) are as exact, but did not make
// HiGHS's branch and bound faster in a measurement (docs/benchmarks.md,
// "Figures behind constants and defaults"), so the fixed margin stays
// the cap.
const maxMargin = 1e-4

// margins sets each column's margin: the given epsilon, or the smallest
// gap between the column's distinct scaled values, at most maxMargin
// (oblique splits: one margin, the smallest gap of any column).
// It returns the largest margin, and refuses a derived margin below
// MinMargin, naming the column and its two closest values.
func margins(d *model.Dataset, cols []column, o *Options) (float64, error) {
	if o.Epsilon > 0 {
		for j := range cols {
			cols[j].eps = o.Epsilon
		}
		return o.Epsilon, nil
	}
	type gap struct {
		size float64
		col  int
		a, b float64
	}
	smallest := gap{size: maxMargin, col: -1}
	for j := range cols {
		c := &cols[j]
		c.eps = maxMargin
		switch {
		case c.level >= 0:
			// one-hot 0/1: a gap of 1
		case c.vals != nil:
			if m := len(c.vals); m > 1 {
				c.eps = min(maxMargin, 1/float64(m-1))
				if c.eps < smallest.size {
					smallest = gap{c.eps, j, c.vals[0], c.vals[1]}
				}
			}
		case c.rng > 0:
			vals := slices.Clone(d.Features[c.feature].Values)
			slices.Sort(vals)
			for k := 1; k < len(vals); k++ {
				if vals[k] > vals[k-1] {
					g := (vals[k] - c.min) / c.rng
					g -= (vals[k-1] - c.min) / c.rng
					if g < c.eps {
						c.eps = g
					}
					if g < smallest.size {
						smallest = gap{g, j, vals[k-1], vals[k]}
					}
				}
			}
		}
	}
	if smallest.col >= 0 && smallest.size < MinMargin {
		name := d.Features[cols[smallest.col].feature].Name
		hint := "univariate splits scale by rank and need fewer distinct values"
		if o.Multivariate {
			hint = "univariate splits (splits=univariate) scale by rank and separate them"
		}
		return 0, fmt.Errorf("%w: feature %s has the values %v and %v only %.3g apart after scaling to [0,1], below what the MILP solver's tolerances separate (%g): %s, or give the margin with option epsilon",
			ErrInput, name, smallest.a, smallest.b, smallest.size, MinMargin, hint)
	}
	if o.Multivariate {
		eps := min(maxMargin, smallest.size)
		for j := range cols {
			cols[j].eps = eps
		}
		return eps, nil
	}
	top := 0.0
	for _, c := range cols {
		top = max(top, c.eps)
	}
	return top, nil
}

// uniformMargin reports whether every column has the same margin.
func (e *Encoding) uniformMargin() bool {
	for _, c := range e.cols {
		if c.eps != e.cols[0].eps {
			return false
		}
	}
	return true
}

// raw maps a scaled threshold t of the column back to a raw threshold:
// a raw value v is at most the result exactly when its scaled value is
// at most t. For a rank-scaled column it is the midpoint between the
// largest value scaled to at most t and the next one.
func (c column) raw(t float64) float64 {
	if c.vals == nil {
		return c.min + t*c.rng
	}
	m := len(c.vals)
	if m == 1 {
		if t >= 0 {
			return c.vals[0]
		}
		return math.Nextafter(c.vals[0], math.Inf(-1))
	}
	// k: the number of values scaled to at most t (value k' is scaled
	// to k'/(m−1)).
	k := m
	if f := math.Floor(t*float64(m-1)+1e-9) + 1; f < float64(m) {
		k = max(0, int(f))
	}
	switch {
	case k == 0:
		return math.Nextafter(c.vals[0], math.Inf(-1))
	case k == m:
		return c.vals[m-1]
	}
	lo, hi := c.vals[k-1], c.vals[k]
	if mid := lo + (hi-lo)/2; mid >= lo && mid < hi {
		return mid
	}
	return lo
}

// scaled is the scaled value of a raw value of a rank-scaled column.
func (c column) scaled(v float64) float64 {
	k, _ := slices.BinarySearch(c.vals, v)
	return float64(k) / float64(len(c.vals)-1)
}

func (c column) value(d *model.Dataset, r int) float64 {
	v := d.Features[c.feature].Values[r]
	if c.level >= 0 {
		if int(v) == c.level {
			return 1
		}
		return 0
	}
	if c.rng == 0 {
		return 0
	}
	if c.vals != nil {
		return c.scaled(v)
	}
	return min(1, max(0, (v-c.min)/c.rng))
}

// Encode builds the MILP for the data and options, stopping with ctx's
// cause when ctx ends (the model grows with rows × nodes × arcs).
func Encode(ctx context.Context, d *model.Dataset, o Options) (*Encoding, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	o.Skeleton = slices.Clone(o.Skeleton)
	if err := o.check(d); err != nil {
		return nil, err
	}
	cols, err := scaleColumns(d, &o)
	if err != nil {
		return nil, err
	}
	eps, err := margins(d, cols, &o)
	if err != nil {
		return nil, err
	}
	// One class: a second terminal no row belongs to (see the package doc).
	K := max(d.NumClasses(), 2)
	e := &Encoding{Model: &milp.Model{Name: "odd", ObjName: "obj"}, Opts: o, data: d, cols: cols,
		nCls: K, eps: eps}
	n, J := d.Rows(), len(cols)
	e.x = make([][]float64, n)
	for i := range n {
		e.x[i] = make([]float64, J)
		for j, c := range cols {
			e.x[i][j] = c.value(d, i)
		}
	}
	for _, w := range o.Skeleton {
		var ids []int
		for range w {
			ids = append(ids, e.nInt)
			e.layerOf = append(e.layerOf, len(e.layer))
			e.nInt++
		}
		e.layer = append(e.layer, ids)
	}
	V, Dn := e.nInt, len(o.Skeleton)
	// Successors and allowed arcs.
	e.succ = make([][]int, V)
	allowed := func(side, u, v int) bool {
		if v >= V || !o.Tree {
			return true
		}
		k := slices.Index(e.layer[e.layerOf[u]], u)
		return v == e.layer[e.layerOf[u]+1][2*k+side]
	}
	for u := range V {
		if l := e.layerOf[u]; l+1 < Dn {
			e.succ[u] = append(e.succ[u], e.layer[l+1]...)
		}
		for c := range K {
			e.succ[u] = append(e.succ[u], V+c)
		}
	}
	m := e.Model
	nodeCost := 0.0
	if V > 1 {
		nodeCost = o.Alpha / float64(V-1)
	}
	// Design variables.
	e.D = make([]int, V)
	for u := range V {
		cost := nodeCost
		if u == 0 {
			cost = 0
		}
		e.D[u] = m.AddBinary(fmt.Sprintf("d_%d", u), cost)
	}
	m.Columns[e.D[0]].Lower = 1
	for s := range 2 {
		e.Y[s] = make([][]int, V)
		for u := range V {
			e.Y[s][u] = make([]int, len(e.succ[u]))
			for k, v := range e.succ[u] {
				e.Y[s][u][k] = -1
				if allowed(s, u, v) {
					e.Y[s][u][k] = m.AddBinary(fmt.Sprintf("y%c_%d_%d", "-+"[s], u, v), 0)
				}
			}
		}
	}
	e.A, e.B, e.E = make([][]int, V), make([]int, V), make([][]int, V)
	for u := range V {
		e.A[u] = make([]int, J)
		for j := range J {
			e.A[u][j] = m.AddContinuous(fmt.Sprintf("a_%d_%d", u, j), -1, 1, 0)
		}
		e.B[u] = m.AddContinuous(fmt.Sprintf("b_%d", u), -1, 1, 0)
		if !o.Multivariate {
			e.E[u] = make([]int, J)
			for j := range J {
				e.E[u][j] = m.AddBinary(fmt.Sprintf("e_%d_%d", u, j), 0)
			}
		}
	}
	// Per-row variables.
	e.Lambda = make([][]int, n)
	for s := range 2 {
		e.W[s] = make([][]int, n)
		e.Z[s] = make([][][]int, n)
	}
	e.Leaf = make([][]int, n)
	for i := range n {
		if (i%64 == 0 || V > 64) && ctx.Err() != nil {
			return nil, fmt.Errorf("building the MILP: %w", context.Cause(ctx))
		}
		e.Lambda[i] = make([]int, Dn)
		for l := range Dn {
			e.Lambda[i][l] = m.AddBinary(fmt.Sprintf("lambda_%d_%d", i, l), 0)
		}
		for s := range 2 {
			e.W[s][i] = make([]int, V)
			e.Z[s][i] = make([][]int, V)
			for u := range V {
				e.W[s][i][u] = m.AddContinuous(fmt.Sprintf("w%c_%d_%d", "-+"[s], i, u), 0, 1, 0)
				e.Z[s][i][u] = make([]int, len(e.succ[u]))
				for k := range e.succ[u] {
					e.Z[s][i][u][k] = -1
					if e.Y[s][u][k] >= 0 {
						e.Z[s][i][u][k] = m.AddContinuous(fmt.Sprintf("z%c_%d_%d_%d", "-+"[s], i, u, e.succ[u][k]), 0, 1, 0)
					}
				}
			}
		}
		e.Leaf[i] = make([]int, K)
		cost := 1 / float64(n)
		if o.RowCost != nil {
			cost = o.RowCost[i]
		}
		for c := range K {
			cc := 0.0
			if c != d.Labels[i] {
				cc = cost
			}
			e.Leaf[i][c] = m.AddContinuous(fmt.Sprintf("wl_%d_%d", i, c), 0, 1, cc)
		}
	}
	if err := e.constraints(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// preds lists, for node v (internal id or nInt+class), the arcs (u, k, side)
// entering it.
type arc struct{ u, k, side int }

func (e *Encoding) preds() [][]arc {
	p := make([][]arc, e.nInt+e.nCls)
	for u := range e.nInt {
		for k, v := range e.succ[u] {
			for s := range 2 {
				if e.Y[s][u][k] >= 0 {
					p[v] = append(p[v], arc{u, k, s})
				}
			}
		}
	}
	return p
}

// term is one coefficient of a constraint row: column j, value v.
type term struct {
	j int
	v float64
}

// row adds the constraint lo ≤ Σ v·x_j ≤ hi named name.
func (e *Encoding) row(name string, lo, hi float64, ts ...term) {
	idx, val := make([]int, len(ts)), make([]float64, len(ts))
	for k, t := range ts {
		idx[k], val[k] = t.j, t.v
	}
	e.Model.AddRow(name, lo, hi, idx, val)
}

// constraints adds the paper's constraints (1)-(17) and, when the options
// ask for them, the error cuts and the side constraints
// (sideConstraints).
func (e *Encoding) constraints(ctx context.Context) error {
	o, d := e.Opts, e.data
	n, V, K, J := d.Rows(), e.nInt, e.nCls, len(e.cols)
	inf := milp.Inf
	preds := e.preds()
	uniform := e.uniformMargin()
	row := e.row
	for i := range n {
		if (i%64 == 0 || V > 64) && ctx.Err() != nil {
			return fmt.Errorf("building the MILP: %w", context.Cause(ctx))
		}
		for v := range V {
			// (1) flow conservation into v.
			ts := []term{{e.W[Pos][i][v], 1}, {e.W[Neg][i][v], 1}}
			rhs := 0.0
			if v == 0 {
				rhs = 1
			}
			for _, a := range preds[v] {
				ts = append(ts, term{e.Z[a.side][i][a.u][a.k], -1})
			}
			row(fmt.Sprintf("c1_%d_%d", i, v), rhs, rhs, ts...)
			// (2), (3) flow out of each side.
			for s := range 2 {
				ts := []term{{e.W[s][i][v], 1}}
				for k := range e.succ[v] {
					if z := e.Z[s][i][v][k]; z >= 0 {
						ts = append(ts, term{z, -1})
					}
				}
				row(fmt.Sprintf("c%d_%d_%d", 2+s, i, v), 0, 0, ts...)
			}
		}
		// (4), (5) one side per layer.
		for l, ids := range e.layer {
			neg := []term{{e.Lambda[i][l], 1}}
			pos := []term{{e.Lambda[i][l], -1}}
			for _, u := range ids {
				neg = append(neg, term{e.W[Neg][i][u], 1})
				pos = append(pos, term{e.W[Pos][i][u], 1})
			}
			row(fmt.Sprintf("c4_%d_%d", i, l), -inf, 1, neg...)
			row(fmt.Sprintf("c5_%d_%d", i, l), -inf, 0, pos...)
		}
		// (17) flow reaching the terminals.
		for c := range K {
			ts := []term{{e.Leaf[i][c], 1}}
			for _, a := range preds[V+c] {
				ts = append(ts, term{e.Z[a.side][i][a.u][a.k], -1})
			}
			row(fmt.Sprintf("c17_%d_%d", i, c), 0, 0, ts...)
		}
		// (9), (10) flows only on arcs of the diagram.
		for u := range V {
			for k := range e.succ[u] {
				for s := range 2 {
					if z := e.Z[s][i][u][k]; z >= 0 {
						row(fmt.Sprintf("c%d_%d_%d_%d", 10-s, i, u, e.succ[u][k]), -inf, 0, term{z, 1}, term{e.Y[s][u][k], -1})
					}
				}
			}
		}
		// (13), (14) hyperplanes, big-M from the bounds of a, b and x.
		sumX, maxX := 0.0, 0.0
		for _, v := range e.x[i] {
			sumX += v
			maxX = max(maxX, v)
		}
		reach := sumX
		if !o.Multivariate {
			reach = maxX
		}
		// With per-column margins (univariate), the margin of the tested
		// column is Σ_j ε_j e_uj (exactly one e_uj is 1).
		mNeg, mPos := reach+1+e.eps, reach+1
		perColumn := !o.Multivariate && !uniform
		for u := range V {
			neg := []term{{e.B[u], -1}, {e.W[Neg][i][u], mNeg}}
			pos := []term{{e.B[u], -1}, {e.W[Pos][i][u], -mPos}}
			for j := range J {
				if xv := e.x[i][j]; xv != 0 {
					neg = append(neg, term{e.A[u][j], xv})
					pos = append(pos, term{e.A[u][j], xv})
				}
			}
			hi := mNeg - e.eps
			if perColumn {
				hi = mNeg
				for j := range J {
					neg = append(neg, term{e.E[u][j], e.cols[j].eps})
				}
			}
			row(fmt.Sprintf("c13_%d_%d", i, u), -inf, hi, neg...)
			row(fmt.Sprintf("c14_%d_%d", i, u), -mPos, inf, pos...)
		}
	}
	for u := range V {
		// (6) one arc per side of an active node.
		for s := range 2 {
			ts := []term{{e.D[u], -1}}
			for k := range e.succ[u] {
				if y := e.Y[s][u][k]; y >= 0 {
					ts = append(ts, term{y, 1})
				}
			}
			row(fmt.Sprintf("c6%c_%d", "-+"[s], u), 0, 0, ts...)
		}
		// (8) the two sides of u lead to distinct active nodes.
		for k, v := range e.succ[u] {
			var ts []term
			for s := range 2 {
				if y := e.Y[s][u][k]; y >= 0 {
					ts = append(ts, term{y, 1})
				}
			}
			if v < V {
				row(fmt.Sprintf("c8_%d_%d", u, v), -inf, 0, append(ts, term{e.D[v], -1})...)
			} else if len(ts) == 2 {
				row(fmt.Sprintf("c8_%d_%d", u, v), -inf, 1, ts...)
			}
		}
		// (11) the negative side links to a lower index than the positive.
		if !o.NoSymmetryBreaking {
			for k, v := range e.succ[u] {
				yn := e.Y[Neg][u][k]
				if yn < 0 {
					continue
				}
				ts := []term{{yn, 1}}
				for k2, w := range e.succ[u] {
					if yp := e.Y[Pos][u][k2]; yp >= 0 && w <= v {
						ts = append(ts, term{yp, 1})
					}
				}
				if len(ts) > 1 {
					row(fmt.Sprintf("c11_%d_%d", u, v), -inf, 1, ts...)
				}
			}
		}
		if !o.Multivariate {
			// (15), (16) univariate splits.
			ts := make([]term, J)
			for j := range J {
				ts[j] = term{e.E[u][j], 1}
				row(fmt.Sprintf("c16a_%d_%d", u, j), -inf, 0, term{e.A[u][j], 1}, term{e.E[u][j], -1})
				row(fmt.Sprintf("c16b_%d_%d", u, j), 0, inf, term{e.A[u][j], 1}, term{e.E[u][j], 1})
			}
			row(fmt.Sprintf("c15_%d", u), 1, 1, ts...)
		}
	}
	indeg := func(v int) []term {
		var ts []term
		for _, a := range preds[v] {
			ts = append(ts, term{e.Y[a.side][a.u][a.k], 1})
		}
		return ts
	}
	for v := 1; v < V; v++ {
		// (7) an active node has an incoming arc.
		ts := []term{{e.D[v], 1}}
		for _, t := range indeg(v) {
			ts = append(ts, term{t.j, -1})
		}
		row(fmt.Sprintf("c7_%d", v), -inf, 0, ts...)
	}
	// (12) weak in-degree order within layers 2..D-1 (tree: siblings);
	// from layer 1 with FirstLayerOrder.
	if !o.NoSymmetryBreaking {
		first := 2
		if o.FirstLayerOrder {
			first = 1
		}
		for l := first; l < len(e.layer); l++ {
			ids := e.layer[l]
			for a := range ids {
				for b := a + 1; b < len(ids); b++ {
					if o.Tree && (b != a+1 || a%2 != 0) {
						continue
					}
					ts := indeg(ids[a])
					for _, t := range indeg(ids[b]) {
						ts = append(ts, term{t.j, -t.v})
					}
					row(fmt.Sprintf("c12_%d_%d", ids[a], ids[b]), 0, inf, ts...)
				}
			}
		}
	}
	if o.ErrorCuts {
		e.addErrorCuts(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("building the MILP: %w", context.Cause(ctx))
		}
	}
	e.sideConstraints()
	return nil
}

// maxRowNodeCost is the largest node cost a cut row carries as a
// coefficient: a row whose node coefficients pass it beside error
// coefficients of at most 1 spans more than the solvers' coefficient
// range (HiGHS refuses a model with a coefficient of 1e15 or more), and
// adds nothing the objective does not already say: a node then costs
// more than a thousand million times all the errors together.
const maxRowNodeCost = 1e9

// nodeCostInRows reports whether the cut row name may carry the node
// cost; if not, the row is left out and recorded in cutsLeftOut.
func (e *Encoding) nodeCostInRows(name string) bool {
	if e.NodeCost() <= maxRowNodeCost {
		return true
	}
	e.cutsLeftOut = append(e.cutsLeftOut, name)
	return false
}

// CutsLeftOut names the cut rows Encode left out because alpha makes a
// node cost too large for a row's coefficient (nil when none).
func (e *Encoding) CutsLeftOut() []string { return e.cutsLeftOut }

// NodeCost is the objective's cost of one active internal node.
func (e *Encoding) NodeCost() float64 {
	if e.nInt <= 1 {
		return 0
	}
	return e.Opts.Alpha / float64(e.nInt-1)
}

// InternalNodes is the number of internal nodes of the skeleton.
func (e *Encoding) InternalNodes() int { return e.nInt }
