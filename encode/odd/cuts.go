package odd

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
)

// errorFloors returns two lower bounds on the misclassification cost of
// any univariate diagram on the encoding's rows: floor, the cost no
// classifier avoids (rows with identical feature columns but different
// labels can share only one class), and stump, the least cost of one
// univariate split whose two sides each predict their cheapest class
// (a relaxation of a diagram with the root as its only active internal
// node: its sides may even lead to the same class). floor ≤ stump.
func (e *Encoding) errorFloors() (floor, stump float64) {
	n, K := len(e.x), e.nCls
	// Identical rows can share only one class.
	_, weight := e.rowGroups()
	for _, w := range weight {
		floor += leafCost(w)
	}
	total := make([]float64, K)
	for i := range n {
		total[e.data.Labels[i]] += e.cost(i)
	}
	stump = leafCost(total)
	low := make([]float64, K)
	high := make([]float64, K)
	for j := range e.cols {
		order := e.columnOrder(j)
		clear(low)
		copy(high, total)
		for k, i := range order[:n-1] {
			c := e.data.Labels[i]
			low[c] += e.cost(i)
			high[c] -= e.cost(i)
			if e.x[order[k+1]][j] > e.x[i][j] {
				stump = min(stump, leafCost(low)+leafCost(high))
			}
		}
	}
	return floor, max(floor, stump)
}

// columnOrder lists the rows by increasing value of column j (ties in
// row order).
func (e *Encoding) columnOrder(j int) []int {
	o := make([]int, len(e.x))
	for i := range o {
		o[i] = i
	}
	slices.SortStableFunc(o, func(a, b int) int { return cmp.Compare(e.x[a][j], e.x[b][j]) })
	return o
}

// leafCost is the cost of a leaf predicting the class of largest weight.
func leafCost(w []float64) float64 {
	sum, best := 0.0, 0.0
	for _, v := range w {
		sum += v
		best = max(best, v)
	}
	return max(0, sum-best)
}

// addErrorCuts adds the valid inequalities of Options.ErrorCuts on the
// misclassification cost err = Σ_i Σ_{c ≠ label(i)} cost_i·wl_ic:
// err ≥ floor, and err ≥ stump − (stump − floor)·Σ_{u ≥ 1} d_u (with no
// active internal node but the root the diagram is one split). Neither
// cuts off a diagram (the second holds for univariate splits only: an
// oblique split may beat every univariate stump); both lift the LP bound, which otherwise sends every
// row's flow fractionally to its own class.
func (e *Encoding) addErrorCuts(ctx context.Context) {
	floor, stump := e.errorFloors()
	var idx []int
	var val []float64
	for i, vs := range e.Leaf {
		for c, j := range vs {
			if c != e.data.Labels[i] {
				idx, val = append(idx, j), append(val, e.cost(i))
			}
		}
	}
	// A hair below the bounds: float sums of the same costs in another
	// order must not cut off a diagram that meets a bound exactly.
	const slack = 1e-9
	m := e.Model
	if floor > slack {
		m.AddRow("cut_floor", floor-slack, milp.Inf, slices.Clone(idx), slices.Clone(val))
	}
	// One view of the row groups serves both searches.
	var v *groupView
	if diagram := e.Opts.DiagramCut && e.diagramSkeleton(); (diagram || e.Opts.CountCut) && !e.Opts.Multivariate && e.nInt > 1 {
		v = e.newGroupView()
	}
	// The diagram search runs first; both cuts read its outcome, so
	// that neither depends on the other having been added.
	if e.Opts.DiagramCut {
		e.diagram = e.searchDiagrams(ctx, v)
		e.addDiagramCut(e.diagram, idx, val)
	}
	if e.Opts.CountCut {
		e.addCountCut(ctx, v, e.diagram, slices.Clone(idx), slices.Clone(val), floor)
	}
	if e.Opts.Multivariate || stump <= floor+slack || e.nInt <= 1 {
		return
	}
	// With the pair bound: node 1 (the first of layer 1) is active as soon
	// as any node but the root is (constraint 12 on layer 1, or in a tree
	// constraint 11), so err ≥ stump − (stump − pair)·d_1 − (pair −
	// floor)·Σ_{u ≥ 2} d_u, which dominates the cut below.
	ordered := !e.Opts.NoSymmetryBreaking && (e.Opts.Tree || e.Opts.FirstLayerOrder)
	if pair, ok := e.pairFloor(ctx); ok && ordered && e.Opts.PairCut {
		pair = min(stump, max(floor, pair))
		for u := 1; u < e.nInt; u++ {
			coef := pair - floor
			if u == e.layer[1][0] {
				coef = stump - pair
			}
			idx, val = append(idx, e.D[u]), append(val, coef)
		}
		m.AddRow("cut_pair", stump-slack, milp.Inf, idx, val)
		return
	}
	for u := 1; u < e.nInt; u++ {
		idx, val = append(idx, e.D[u]), append(val, stump-floor)
	}
	m.AddRow("cut_stump", stump-slack, milp.Inf, idx, val)
}

// cutoffBelow returns a cutoff for a solve that only needs to beat a
// diagram of objective obj: when every row has the same cost w, every
// objective is k·w + s·NodeCost (k errors, s active internal nodes but
// the root), so nothing lies strictly between the largest such value v
// below obj and obj itself; the cutoff is v + 1e-4 (far beyond the
// solver's tolerances on a point's objective, about 1e-6, so no diagram
// of objective v is pruned by noise). ok is false when rows have
// different costs or v is not at least 2e-4 below obj (the gain would not
// be worth the risk).
func (e *Encoding) cutoffBelow(obj float64) (cutoff float64, ok bool) {
	w := e.cost(0)
	for i := range e.x {
		if e.cost(i) != w {
			return 0, false
		}
	}
	if w <= 0 {
		return 0, false
	}
	c, v := e.NodeCost(), math.Inf(-1)
	for s := range e.nInt {
		// The largest k with k·w + s·c < obj, robust to the rounding of
		// obj itself (a value k·w + s·c computed in floats).
		k := math.Ceil((obj-float64(s)*c)/w-milpjob.Tol) - 1
		if k < 0 || k > float64(len(e.x)) {
			continue
		}
		v = max(v, k*w+float64(s)*c)
		if c == 0 {
			break
		}
	}
	const margin = 1e-4
	if math.IsInf(v, -1) || obj-v < 2*margin {
		return 0, false
	}
	return v + margin, true
}

// pairWork caps the work of pairFloor (root splits × columns × rows).
const pairWork = 3e8

// pairFloor returns a lower bound on the misclassification cost of any
// diagram whose only active internal nodes are the root and one child:
// a root split one side of which goes to a class (the cheapest) and the
// other to a univariate stump (or a class). ok is false when the data is
// too large for the O(columns² × rows²) scan, or when ctx ends during it
// (it checks ctx at every root threshold).
func (e *Encoding) pairFloor(ctx context.Context) (float64, bool) {
	n, J, K := len(e.x), len(e.cols), e.nCls
	if float64(J)*float64(J)*float64(n)*float64(n)*float64(K) > pairWork {
		return 0, false
	}
	orders := make([][]int, J)
	rank := make([][]int, J)
	for j := range J {
		o := e.columnOrder(j)
		orders[j] = o
		rank[j] = make([]int, n)
		for r, i := range o {
			rank[j][i] = r
		}
	}
	total := make([]float64, K)
	for i := range n {
		total[e.data.Labels[i]] += e.cost(i)
	}
	best := leafCost(total)
	side := make([][]float64, 2) // class weights of each side of the root
	stump := make([]float64, 2)  // best stump cost within each side
	low := [2][]float64{make([]float64, K), make([]float64, K)}
	high := [2][]float64{make([]float64, K), make([]float64, K)}
	last := [2]int{}
	for j := range J {
		o := orders[j]
		side[0], side[1] = make([]float64, K), slices.Clone(total)
		for k, i := range o[:n-1] {
			c := e.data.Labels[i]
			side[0][c] += e.cost(i)
			side[1][c] -= e.cost(i)
			if e.x[o[k+1]][j] <= e.x[i][j] {
				continue
			}
			if ctx.Err() != nil {
				return 0, false
			}
			// Rows of rank ≤ k in column j are side 0. Best stump per side.
			for s := range 2 {
				stump[s] = leafCost(side[s])
			}
			for j2 := range J {
				for s := range 2 {
					clear(low[s])
					copy(high[s], side[s])
					last[s] = -1
				}
				for _, i2 := range orders[j2] {
					s := 0
					if rank[j][i2] > k {
						s = 1
					}
					// A threshold between the previous row of this side and i2.
					if p := last[s]; p >= 0 && e.x[i2][j2] > e.x[p][j2] {
						stump[s] = min(stump[s], leafCost(low[s])+leafCost(high[s]))
					}
					c2 := e.data.Labels[i2]
					low[s][c2] += e.cost(i2)
					high[s][c2] -= e.cost(i2)
					last[s] = i2
				}
			}
			best = min(best, leafCost(side[0])+stump[1], stump[0]+leafCost(side[1]))
		}
	}
	return best, true
}
