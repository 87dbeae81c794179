package dt1

import (
	"context"
	"fmt"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Settings control the search over the node count.
type Settings struct {
	// NewSolver returns a fresh solver for each node count (nil:
	// sat.NewCDCL).
	NewSolver func() (sat.Solver, error)
	// Options shape the formula.
	Options Options
	// Bisect bisects on the node count between the least count the
	// classes allow and the incumbent's, instead of trying 3, 5, 7, ...
	// upward. A refuted count then refutes every smaller one by the lemma
	// of MinNodes.
	Bisect bool
	// Down tries two below the best tree's count (the incumbent's, then
	// each tree found) until a count is refuted, which refutes every
	// smaller one by the lemma of MinNodes: one refutation proves the
	// optimum, the one just below it. Without an incumbent it starts at
	// MaxNodes when set, else it climbs as the upward search does.
	Down bool
	// MaxNodes, when positive, is the largest node count tried (leaves
	// included): no consistent tree within it is Infeasible.
	MaxNodes int
	// Incumbent, when not nil, is a tree with no error on the examples
	// (a greedy tree): the search stops at its node count, and bisection
	// starts from it.
	Incumbent *model.Graph
	// Report receives every improving tree with its node count.
	Report model.IncumbentFunc
	// Budget accounts each formula against the memory cap (nil: none).
	Budget *backend.Budget
	// Certify, when not nil, receives every refuted formula with its
	// proof (odtkit's CDCL only).
	Certify *sat.Certifier
	// Log, when set, receives a line per solver call.
	Log func(string)
}

// Outcome is the result of MinNodes.
type Outcome struct {
	// Model is the best tree found (nil: none), Nodes its node count.
	Model *model.Graph
	Nodes int
	// Optimal: no consistent tree has fewer nodes (within MaxNodes).
	Optimal bool
	// LowerBound is a proven lower bound on the node count.
	LowerBound int
	// Calls counts solver calls; Clauses and Vars describe the last
	// formula.
	Calls, Clauses, Vars int
	// Stopped: ctx ended first. Infeasible: no consistent tree of at most
	// MaxNodes nodes.
	Stopped, Infeasible bool
}

// leastNodes is the fewest nodes the classes allow: a tree with nc > 1
// classes among its examples has at least nc leaves, so 2nc−1 nodes.
func leastNodes(p *satjob.Examples) int {
	if nc := p.PresentClasses(); nc > 1 {
		return 2*nc - 1
	}
	return 1
}

// MinNodes finds the fewest nodes of a tree that classifies every example
// of p correctly. Each node count N is one formula of exactly N nodes on a
// fresh solver; satisfiable counts are decoded and checked.
//
// Upward (the default) tries N = 2c−1, 2c+1, ... for c classes until one
// is satisfiable: every smaller count is refuted, or impossible by the
// classes. Bisection (Settings.Bisect) and the descent (Settings.Down)
// rest on a lemma: when a
// consistent tree of M nodes exists and M < 2^(K+1)−1 for K features, one
// of M+2 nodes exists — a leaf whose path does not test every feature
// (there is one unless the tree is complete of depth K) splits on a
// feature its path does not test into two leaves of its class, which the
// formula admits (no feature twice on a path). Hence a refuted count
// refutes every smaller one below the incumbent's count, itself below
// 2^(K+1)−1 as a consistent tree never tests a feature twice on a path.
func MinNodes(ctx context.Context, p *satjob.Examples, s Settings) (*Outcome, error) {
	if s.Options.ImpureSplits && (s.Bisect || s.Down) {
		return nil, fmt.Errorf("impure-splits refutes one node count at a time: it needs the upward search")
	}
	out := &Outcome{}
	lo := leastNodes(p)
	out.LowerBound = lo
	if lo == 1 {
		g := singleLeaf(p)
		out.Model, out.Nodes, out.Optimal = g, 1, true
		s.Report.Report(1, g)
		return out, nil
	}
	// A consistent tree with at most one leaf per example exists: the
	// search ends by 2·examples−1.
	hi := 2*len(p.Reps) - 1
	if g := s.Incumbent; g != nil && g.Size() <= hi && (s.MaxNodes <= 0 || g.Size() <= s.MaxNodes) {
		out.Model, out.Nodes, hi = g, g.Size(), g.Size()
		s.Report.Report(float64(hi), g)
	}
	limit := hi
	if s.MaxNodes > 0 {
		limit = min(limit, s.MaxNodes)
	}
	for lo <= limit && (out.Model == nil || lo < out.Nodes) {
		n := lo
		switch {
		case s.Bisect && out.Model != nil:
			// The odd count halfway between lo and the incumbent's.
			n = lo + 2*((out.Nodes-lo)/4)
		case s.Down && out.Model != nil:
			n = out.Nodes - 2
		case s.Down && s.MaxNodes > 0:
			n = limit - (1 - limit%2) // the largest odd count within the limit
		}
		st, g, err := s.call(ctx, p, n, out)
		if err != nil {
			return nil, err
		}
		switch st {
		case sat.Unknown:
			out.Stopped = true
			return out, nil
		case sat.Satisfiable:
			if g.Size() > n || g.Size() < lo {
				return nil, fmt.Errorf("internal error: the formula of %d nodes gave a tree of %d nodes with %d proven the least", n, g.Size(), lo)
			}
			out.Model, out.Nodes = g, g.Size()
			s.Report.Report(float64(out.Nodes), g)
		default:
			lo = n + 2
			out.LowerBound = lo
		}
	}
	if out.Model == nil {
		out.Infeasible = true
		return out, nil
	}
	out.Optimal = true
	out.LowerBound = out.Nodes
	return out, nil
}

// proofName names the proof of n nodes in a certificate.
func proofName(n int) string { return fmt.Sprintf("nodes%d", n) }

// call solves the formula of exactly n nodes on a fresh solver: the
// decoded tree (simplified, checked on every example) when satisfiable.
// A refutation goes to the certificate.
func (s *Settings) call(ctx context.Context, p *satjob.Examples, n int, out *Outcome) (sat.Status, *model.Graph, error) {
	if ctx.Err() != nil {
		return sat.Unknown, nil, nil
	}
	start := time.Now()
	e, err := Encode(ctx, s.Budget, p.View, p.Tests, p.Reps, n, s.Options)
	if err != nil {
		if ctx.Err() != nil {
			return sat.Unknown, nil, nil
		}
		return sat.Unknown, nil, err
	}
	defer e.Release()
	newSolver := s.NewSolver
	if newSolver == nil {
		newSolver = func() (sat.Solver, error) { return sat.NewCDCL(), nil }
	}
	solver, err := newSolver()
	if err != nil {
		return sat.Unknown, nil, err
	}
	if s.Certify != nil {
		if err := s.Certify.Start(solver, proofName(n)); err != nil {
			return sat.Unknown, nil, err
		}
	}
	sat.AddCNF(solver, e.CNF, 0)
	out.Calls++
	out.Clauses, out.Vars = e.CNF.NumClauses(), e.CNF.NumVars
	st, err := solver.Solve(ctx)
	if err != nil {
		return sat.Unknown, nil, err
	}
	if s.Log != nil {
		s.Log(fmt.Sprintf("%d nodes: %s, %d variables, %d clauses, %.3fs", n, st, e.CNF.NumVars, e.CNF.NumClauses(), time.Since(start).Seconds()))
	}
	switch st {
	case sat.Satisfiable:
		if s.Certify != nil {
			s.Certify.Drop(solver)
		}
		g, err := e.decodeChecked(solver.Value)
		return st, g, err
	case sat.Unsatisfiable:
		if s.Certify != nil {
			ref, err := satjob.LastRefuted(solver, nil, n+2)
			if err != nil {
				return sat.Unknown, nil, err
			}
			if err := s.Certify.Finish(ctx, solver, proofName(n), nil, ref); err != nil {
				return sat.Unknown, nil, err
			}
		}
	default:
		if s.Certify != nil {
			s.Certify.Drop(solver)
		}
	}
	return st, nil, nil
}

// singleLeaf is a leaf of the examples' class (the first class when there
// is no example).
func singleLeaf(p *satjob.Examples) *model.Graph {
	c := 0
	if len(p.Reps) > 0 {
		c = p.View.Data.Labels[p.Reps[0]]
	}
	b := model.NewBuilder(p.View.Data, model.KindTree)
	return b.Graph(b.Leaf(c))
}
