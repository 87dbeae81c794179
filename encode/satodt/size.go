package satodt

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/sat"
)

// Bytes per clause, literal and variable of a formula held twice (the
// CNF and the solver's copy, watches included), from the peak resident
// memory of solves: mushroom depth 2 (22.8M clauses, mostly of three
// literals) peaked at 1.53 GB, tic-tac-toe depth 2 (1.26M) at 127 MB.
const (
	clauseBytes = 48
	litBytes    = 8
	varBytes    = 64
)

// Size estimates the formula a search of depth d ≥ 1 builds with the
// given counter cut at limit (the incumbent's error), without building
// it: the tree's clauses, every group's, and the counter.
func (p *Prepared) Size(d int, counter Counter, limit int) backend.Size {
	var c backend.Counter
	nodes, leaves := int64(1)<<d-1, int64(1)<<d
	ng, nt, nk := int64(len(p.Groups)), int64(len(p.Tests)), int64(p.Classes)
	softs := int64(0)
	for _, g := range p.Groups {
		for _, w := range g.Count {
			if w > 0 {
				softs++
			}
		}
	}
	yVars := leaves
	if nk > 2 {
		yVars = c.Mul(leaves, nk)
	}
	// Tests per node (at least one), the sides of every group at every
	// node, tests not repeated below (at most nodes² pairs per test),
	// and at most one class per leaf.
	vars := c.Add(c.Mul(nodes, nt), c.Mul(nodes, ng), yVars, softs)
	clauses := c.Add(nodes, c.Mul(c.Mul(nodes, ng), nt), c.Mul(c.Mul(nodes, nodes), nt), c.Mul(leaves, nk*nk))
	lits := c.Add(c.Mul(nodes, nt), 2*c.Mul(c.Mul(nodes, ng), nt), 2*c.Mul(c.Mul(nodes, nodes), nt), c.Mul(leaves, nk*nk))
	var cs sat.CounterSize
	if counter == CountRows {
		// A clause per soft literal and leaf, and one totalizer.
		clauses = c.Add(clauses, c.Mul(softs, leaves))
		lits = c.Add(lits, c.Mul(c.Mul(softs, leaves), int64(d+2)))
		w := make([]int, 0, softs)
		for _, g := range p.Groups {
			for _, x := range g.Count {
				if x > 0 {
					w = append(w, x)
				}
			}
		}
		_, cs = sat.TotalizerSize(w, limit)
	} else {
		// A reach literal per leaf and group, a totalizer per leaf and
		// class (the same at every leaf), the leaves' errors and their
		// sums along the tree.
		vars = c.Add(vars, c.Mul(leaves, ng))
		clauses = c.Add(clauses, c.Mul(leaves, ng))
		lits = c.Add(lits, c.Mul(c.Mul(leaves, ng), int64(d+1)))
		w := make([]int, 0, ng)
		for k := range p.Classes {
			w = w[:0]
			for _, g := range p.Groups {
				if x := g.Total() - g.Count[k]; x > 0 {
					w = append(w, x)
				}
			}
			_, t := sat.TotalizerSize(w, limit)
			cs.Vars = c.Add(cs.Vars, c.Mul(leaves, t.Vars))
			cs.Clauses = c.Add(cs.Clauses, c.Mul(leaves, t.Clauses))
			cs.Lits = c.Add(cs.Lits, c.Mul(leaves, t.Lits))
		}
		perLeaf := int64(limit) * (nk + 3)
		cs.Vars = c.Add(cs.Vars, c.Mul(leaves, int64(limit)))
		cs.Clauses = c.Add(cs.Clauses, c.Mul(leaves, perLeaf))
		cs.Lits = c.Add(cs.Lits, c.Mul(c.Mul(leaves, perLeaf), nk+2))
		_, sum := sat.SumSize(limit, limit, limit)
		cs.Vars = c.Add(cs.Vars, c.Mul(leaves-1, sum.Vars))
		cs.Clauses = c.Add(cs.Clauses, c.Mul(leaves-1, sum.Clauses))
		cs.Lits = c.Add(cs.Lits, c.Mul(leaves-1, sum.Lits))
	}
	s := backend.Size{Variables: c.Add(vars, cs.Vars), Constraints: c.Add(clauses, cs.Clauses), NonZeros: c.Add(lits, cs.Lits)}
	s.Bytes = c.Add(c.Mul(s.Constraints, clauseBytes), c.Mul(s.NonZeros, litBytes), c.Mul(s.Variables, varBytes))
	if c.Over {
		s.Bytes = 1<<63 - 1
	}
	return s
}
