// Package satodd learns a decision diagram on a skeleton of layer widths
// from a propositional model, with the objective and the meaning of an
// inactive node of the ODD flow MILP (package odd): the misclassification
// rate plus α × (active internal nodes − 1)/(skeleton nodes − 1); an
// active node tests one binary-view test and sends each side to an
// active node of the next layer or to a class; an inactive node takes no
// row and costs nothing.
//
// Row weights are whole numbers: the error rate is the misclassified
// weight over the total weight W (W = n rows without weights). The
// objective, scaled by W·(skeleton nodes − 1)·10^p (α = a/10^p), is a
// whole-number sum: a weight per misclassified unit of row weight and
// one per active non-root node, divided by their greatest common
// divisor. A generalized totalizer over those weighted literals
// (sat.SumCounter: an output per reachable sum, few when the weights
// share a large factor) bounds it, and the search descends from a stump
// (the root alone, its two sides to their majority classes) until the
// bound is refuted, one root test at a time, as package satodt does for
// trees (satjob.Descent).
package satodd

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Costs are the whole-number weights of the scaled objective.
type Costs struct {
	Error, Node int
}

// maxUnit caps the counter's cut: above it the unary count is too large.
const maxUnit = 200_000

// ScaledCosts turns the objective errors/n + α(k−1)/(S−1) into whole
// weights proportional to it: Error per misclassified row (per unit of
// row weight, n then the total weight), Node per active internal node
// but the root. α is read as the shortest decimal that prints as it.
func ScaledCosts(n int, skeleton []int, alpha float64) (Costs, error) {
	total := 0
	for _, w := range skeleton {
		total += w
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(alpha, 'g', -1, 64))
	if !ok || r.Sign() < 0 {
		return Costs{}, fmt.Errorf("satodd: alpha %v is not a non-negative decimal", alpha)
	}
	// errors·(S−1)·den + num·n·(k−1), with α = num/den.
	e := new(big.Int).Mul(big.NewInt(int64(max(total-1, 1))), r.Denom())
	k := new(big.Int).Mul(r.Num(), big.NewInt(int64(n)))
	if total <= 1 {
		k.SetInt64(0) // a single node: no node term
	}
	g := new(big.Int).GCD(nil, nil, e, k)
	if k.Sign() == 0 {
		g.Set(e)
	}
	e.Quo(e, g)
	k.Quo(k, g)
	if !e.IsInt64() || !k.IsInt64() || e.Int64() > maxUnit || k.Int64() > maxUnit {
		return Costs{}, fmt.Errorf("satodd: alpha %v with %d rows and %d skeleton nodes needs weights %v per error and %v per node: too large for the unary counter", alpha, n, total, e, k)
	}
	return Costs{Error: int(e.Int64()), Node: int(k.Int64())}, nil
}

// Encoding is the diagram on the skeleton as clauses. Nodes are numbered
// layer by layer (root 0); Succ[u] lists, per side, the targets of node
// u: the nodes of the next layer, then the classes.
type Encoding struct {
	CNF      *sat.CNF
	Layers   [][]int
	NumNodes int
	Classes  int
	// A[u]: node u is active (the root always is).
	A sat.Group
	// F[u][test]: node u tests the kept test (at least one when active).
	F sat.Group
	// L[u][group]: the group goes low at node u.
	L sat.Group
	// R[u][group]: the group reaches node u (forced along its path).
	R sat.Group
	// Arc[side][u] lists the arc literals of node u's side: to each node
	// of the next layer, then to each class (exactly one when active).
	Arc [2][][]sat.Lit
	// Soft literals: errors (group, class) and active non-root nodes.
	Soft []sat.WeightedLit
}

// Encode builds the formula for the prepared data on the skeleton.
func Encode(ctx context.Context, p *satjob.Prepared, skeleton []int, costs Costs) (*Encoding, error) {
	if len(p.Tests) == 0 {
		return nil, fmt.Errorf("satodd: no test splits the data")
	}
	f := &Encoding{CNF: &sat.CNF{}, Classes: p.Classes}
	c := f.CNF
	for _, w := range skeleton {
		var layer []int
		for range w {
			layer = append(layer, f.NumNodes)
			f.NumNodes++
		}
		f.Layers = append(f.Layers, layer)
	}
	nn, nt, ng, nc := f.NumNodes, len(p.Tests), len(p.Groups), p.Classes
	f.A = c.NewGroup("A", "A[u]: internal node u (layer by layer, root 0) is active", nn)
	f.F = c.NewGroup("F", "F[u][test]: node u tests kept test", nn, nt)
	f.L = c.NewGroup("L", "L[u][group]: the group goes low (test false) at node u", nn, ng)
	f.R = c.NewGroup("R", "R[u][group]: the group reaches node u", nn, ng)
	layerOf := make([]int, nn)
	for l, layer := range f.Layers {
		for _, u := range layer {
			layerOf[u] = l
		}
	}
	targets := func(u int) []int { // next-layer nodes
		if l := layerOf[u]; l+1 < len(f.Layers) {
			return f.Layers[l+1]
		}
		return nil
	}
	for s := range 2 {
		f.Arc[s] = make([][]sat.Lit, nn)
		for u := range nn {
			for range len(targets(u)) + nc {
				f.Arc[s][u] = append(f.Arc[s][u], c.NewVar())
			}
		}
	}
	c.Add(f.A.Lit(0))
	for u := range nn {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		act := f.A.Lit(u)
		lits := []sat.Lit{act.Not()}
		for t := range nt {
			lits = append(lits, f.F.Lit(u, t))
		}
		c.Add(lits...)
		for s := range 2 {
			arcs := f.Arc[s][u]
			c.Add(append([]sat.Lit{act.Not()}, arcs...)...)
			for i := range arcs {
				if i%1024 == 1023 && ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				c.Add(act, arcs[i].Not())
				for j := i + 1; j < len(arcs); j++ {
					c.Add(arcs[i].Not(), arcs[j].Not())
				}
			}
			for i, v := range targets(u) {
				c.Add(arcs[i].Not(), f.A.Lit(v))
			}
		}
		if u > 0 && costs.Node > 0 {
			f.Soft = append(f.Soft, sat.WeightedLit{Lit: act, Weight: int64(costs.Node)})
		}
	}
	errLit := make([][]sat.Lit, ng)
	for g, gr := range p.Groups {
		errLit[g] = make([]sat.Lit, nc)
		for k, w := range gr.Count {
			if w > 0 {
				errLit[g][k] = c.NewVar()
				f.Soft = append(f.Soft, sat.WeightedLit{Lit: errLit[g][k], Weight: int64(w) * int64(costs.Error)})
			}
		}
	}
	for u := range nn {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		tg := targets(u)
		for g := range ng {
			if g%64 == 63 && ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			lo, reach := f.L.Lit(u, g), f.R.Lit(u, g)
			if u == 0 {
				c.Add(reach)
			}
			for t := range nt {
				if p.Value(g, t) {
					c.Add(f.F.Lit(u, t).Not(), lo.Not())
				} else {
					c.Add(f.F.Lit(u, t).Not(), lo)
				}
			}
			for s := range 2 {
				side := lo.Not() // the group does not go to side s: low side needs lo
				if s == 1 {
					side = lo
				}
				for i, v := range tg {
					c.Add(reach.Not(), side, f.Arc[s][u][i].Not(), f.R.Lit(v, g))
				}
				for k := range nc {
					for k2, e := range errLit[g] {
						if e != 0 && k2 != k {
							c.Add(reach.Not(), side, f.Arc[s][u][len(tg)+k].Not(), e)
						}
					}
				}
			}
		}
	}
	return f, nil
}

// Cost is the scaled objective of a diagram on the data (whole row
// weights).
func (c Costs) Cost(d *model.Dataset, g *model.Graph) int {
	return int(math.Round(g.WeightedErrors(d)))*c.Error + max(g.InternalNodes()-1, 0)*c.Node
}

// objectiveOf maps a scaled cost back to the objective's scale (for a
// lower bound), n the total row weight.
func objectiveOf(cost int, costs Costs, n int) float64 {
	if costs.Error == 0 {
		return 0
	}
	return float64(cost) / float64(costs.Error) / float64(n) * (1 - 1e-12)
}

// totalWeight is the data's total row weight (whole weights: Check
// refuses others), n rows without weights.
func totalWeight(d *model.Dataset) int { return int(math.Round(d.TotalWeight())) }
