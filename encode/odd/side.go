package odd

import (
	"fmt"

	"github.com/odtkit/odtkit/milp"
)

// sideConstraints adds the constraints beyond the paper's formulation
// that the options ask for: parsimony (at most MaxActive active internal
// nodes), the tree's node limit (MaxNodes), stability (constraint 20:
// at least MinFlow rows through every active internal node but the root)
// and fairness (constraint 19: demographic parity between the groups of
// Fair.Column).
func (e *Encoding) sideConstraints() {
	o, d, row, inf := e.Opts, e.data, e.row, milp.Inf
	n, V := d.Rows(), e.nInt
	if o.MaxActive > 0 {
		ts := make([]term, V)
		for u := range V {
			ts[u] = term{e.D[u], 1}
		}
		row("parsimony", -inf, float64(o.MaxActive), ts...)
	}
	if o.MaxNodes > 0 {
		// A tree of a active internal nodes has 2a+1 nodes.
		ts := make([]term, V)
		for u := range V {
			ts[u] = term{e.D[u], 1}
		}
		row("max_nodes", -inf, float64((o.MaxNodes-1)/2), ts...)
	}
	if o.MinFlow > 0 {
		for v := 1; v < V; v++ {
			ts := []term{{e.D[v], -float64(o.MinFlow)}}
			for i := range n {
				ts = append(ts, term{e.W[Neg][i][v], 1}, term{e.W[Pos][i][v], 1})
			}
			row(fmt.Sprintf("c20_%d", v), 0, inf, ts...)
		}
	}
	if f := o.Fair; f != nil {
		g1, g0 := FairGroups(d, f.Column)
		if len(g1) > 0 && len(g0) > 0 {
			// rate(ga) ≥ ξ·rate(gb), multiplied by |ga|·|gb|, both ways.
			for k, gs := range [][2][]int{{g1, g0}, {g0, g1}} {
				var ts []term
				for _, i := range gs[0] {
					ts = append(ts, term{e.Leaf[i][f.Positive], float64(len(gs[1]))})
				}
				for _, i := range gs[1] {
					ts = append(ts, term{e.Leaf[i][f.Positive], -f.Xi * float64(len(gs[0]))})
				}
				row(fmt.Sprintf("c19_%d", k), 0, inf, ts...)
			}
		}
	}
}
