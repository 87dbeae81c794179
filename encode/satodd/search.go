package satodd

import (
	"context"
	"errors"
	"fmt"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Settings control a search.
type Settings struct {
	// NewSolver returns the SAT solver (nil: odtkit's CDCL).
	NewSolver func() (sat.Solver, error)
	// PerRoot refutes each bound one root test at a time (see
	// satjob.Descent) instead of on the whole diagram at once.
	PerRoot bool
	// MaxClauses is the clause budget of the formula and its counter (0:
	// none); past it the search ends with the incumbent, unproven.
	MaxClauses int64
	// Report receives each better diagram with its cost (Costs.Cost).
	Report model.IncumbentFunc
	// Certify, when not nil, receives the formula, proof and refutation
	// that prove the optimum (odtkit's CDCL only).
	Certify *sat.Certifier
}

// Search descends from incumbent (a diagram of scaled cost cost) through
// ever smaller bounds until one is refuted. The bound is a
// sat.SumCounter over the soft literals (an output per reachable sum:
// the scaled weights share large factors).
func Search(ctx context.Context, p *satjob.Prepared, skeleton []int, costs Costs, incumbent *model.Graph, cost int, s Settings) (*satjob.Outcome, error) {
	out := &satjob.Outcome{Model: incumbent, Cost: cost}
	floor := p.Floor * costs.Error
	out.LowerBound = floor
	if floor >= cost {
		out.LowerBound, out.Optimal = cost, true
		return out, nil
	}
	if s.MaxClauses > 0 && Estimate(p, skeleton).Constraints > s.MaxClauses {
		out.TooLarge = true
		return out, nil
	}
	f, err := Encode(ctx, p, skeleton, costs)
	if err != nil {
		return out.Ended(ctx, err)
	}
	lits := make([]sat.Lit, len(f.Soft))
	ws := make([]int, len(f.Soft))
	for i, s := range f.Soft {
		lits[i], ws[i] = s.Lit, int(s.Weight)
	}
	if s.MaxClauses > 0 && int64(f.CNF.NumClauses()) > s.MaxClauses {
		out.TooLarge = true
		return out, nil
	}
	tot, err := sat.NewSumCounter(ctx, f.CNF, lits, ws, cost, int(s.MaxClauses))
	if err != nil {
		if errors.Is(err, sat.ErrTooLarge) {
			out.TooLarge = true
			return out, nil
		}
		return out.Ended(ctx, err)
	}
	out.Vars, out.Clauses = f.CNF.NumVars, f.CNF.NumClauses()
	solver, err := satjob.Open(ctx, s.NewSolver, f.CNF, s.Certify, satjob.DescentProof)
	if err != nil {
		return out.Ended(ctx, err)
	}
	defer satjob.Close(solver)
	d := p.View.Data
	dc := satjob.Descent{
		Solver:  solver,
		AtLeast: tot.AtLeast,
		Cap:     tot.Cap,
		Certify: s.Certify != nil,
		Model: func(k int) (int, error) {
			g, err := f.Decode(p, solver.Value)
			if err != nil {
				return 0, err
			}
			got := costs.Cost(d, g)
			if got > k {
				return 0, fmt.Errorf("satodd: the solver's diagram costs %d, above the bound %d", got, k)
			}
			out.Model = g
			s.Report.Report(float64(got), g)
			return got, nil
		},
	}
	if s.PerRoot {
		for _, t := range p.RootOrder() {
			dc.Parts = append(dc.Parts, f.F.Lit(0, t))
		}
	}
	r, err := dc.Run(ctx, out.Cost, out.LowerBound)
	if err != nil {
		return nil, err // Decode's and Model's errors name the package already
	}
	err = r.Certify(ctx, s.Certify, solver, satjob.DescentProof, floor, satjob.CapEncoding(cost))
	if err != nil && ctx.Err() != nil {
		// Stopped while the proof was written: the bound is not
		// certified, the best diagram is kept.
		r.Optimal, r.Stopped, r.LowerBound, err = false, true, floor, nil
	}
	if err != nil {
		return nil, fmt.Errorf("satodd: %w", err)
	}
	out.Cost, out.LowerBound, out.Optimal, out.Stopped, out.Calls, out.Steps = r.Cost, r.LowerBound, r.Optimal, r.Stopped, r.Calls, r.Steps
	return out, nil
}

// stump is the root alone with the kept test whose two sides'
// majorities err least, each side to its majority class (a leaf of the
// majority class when no test splits the data). The tests are tried in
// order and ctx is polled between them: once it is done, the best stump
// among the tests tried so far is returned.
func stump(ctx context.Context, p *satjob.Prepared) *model.Graph {
	d := p.View.Data
	b := model.NewBuilder(d, model.KindDiagram)
	cnt := make([]float64, p.Classes)
	for _, g := range p.Groups {
		for k, w := range g.Count {
			cnt[k] += float64(w)
		}
	}
	best, bestErr, bk := -1, 0.0, [2]int{}
	side := [2][]float64{make([]float64, p.Classes), make([]float64, p.Classes)}
	for t := range p.Tests {
		if t%64 == 0 && ctx.Err() != nil {
			break
		}
		// Only the high side is counted; the low side is the rest.
		clear(side[1])
		for gi, g := range p.Groups {
			if !p.Value(gi, t) {
				continue
			}
			for k, w := range g.Count {
				side[1][k] += float64(w)
			}
		}
		for k := range side[0] {
			side[0][k] = cnt[k] - side[1][k]
		}
		k0, e0 := model.Majority(side[0])
		k1, e1 := model.Majority(side[1])
		if best < 0 || e0+e1 < bestErr {
			best, bestErr, bk = t, e0+e1, [2]int{k0, k1}
		}
	}
	if best < 0 || bk[0] == bk[1] {
		// No test, or the best split predicts one class on both sides:
		// the single leaf errs no more and has no internal node.
		k, _ := model.Majority(cnt)
		return b.Graph(b.Leaf(k))
	}
	lo := b.Leaf(bk[0])
	hi := b.Leaf(bk[1])
	return b.Graph(b.Split(p.View.Tests[p.Tests[best]], lo, hi))
}
