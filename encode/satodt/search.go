package satodt

import (
	"context"
	"fmt"
	"math"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Settings control a search.
type Settings struct {
	// NewSolver returns the SAT solver (nil: odtkit's CDCL).
	NewSolver func() (sat.Solver, error)
	// Bisect tries the middle of [lower bound, incumbent) at each step
	// instead of one below the incumbent: refuted bounds raise the lower
	// bound early, satisfied ones may improve less.
	Bisect bool
	// PerRoot refutes each bound one root test at a time: the solver
	// proves no tree with that root test does better (a search over
	// two independent subtrees), keeps that as a clause and moves to
	// the next test. The whole tree at once leaves the solver to find
	// the split itself.
	PerRoot bool
	// MaxClauses refuses formulas estimated (Estimate) above that
	// many clauses, counter included
	// (0: no cap); the search then ends with the incumbent, unproven.
	MaxClauses int64
	// Options shape the formula.
	Options Options
	// Report receives each improving tree with its weighted error.
	Report model.IncumbentFunc
	// Counter is how Search counts the error: CounterRows (one counter
	// over the soft literals) or CounterLeaves (one per leaf, summed along
	// the tree).
	Counter Counter
	// Certify, when not nil, receives the formula, proof and refutation
	// that prove Search's optimum (odtkit's CDCL only; not SearchRows).
	Certify *sat.Certifier
}

// Search finds a minimum-error tree of depth at most d ≥ 1, starting
// from incumbent (a tree of depth at most d with weighted error cost on
// the prepared data). It encodes the complete tree once, adds a
// totalizer cut at the incumbent's error and asks the solver for ever
// smaller bounds through assumptions: a satisfiable bound gives a
// better tree (reported), a refuted bound k proves k+1 (on the trees of
// one root test with Settings.PerRoot, on all of them otherwise).
func Search(ctx context.Context, p *satjob.Prepared, d int, incumbent *model.Graph, cost int, s Settings) (*satjob.Outcome, error) {
	out, greedy, done := s.begin(p, d, incumbent, cost)
	if done {
		return out, nil
	}
	fo := s.Options
	fo.sidesOnly = s.Counter != CounterRows
	f, err := Encode(ctx, p, d, fo)
	if err != nil {
		return out.Ended(ctx, err)
	}
	start := f.Values(p, greedy)
	if ok, _ := f.CNF.Satisfies(start); !ok {
		return nil, fmt.Errorf("satodt: the greedy tree does not satisfy the formula")
	}
	capCost := out.Cost
	tot, err := s.counter(ctx, f, p, capCost)
	if err != nil {
		return out.Ended(ctx, err)
	}
	out.Vars, out.Clauses = f.CNF.NumVars, f.CNF.NumClauses()
	solver, err := s.open(ctx, f.CNF, start)
	if err != nil {
		return out.Ended(ctx, err)
	}
	defer satjob.Close(solver)
	dc := satjob.Descent{
		Solver:  solver,
		AtLeast: tot.AtLeast,
		Cap:     tot.Cap,
		Bisect:  s.Bisect,
		Certify: s.Certify != nil,
		Model: func(k int) (int, error) {
			g, err := f.Decode(p, solver.Value)
			if err != nil {
				return 0, err
			}
			e := g.WeightedErrors(p.View.Data)
			got := int(math.Round(e))
			if got > k || (!f.sidesOnly && got > f.Cost(solver.Value)) {
				return 0, fmt.Errorf("the solver's tree makes %v errors, above the bound %d or the formula's count %d", e, k, f.Cost(solver.Value))
			}
			out.Model = g
			s.Report.Report(e, g)
			return got, nil
		},
	}
	if s.PerRoot {
		for _, t := range p.RootOrder() {
			dc.Parts = append(dc.Parts, f.F.Lit(0, t))
		}
	}
	r, err := dc.Run(ctx, out.Cost, out.LowerBound)
	if err == nil {
		err = r.Certify(ctx, s.Certify, solver, satjob.DescentProof, out.LowerBound, satjob.CapEncoding(capCost))
		if err != nil && ctx.Err() != nil {
			// Stopped while the proof was written: the bound is not
			// certified, the best tree is kept.
			r.Optimal, r.Stopped, r.LowerBound, err = false, true, out.LowerBound, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("satodt: %w", err)
	}
	out.Cost, out.LowerBound, out.Optimal, out.Stopped = r.Cost, r.LowerBound, r.Optimal, r.Stopped
	out.Calls, out.Steps = r.Calls, r.Steps
	return out, nil
}

// begin starts a search of depth d from the incumbent of error cost:
// the better of it and the greedy complete tree (the counters are cut at
// the incumbent's error, so the greedy tree is taken before the formula
// is sized; a solver that takes phases starts its search there). done is
// set when nothing is left to search: the incumbent meets the floor, or
// the formula would pass Settings.MaxClauses.
func (s Settings) begin(p *satjob.Prepared, d int, incumbent *model.Graph, cost int) (out *satjob.Outcome, greedy Assignment, done bool) {
	out = &satjob.Outcome{Model: incumbent, Cost: cost, LowerBound: p.Floor}
	if out.LowerBound < out.Cost {
		greedy = Greedy(p, d, s.Options)
		g := Tree(p, greedy)
		if e := int(math.Round(g.WeightedErrors(p.View.Data))); e < out.Cost {
			out.Model, out.Cost = g, e
			s.Report.Report(float64(e), g)
		}
	}
	if out.LowerBound >= out.Cost {
		out.LowerBound, out.Optimal = out.Cost, true
		return out, greedy, true
	}
	if s.MaxClauses > 0 && Estimate(p, d, s.Counter, out.Cost).Constraints > s.MaxClauses {
		out.TooLarge = true
		return out, greedy, true
	}
	return out, greedy, false
}

// SearchRows finds the same optimum as Search by a lower-bounding search
// on a growing set of groups: the formula holds only the groups met so
// far, and the bound k starts at the known lower bound. When no tree
// makes at most k errors on those groups, none does on all rows either:
// k+1 is a lower bound. When one does, its error on all rows is computed;
// at most k proves it optimal, else the groups it misclassifies join the
// formula and the same bound is tried again. Every tree found is a
// candidate incumbent, so the search is anytime on both sides; its
// proofs are on fewer rows than the whole formula's.
func SearchRows(ctx context.Context, p *satjob.Prepared, d int, incumbent *model.Graph, cost int, s Settings) (*satjob.Outcome, error) {
	out, greedy, done := s.begin(p, d, incumbent, cost)
	if done {
		return out, nil
	}
	cost = out.Cost
	fo := s.Options
	fo.sidesOnly = s.Counter != CounterRows
	f, err := NewEncoding(p, d, fo)
	if err != nil {
		return nil, err
	}
	solver, err := s.open(ctx, nil, f.Values(p, greedy))
	if err != nil {
		return nil, err
	}
	defer satjob.Close(solver)
	var count errorCount = rowCount(f, cost)
	if s.Counter != CounterRows {
		lc := newLeafCount(f, p, cost, true)
		lc.gated = true
		count = lc
	}
	var tot *sat.Totalizer
	in := make([]bool, len(p.Groups))
	added := 0
	// add puts groups into the formula and the counter.
	add := func(groups []int) error {
		var fresh []int
		for _, g := range groups {
			if !in[g] {
				in[g] = true
				f.AddGroup(p, g)
				fresh = append(fresh, g)
			}
		}
		t, err := count.add(ctx, fresh)
		if err != nil {
			return err
		}
		tot = t
		added = sat.AddCNF(solver, f.CNF, added)
		return nil
	}
	// The groups the incumbent misclassifies start the set.
	if err := add(misclassified(p, out.Model, in)); err != nil {
		return out.Ended(ctx, err)
	}
	val := solver.Value
	for out.LowerBound < out.Cost {
		k := out.LowerBound
		st, err := solver.Solve(ctx, append(tot.AtMost(k), count.assume()...)...)
		out.Calls++
		if err != nil {
			return nil, fmt.Errorf("satodt: solver: %w", err)
		}
		step := satjob.Step{Part: -1, Bound: k, Status: st}
		switch st {
		case sat.Unknown:
			out.Stopped = true
			out.Steps = append(out.Steps, step)
			out.Vars, out.Clauses = f.CNF.NumVars, f.CNF.NumClauses()
			return out, nil
		case sat.Unsatisfiable:
			out.LowerBound = k + 1
		case sat.Satisfiable:
			g, err := f.Decode(p, val)
			if err != nil {
				return nil, fmt.Errorf("satodt: %w", err)
			}
			e := g.WeightedErrors(p.View.Data)
			got := int(math.Round(e))
			step.Cost = got
			if got < out.Cost {
				out.Model, out.Cost = g, got
				s.Report.Report(e, g)
			}
			if got > k {
				more := misclassified(p, g, in)
				if len(more) == 0 {
					return nil, fmt.Errorf("satodt: the solver's tree makes %d errors, above the bound %d, on the groups of the formula", got, k)
				}
				if err := add(more); err != nil {
					return out.Ended(ctx, err)
				}
			}
		}
		out.Steps = append(out.Steps, step)
	}
	out.Vars, out.Clauses = f.CNF.NumVars, f.CNF.NumClauses()
	out.LowerBound = out.Cost
	out.Optimal = true
	return out, nil
}

// misclassified lists the groups not yet in the formula (in[g] false)
// some of whose rows tree g misclassifies.
func misclassified(p *satjob.Prepared, g *model.Graph, in []bool) []int {
	var out []int
	d := p.View.Data
	for i, gr := range p.Groups {
		if in[i] {
			continue
		}
		k := g.Predict(d, gr.Rep)
		for c, w := range gr.Count {
			if c != k && w > 0 {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// restartUnit is the conflicts per Luby unit of odtkit's CDCL on these
// formulas, a third of its default: more frequent restarts shortened the
// refutation of the bound below the optimum on lymph, vote and hepatitis at
// depth 3 (docs/benchmarks.md, "The search").
const restartUnit = 100

// open makes the search's solver (odtkit's CDCL when NewSolver is nil)
// with the clauses of c (when not nil; loaded under ctx), the restart
// unit and, where the solver takes them, the phases of start (a value
// per variable, entry 0 unused).
func (s Settings) open(ctx context.Context, c *sat.CNF, start []bool) (sat.Solver, error) {
	solver, err := satjob.Open(ctx, s.NewSolver, c, s.Certify, satjob.DescentProof)
	if err != nil {
		return nil, err
	}
	if r, ok := solver.(interface{ SetRestartUnit(int) }); ok {
		r.SetRestartUnit(restartUnit)
	}
	if ph, ok := solver.(interface{ SetPhase(sat.Lit) }); ok {
		for v := 1; v < len(start); v++ {
			if start[v] {
				ph.SetPhase(sat.Lit(v))
			} else {
				ph.SetPhase(-sat.Lit(v))
			}
		}
	}
	return solver, nil
}
