package odd

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/odtkit/odtkit/milp"
)

// floorWork caps the work of testFloors (steps over row groups and
// cells; a few nanoseconds each): enough for the floors of 1 to 4 tests
// on iris-sized data within a few seconds (docs/benchmarks.md, "Figures
// behind constants and defaults").
const floorWork = 1.5e9

// testFloors returns lower bounds on the misclassification cost of a
// univariate diagram by its number of active internal nodes: floors[m−1]
// bounds every diagram of at most m active internal nodes. Each node
// sends a row to a side by one threshold on one scaled column, so the
// diagram's class of a row is a function of the answers of at most m
// threshold tests, and rows that answer them alike get one class: the
// cost is at least the least, over every set of m tests, of the cost no
// function of those tests avoids. That least cost is found by
// enumeration for m = 1, 2, … while the work stays within floorWork;
// beyond, floors holds no entry (the caller falls back to the
// identical-row floor). It stops early with what it has when ctx ends.
func (e *Encoding) testFloors(ctx context.Context, v *groupView, maxTests int) []float64 {
	groups, weight, tests := v.groups, v.weight, v.tests
	T := len(tests)
	if T == 0 {
		return nil
	}
	// The cost no classifier avoids: each group predicted its best class.
	identical := 0.0
	for _, w := range weight {
		identical += leafCost(w)
	}
	var floors []float64
	work := 0.0
	for m := 1; m <= maxTests; m++ {
		if m > T {
			// More tests than there are: the floor of all of them.
			floors = append(floors, floors[len(floors)-1])
			continue
		}
		// At most: every set of m−1 tests and a sweep of every column.
		sets := 1.0
		for i := range m - 1 {
			sets = sets * float64(T-i) / float64(i+1)
		}
		if sets*float64(len(e.cols)*len(groups)*(1+4*e.nCls)) > 2*(floorWork-work) {
			break
		}
		best, ok := v.leastFloor(ctx, m, &work)
		if !ok {
			break
		}
		best = max(best, identical)
		if len(floors) > 0 {
			best = min(best, floors[len(floors)-1])
		}
		floors = append(floors, best)
		if best <= identical+1e-12 {
			for len(floors) < maxTests {
				floors = append(floors, identical)
			}
			break
		}
	}
	return floors
}

// leastFloor is the least, over every set of m of the tests, of the cost
// of predicting each cell of rows answering the set's tests alike its
// cheapest class. A set of m−1 tests whose cells' weights beyond their two
// largest classes already reach the least found is not extended: one
// more test splits a cell in two, and two halves predict at most two of
// its classes. work counts the steps done; ok is false when it passes
// floorWork or ctx ends first.
func (v *groupView) leastFloor(ctx context.Context, m int, work *float64) (best float64, ok bool) {
	G, K, T := len(v.weight), v.K, len(v.tests)
	cnt := make([]float64, K<<m)
	ids := make([][]int32, m)
	for k := range ids {
		ids[k] = make([]int32, G)
	}
	best = math.Inf(1)
	stopped := false
	// cells fills cnt with the class weights of the cells of the groups
	// in gs, by their cell ids so far (prev) split by test tt (nil: not
	// split).
	cells := func(gs []int, prev []int32, tt []uint8) {
		clear(cnt)
		for _, g := range gs {
			cell := int(prev[g]) << 1
			if tt != nil {
				cell |= int(tt[g])
			}
			cell *= K
			for _, en := range v.entries[g] {
				cnt[cell+en.c] += en.w
			}
		}
		*work += float64(2*len(gs) + len(cnt))
	}
	all := make([]int, G)
	for g := range all {
		all[g] = g
	}
	mixed := make([]int, 0, G)
	zero := make([]int32, G)
	var rec func(start, depth int)
	rec = func(start, depth int) {
		prev := zero
		if depth > 0 {
			prev = ids[depth-1]
		}
		if depth == m-1 {
			if ctx.Err() != nil || *work > floorWork {
				stopped = true
				return
			}
			// Cells of one class cost nothing however they are split:
			// only the groups of mixed cells are followed.
			cells(all, prev, nil)
			lb := 0.0
			for c := 0; c < len(cnt); c += K {
				lb += beyondTwo(cnt[c : c+K])
			}
			if lb >= best-1e-12 {
				return
			}
			mixed = mixed[:0]
			for g := range G {
				cell := int(prev[g]) << 1 * K
				if leafCost(cnt[cell:cell+K]) > 0 {
					mixed = append(mixed, g)
				}
			}
			best = min(best, v.bestLastTest(mixed, prev, m))
			*work += float64(len(v.orders) * (G + 4*K*len(mixed) + len(cnt)))
			return
		}
		cur := ids[depth]
		for t := start; t+(m-1-depth) < T && !stopped; t++ {
			tt := v.tests[t]
			for g := range G {
				cur[g] = prev[g]<<1 | int32(tt[g])
			}
			*work += float64(G)
			rec(t+1, depth+1)
		}
	}
	rec(0, 0)
	return best, !stopped
}

// bestLastTest is the least cost, over no test or any one threshold
// test t, of the cells of the groups gs (cell ids prev, below 2^(m−1))
// each split by t. For each column it sweeps the groups by increasing
// value, moving each from the high half of its cell to the low one and
// updating the cost of that cell only.
func (v *groupView) bestLastTest(gs []int, prev []int32, m int) float64 {
	K := v.K
	if len(v.low) < K<<m {
		v.low, v.high, v.start = make([]float64, K<<m), make([]float64, K<<m), make([]float64, K<<m)
	}
	low, high, start := v.low[:K<<m], v.high[:K<<m], v.start[:K<<m]
	for _, g := range gs {
		v.in[g] = true
	}
	defer func() {
		for _, g := range gs {
			v.in[g] = false
		}
	}()
	clear(start)
	for _, g := range gs {
		cell := int(prev[g]) << 1 * K
		for _, en := range v.entries[g] {
			start[cell+en.c] += en.w
		}
	}
	whole := 0.0
	for c := 0; c < len(start); c += K {
		whole += leafCost(start[c : c+K])
	}
	best := whole // no split: the m−1 tests alone
	for j, order := range v.orders {
		clear(low)
		copy(high, start)
		cost := whole
		last := -1 // the previous group of gs in the sweep
		for _, g := range order {
			if !v.in[g] {
				continue
			}
			if last >= 0 && v.vals[j][g] > v.vals[j][last] {
				// A threshold between the two values.
				best = min(best, cost)
			}
			cell := int(prev[g]) << 1 * K
			cost -= leafCost(low[cell:cell+K]) + leafCost(high[cell:cell+K])
			for _, en := range v.entries[g] {
				low[cell+en.c] += en.w
				high[cell+en.c] -= en.w
			}
			cost += leafCost(low[cell:cell+K]) + leafCost(high[cell:cell+K])
			last = g
		}
	}
	return best
}

// beyondTwo is the weight of a cell's classes but its two largest.
func beyondTwo(w []float64) float64 {
	sum, a, b := 0.0, 0.0, 0.0
	for _, v := range w {
		sum += v
		if v > a {
			a, b = v, a
		} else if v > b {
			b = v
		}
	}
	return max(0, sum-a-b)
}

// addCountCut adds the bounds of testFloors, treeFloor and smallFloors
// to the model. With N = Σ_{u ≥ 1} d_u the active internal nodes but the
// root and G(N) the largest of the floor of N+1 tests, the least cost of
// a tree of the diagram's depth (not in the tree special case, where
// that would be the problem's optimum) and, for N = 1, 2, that of a
// diagram of N+1 nodes, binaries q_1 ≥ q_2 ≥ … with Σ q_k = N (q_k:
// at least k nodes but the root are active) give
// err ≥ G(0) − Σ_k (G(k−1) − G(k))·q_k, which is G(N) at every integral
// point; and, for the LP, err + c·N ≥ min_N (G(N) + c·N) with c the node
// cost. err is the cost expression errIdx·errVal. floor is the
// identical-row floor, the bound where neither search finished.
// ds is the diagram search's outcome (nil: it did not run).
func (e *Encoding) addCountCut(ctx context.Context, v *groupView, ds *diagramStats, errIdx []int, errVal []float64, floor float64) {
	V := e.nInt
	if V <= 1 || e.Opts.Multivariate {
		return
	}
	// The counting binaries first, so that the model's shape does not
	// depend on how far the floors were found (Estimate counts them).
	m := e.Model
	e.Q = make([]int, V)
	e.Q[0] = -1
	link := []term{}
	for k := 1; k < V; k++ {
		e.Q[k] = m.AddBinary(fmt.Sprintf("q_%d", k), 0)
		link = append(link, term{e.Q[k], 1})
		if k > 1 {
			e.row(fmt.Sprintf("count_order_%d", k), 0, milp.Inf, term{e.Q[k-1], 1}, term{e.Q[k], -1})
		}
	}
	for u := 1; u < V; u++ {
		link = append(link, term{e.D[u], -1})
	}
	e.row("count_link", 0, 0, link...)
	if v == nil {
		return
	}
	if ds != nil && ds.finished && e.Opts.MaxActive == 0 && e.Opts.MinFlow == 0 && e.Opts.Fair == nil {
		// The diagram cut states the least objective of every diagram
		// already; the floors by node count could only help a MILP whose
		// side constraints the search does not know.
		return
	}
	if dl, ok := ctx.Deadline(); ok {
		// The searches get a tenth of the time left at most (their work
		// cap is seconds), so that a short time limit goes to the MILP.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/10)
		defer cancel()
	}
	floors := e.testFloors(ctx, v, V)
	if !e.Opts.Tree {
		// (In the tree special case this bound would be the problem's
		// optimum, found outside the MILP.)
		if tree, ok := v.treeFloor(ctx, len(e.layer)); ok {
			floor = max(floor, tree)
		}
	}
	bound := make([]float64, V) // bound[N]: the floor of N+1 tests
	for N := range V {
		bound[N] = floor
		if N < len(floors) {
			bound[N] = max(floor, floors[N])
		}
	}
	if two, three, ok := e.smallFloors(ctx, v); ok {
		// Diagrams of two and three nodes, by shape.
		if V > 1 {
			bound[1] = max(bound[1], two)
		}
		if V > 2 {
			bound[2] = max(bound[2], three)
		}
		for N := 1; N < V; N++ {
			bound[N] = min(bound[N], bound[N-1]) // at most N+1 nodes
		}
	}
	const slack = 1e-9
	idx, val := slices.Clone(errIdx), slices.Clone(errVal)
	for k := 1; k < V; k++ {
		if drop := bound[k-1] - bound[k]; drop > 0 {
			idx, val = append(idx, e.Q[k]), append(val, drop)
		}
	}
	m.AddRow("cut_count", bound[0]-slack, milp.Inf, idx, val)
	if !e.nodeCostInRows("cut_count_objective") {
		return
	}
	c := e.NodeCost()
	least := math.Inf(1)
	for N := range V {
		least = min(least, bound[N]+c*float64(N))
	}
	idx, val = slices.Clone(errIdx), slices.Clone(errVal)
	for u := 1; u < V; u++ {
		idx, val = append(idx, e.D[u]), append(val, c)
	}
	m.AddRow("cut_count_objective", least-slack, milp.Inf, idx, val)
}

// treeFloor returns the least misclassification cost of a univariate
// tree of the given depth on the rows, a lower bound for a diagram of
// that many layers: following a diagram's arcs from the root unfolds it
// into a tree of its depth with the same tests on each path. ok is false
// when the depth is above 3 or the search would pass floorWork, or when
// ctx ends.
func (v *groupView) treeFloor(ctx context.Context, depth int) (float64, bool) {
	G := len(v.groups)
	work := float64(len(v.orders) * G * (1 + 4*v.K))
	for range depth - 1 {
		work *= 2 * float64(len(v.tests))
	}
	if depth > 3 || work > floorWork {
		return 0, false
	}
	all := make([]int, G)
	for g := range all {
		all[g] = g
	}
	best := v.treeCost(ctx, all, depth, make([]int32, G))
	return best, ctx.Err() == nil
}

// treeCost is the least cost of a tree of at most the given depth on
// the groups gs; zero is a cell id 0 for every group.
func (v *groupView) treeCost(ctx context.Context, gs []int, depth int, zero []int32) float64 {
	if depth <= 1 {
		return v.bestLastTest(gs, zero, 1)
	}
	best := v.treeCost(ctx, gs, depth-1, zero)
	if best == 0 || ctx.Err() != nil {
		return best
	}
	var sides [2][]int
	for _, t := range v.tests {
		sides[0], sides[1] = sides[0][:0], sides[1][:0]
		for _, g := range gs {
			sides[t[g]] = append(sides[t[g]], g)
		}
		if len(sides[0]) == 0 || len(sides[1]) == 0 {
			continue
		}
		a := v.treeCost(ctx, slices.Clone(sides[0]), depth-1, zero)
		if a >= best {
			continue
		}
		best = min(best, a+v.treeCost(ctx, slices.Clone(sides[1]), depth-1, zero))
	}
	return best
}

// smallFloors returns the least misclassification costs of univariate
// diagrams of at most two and at most three internal nodes on the
// skeleton (each side of a node leads to a distinct node of the next
// layer or to a class): with two, the root and one child on one side, a
// class on the other; with three, a depth-2 tree (when layer 1 has two
// nodes) or a chain root → child → grandchild whose other sides end in
// classes (when there are three layers). Every shape is a tree, so each
// side's best is a stump or a leaf found by a sweep. ok is false when
// ctx ends first.
func (e *Encoding) smallFloors(ctx context.Context, v *groupView) (two, three float64, ok bool) {
	G := len(v.groups)
	zero := make([]int32, G)
	all := make([]int, G)
	for g := range all {
		all[g] = g
	}
	cost := func(gs []int) float64 {
		w := make([]float64, v.K)
		for _, g := range gs {
			for _, en := range v.entries[g] {
				w[en.c] += en.w
			}
		}
		return leafCost(w)
	}
	split := func(gs []int, t int) [2][]int {
		var s [2][]int
		for _, g := range gs {
			s[v.tests[t][g]] = append(s[v.tests[t][g]], g)
		}
		return s
	}
	wide := len(e.layer) > 1 && len(e.layer[1]) > 1
	deep := len(e.layer) > 2
	stump := func(gs []int) float64 { return v.bestLastTest(gs, zero, 1) }
	two = stump(all)
	three = two
	for r := range v.tests {
		if ctx.Err() != nil {
			return 0, 0, false
		}
		sides := split(all, r)
		var st [2]float64
		for s := range 2 {
			st[s] = stump(sides[s])
		}
		for s := range 2 {
			two = min(two, cost(sides[1-s])+st[s])
		}
		if wide {
			three = min(three, st[0]+st[1])
		}
		if !deep {
			continue
		}
		for s := range 2 {
			rest := cost(sides[1-s])
			for a := range v.tests {
				sub := split(sides[s], a)
				for t := range 2 {
					three = min(three, rest+cost(sub[1-t])+stump(sub[t]))
				}
			}
		}
	}
	return two, min(two, three), true
}
