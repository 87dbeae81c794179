package odd

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/odtkit/odtkit/model"
)

// Incumbent is a diagram found by the construction heuristic, with its
// objective recomputed on the data.
type Incumbent struct {
	Graph     *model.Graph
	Objective float64
	Errors    int
	// Nodes is the number of active internal nodes.
	Nodes int
	// X is the diagram as a solution of the MILP (a MIP start), with
	// Model.Objective(X) = Objective.
	X []float64
}

// hNode is a node of a diagram under construction.
type hNode struct {
	rows []int
	col  int
	thr  float64 // scaled: rows with x ≤ thr go to side 0
	tgt  [2]int  // node index, or -(class+1)
}

// Heuristic runs the paper's step 1 within the context and the given
// number of restarts: top-down construction choosing the split of best
// information gain (over a random 60% of the feature columns after the
// first restart), greedy merging of the flows down to the next layer's
// width, and bottom-up pruning of nodes whose removal improves the
// objective. Thresholds leave the margin ε so that the diagram is a
// solution of the MILP. It returns the best diagram that satisfies the
// options' side constraints, or nil.
func (e *Encoding) Heuristic(ctx context.Context, restarts int, seed uint64) *Incumbent {
	if e.data.NumClasses() < 2 {
		return nil // one class: the single leaf, which the MILP does not state
	}
	r := rand.New(rand.NewPCG(seed, 0x0dd))
	var best *Incumbent
	for k := range max(restarts, 1) {
		if k > 0 && ctx.Err() != nil {
			break
		}
		frac := 1.0
		if k > 0 {
			frac = 0.6
		}
		layers := e.construct(r, frac)
		e.prune(layers)
		inc := e.incumbent(layers)
		if inc != nil && (best == nil || inc.Objective < best.Objective-1e-12) {
			inc.X = e.point(layers)
			best = inc
		}
	}
	return best
}

func (e *Encoding) cost(i int) float64 {
	if e.Opts.RowCost != nil {
		return e.Opts.RowCost[i]
	}
	return 1 / float64(e.data.Rows())
}

// classCost returns, per class, the cost of sending rows to it.
func (e *Encoding) classCost(rows []int) []float64 {
	c := make([]float64, e.nCls)
	for _, i := range rows {
		for k := range c {
			if k != e.data.Labels[i] {
				c[k] += e.cost(i)
			}
		}
	}
	return c
}

func bestClass(c []float64, not int) int {
	b := -1
	for k := range c {
		if k != not && (b < 0 || c[k] < c[b]) {
			b = k
		}
	}
	return b
}

func (e *Encoding) entropy(rows []int) float64 {
	cnt := make([]float64, e.nCls)
	for _, i := range rows {
		cnt[e.data.Labels[i]]++
	}
	return entropyOf(cnt, float64(len(rows)))
}

func entropyOf(cnt []float64, n float64) float64 {
	h := 0.0
	for _, c := range cnt {
		if c > 0 {
			p := c / n
			h -= c * math.Log(p)
		}
	}
	return h // n × entropy
}

func (e *Encoding) pure(rows []int) bool {
	for _, i := range rows {
		if e.data.Labels[i] != e.data.Labels[rows[0]] {
			return false
		}
	}
	return true
}

// split picks the column and threshold of best information gain among a
// random fraction of the columns.
func (e *Encoding) split(rows []int, r *rand.Rand, frac float64) (col int, thr float64) {
	J := len(e.cols)
	cand := r.Perm(J)
	if frac < 1 {
		cand = cand[:max(1, int(math.Ceil(frac*float64(J))))]
	}
	slices.Sort(cand)
	col, thr = cand[0], 2 // default: everything to side 0
	best := math.Inf(1)
	sorted := slices.Clone(rows)
	total := make([]float64, e.nCls)
	for _, i := range rows {
		total[e.data.Labels[i]]++
	}
	n := float64(len(rows))
	for _, j := range cand {
		sort.SliceStable(sorted, func(a, b int) bool { return e.x[sorted[a]][j] < e.x[sorted[b]][j] })
		left := make([]float64, e.nCls)
		right := slices.Clone(total)
		for p := 0; p+1 < len(sorted); p++ {
			lb := e.data.Labels[sorted[p]]
			left[lb]++
			right[lb]--
			v, w := e.x[sorted[p]][j], e.x[sorted[p+1]][j]
			if w-v < e.cols[j].eps*(1-1e-9) { // the margin may equal the gap
				continue
			}
			h := entropyOf(left, float64(p+1)) + entropyOf(right, n-float64(p+1))
			if h < best-1e-12 {
				best, col, thr = h, j, (v+w)/2
			}
		}
	}
	return col, thr
}

func (e *Encoding) construct(r *rand.Rand, frac float64) [][]*hNode {
	D := len(e.layer)
	layers := make([][]*hNode, D)
	layers[0] = []*hNode{{rows: allRowsOf(e.data.Rows())}}
	for l := range D {
		type flow struct {
			rows []int
			from [][2]int // (node, side)
		}
		var flows []*flow
		for ni, nd := range layers[l] {
			nd.col, nd.thr = e.split(nd.rows, r, frac)
			var side [2][]int
			for _, i := range nd.rows {
				s := 0
				if e.x[i][nd.col] > nd.thr {
					s = 1
				}
				side[s] = append(side[s], i)
			}
			for s := range 2 {
				if l == D-1 || len(side[s]) == 0 || e.pure(side[s]) {
					not := -1
					if s == 1 && nd.tgt[0] < 0 {
						not = -nd.tgt[0] - 1
					}
					nd.tgt[s] = -(bestClass(e.classCost(side[s]), not) + 1)
					continue
				}
				nd.tgt[s] = 0 // set below
				flows = append(flows, &flow{rows: side[s], from: [][2]int{{ni, s}}})
			}
			if nd.tgt[0] == nd.tgt[1] && nd.tgt[0] < 0 {
				nd.tgt[1] = -(bestClass(e.classCost(side[1]), -nd.tgt[0]-1) + 1)
			}
		}
		if l == D-1 {
			break
		}
		width := e.Opts.Skeleton[l+1]
		// Greedy merging: join the pair whose union loses the least
		// information, never two sides of one node.
		for len(flows) > width {
			ba, bb, bc := -1, -1, math.Inf(1)
			for a := range flows {
				for b := a + 1; b < len(flows); b++ {
					if sharesNode(flows[a].from, flows[b].from) || e.Opts.Tree {
						continue
					}
					u := append(slices.Clone(flows[a].rows), flows[b].rows...)
					c := e.entropy(u) - e.entropy(flows[a].rows) - e.entropy(flows[b].rows)
					if c < bc {
						ba, bb, bc = a, b, c
					}
				}
			}
			if ba < 0 {
				// No merge possible: send the smallest flow to its best terminal.
				sm := 0
				for a := range flows {
					if len(flows[a].rows) < len(flows[sm].rows) {
						sm = a
					}
				}
				for _, fr := range flows[sm].from {
					nd := layers[l][fr[0]]
					not := -1
					if o := nd.tgt[1-fr[1]]; o < 0 {
						not = -o - 1
					}
					nd.tgt[fr[1]] = -(bestClass(e.classCost(flows[sm].rows), not) + 1)
				}
				flows = slices.Delete(flows, sm, sm+1)
				continue
			}
			flows[ba].rows = append(flows[ba].rows, flows[bb].rows...)
			flows[ba].from = append(flows[ba].from, flows[bb].from...)
			flows = slices.Delete(flows, bb, bb+1)
		}
		for k, f := range flows {
			for _, fr := range f.from {
				layers[l][fr[0]].tgt[fr[1]] = k
			}
			slices.Sort(f.rows)
			layers[l+1] = append(layers[l+1], &hNode{rows: f.rows})
		}
	}
	return layers
}

func sharesNode(a, b [][2]int) bool {
	for _, x := range a {
		for _, y := range b {
			if x[0] == y[0] {
				return true
			}
		}
	}
	return false
}

func allRowsOf(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// prune removes, bottom-up, nodes linked only to terminals whose
// replacement by a terminal lowers the objective.
func (e *Encoding) prune(layers [][]*hNode) {
	nodeCost := e.NodeCost()
	for l := len(layers) - 1; l >= 1; l-- {
		for k := 0; k < len(layers[l]); k++ {
			nd := layers[l][k]
			if nd.tgt[0] >= 0 || nd.tgt[1] >= 0 {
				continue
			}
			// Cost with the node: rows routed to its two terminals.
			var side [2][]int
			for _, i := range nd.rows {
				s := 0
				if e.x[i][nd.col] > nd.thr {
					s = 1
				}
				side[s] = append(side[s], i)
			}
			before := e.classCost(side[0])[-nd.tgt[0]-1] + e.classCost(side[1])[-nd.tgt[1]-1] + nodeCost
			cc := e.classCost(nd.rows)
			c := bestClass(cc, -1)
			if cc[c] >= before-1e-12 {
				continue
			}
			// Every parent must be able to link to terminal c.
			ok := true
			for _, p := range layers[l-1] {
				for s := range 2 {
					if p.tgt[s] == k && p.tgt[1-s] == -(c+1) {
						ok = false
					}
				}
			}
			if !ok {
				continue
			}
			for _, p := range layers[l-1] {
				for s := range 2 {
					switch {
					case p.tgt[s] == k:
						p.tgt[s] = -(c + 1)
					case p.tgt[s] > k:
						p.tgt[s]--
					}
				}
			}
			layers[l] = slices.Delete(layers[l], k, k+1)
			k--
		}
	}
}

// incumbent builds the graph of the layers and checks the side constraints.
func (e *Encoding) incumbent(layers [][]*hNode) *Incumbent {
	kind := model.KindDiagram
	if e.Opts.Tree {
		kind = model.KindTree
	}
	b := model.NewBuilder(e.data, kind)
	leaves := map[int]int{}
	ids := make([][]int, len(layers))
	count := 0
	for l := len(layers) - 1; l >= 0; l-- {
		ids[l] = make([]int, len(layers[l]))
		for k, nd := range layers[l] {
			var succ [2]int
			for s := range 2 {
				t := nd.tgt[s]
				switch {
				case t >= 0:
					succ[s] = ids[l+1][t]
				case kind == model.KindTree:
					succ[s] = b.Leaf(-t - 1)
				default:
					if _, ok := leaves[t]; !ok {
						leaves[t] = b.Leaf(-t - 1)
					}
					succ[s] = leaves[t]
				}
			}
			c := e.cols[nd.col]
			if c.level >= 0 {
				lv := e.data.Features[c.feature].Levels[c.level]
				if nd.thr > 1 {
					lv = noLevel
				}
				ids[l][k] = b.Category(c.feature, lv, succ[0], succ[1])
			} else {
				ids[l][k] = b.Threshold(c.feature, c.raw(min(nd.thr, 1)), succ[0], succ[1])
			}
			count++
		}
	}
	g := b.Graph(ids[0][0])
	if g.Validate() != nil {
		return nil
	}
	d := e.data
	inc := &Incumbent{Graph: g, Errors: g.Errors(d), Nodes: g.InternalNodes()}
	for i := range d.Rows() {
		if g.Predict(d, i) != d.Labels[i] {
			inc.Objective += e.cost(i)
		}
	}
	inc.Objective += e.NodeCost() * float64(inc.Nodes-1)
	if !e.satisfies(g, layers) {
		return nil
	}
	return inc
}

// satisfies checks the parsimony, stability and fairness options on g.
func (e *Encoding) satisfies(g *model.Graph, layers [][]*hNode) bool {
	o, d := e.Opts, e.data
	if o.MaxActive > 0 && g.InternalNodes() > o.MaxActive {
		return false
	}
	for l := 1; l < len(layers) && o.MinFlow > 0; l++ {
		for _, nd := range layers[l] {
			if len(nd.rows) < o.MinFlow {
				return false
			}
		}
	}
	if f := o.Fair; f != nil {
		g1, g0 := FairGroups(d, f.Column)
		if len(g1) > 0 && len(g0) > 0 {
			rate := func(rows []int) float64 {
				k := 0
				for _, i := range rows {
					if g.Predict(d, i) == f.Positive {
						k++
					}
				}
				return float64(k) / float64(len(rows))
			}
			r1, r0 := rate(g1), rate(g0)
			if r1 < f.Xi*r0-1e-12 || r0 < f.Xi*r1-1e-12 {
				return false
			}
		}
	}
	return true
}

// point writes the diagram of the layers as a MILP solution: nodes placed
// by decreasing in-degree within layers 1.. (constraint 12; in the tree
// case by their parent's slot), hyperplanes flipped where the negative
// side would link to the higher index (constraint 11), and the flows of
// every row along its path.
func (e *Encoding) point(layers [][]*hNode) []float64 {
	x := make([]float64, len(e.Model.Columns))
	D := len(layers)
	id := make([][]int, D) // skeleton node of each heuristic node
	flip := make([][]bool, D)
	id[0] = []int{e.layer[0][0]}
	global := func(l int, t int) int {
		if t < 0 {
			return e.nInt + (-t - 1)
		}
		return id[l+1][t]
	}
	for l := range D {
		flip[l] = make([]bool, len(layers[l]))
		if e.Opts.Tree {
			// A single child takes the negative slot; two terminals go
			// in index order.
			for k, nd := range layers[l] {
				t0, t1 := nd.tgt[0], nd.tgt[1]
				flip[l][k] = (t0 < 0 && t1 >= 0) || (t0 < 0 && t1 < 0 && -t0 > -t1)
			}
		}
		if l+1 < D {
			next := len(layers[l+1])
			id[l+1] = make([]int, next)
			if e.Opts.Tree {
				for k, nd := range layers[l] {
					slot := slices.Index(e.layer[l], id[l][k]) // position in layer l
					for s := range 2 {
						if t := nd.tgt[s]; t >= 0 {
							side := s
							if flip[l][k] {
								side = 1 - s
							}
							id[l+1][t] = e.layer[l+1][2*slot+side]
						}
					}
				}
			} else {
				indeg := make([]int, next)
				for _, nd := range layers[l] {
					for s := range 2 {
						if t := nd.tgt[s]; t >= 0 {
							indeg[t]++
						}
					}
				}
				order := make([]int, next)
				for k := range order {
					order[k] = k
				}
				// Layer 1 too (Options.FirstLayerOrder): its nodes all
				// have in-degree 1, so the sort keeps them in place.
				sort.SliceStable(order, func(a, b int) bool { return indeg[order[a]] > indeg[order[b]] })
				for pos, k := range order {
					id[l+1][k] = e.layer[l+1][pos]
				}
			}
		}
		if !e.Opts.Tree {
			for k, nd := range layers[l] {
				flip[l][k] = global(l, nd.tgt[0]) > global(l, nd.tgt[1])
			}
		}
	}
	// Design and hyperplanes (constraint 15 holds for unused nodes too).
	if !e.Opts.Multivariate {
		for u := range e.nInt {
			x[e.E[u][0]] = 1
		}
	}
	active := -1 // internal nodes but the root
	for l := range D {
		active += len(layers[l])
	}
	for k := 1; k <= active && k < len(e.Q); k++ {
		x[e.Q[k]] = 1
	}
	for l := range D {
		for k, nd := range layers[l] {
			u := id[l][k]
			x[e.D[u]] = 1
			for s := range 2 {
				side := s
				if flip[l][k] {
					side = 1 - s
				}
				v := global(l, nd.tgt[s])
				x[e.Y[side][u][slices.Index(e.succ[u], v)]] = 1
			}
			eps := e.cols[nd.col].eps
			a, b := 1.0, nd.thr+eps/2
			if nd.thr > 1 {
				a, b = 0, eps
			}
			if flip[l][k] {
				a, b = -a, -b+eps
			}
			x[e.A[u][nd.col]], x[e.B[u]] = a, b
			if !e.Opts.Multivariate {
				x[e.E[u][0]], x[e.E[u][nd.col]] = 0, 1
			}
		}
	}
	// Flows.
	for i := range e.data.Rows() {
		l, k := 0, 0
		for {
			nd := layers[l][k]
			u := id[l][k]
			s := 0
			if e.x[i][nd.col] > nd.thr {
				s = 1
			}
			side := s
			if flip[l][k] {
				side = 1 - s
			}
			x[e.W[side][i][u]] = 1
			x[e.Lambda[i][l]] = float64(side)
			v := global(l, nd.tgt[s])
			x[e.Z[side][i][u][slices.Index(e.succ[u], v)]] = 1
			if nd.tgt[s] < 0 {
				x[e.Leaf[i][v-e.nInt]] = 1
				break
			}
			l, k = l+1, nd.tgt[s]
		}
	}
	return x
}
