package milpjob

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Decode reads a MILP solver's solution file (see milp.ReadSolution)
// for m, checks the point against m's bounds and constraints, and turns
// it into a result on the data d for the problem p with decode (the
// formulation's own reading of a point as a model). Solvers print
// rounded values, so the check is loose (1e-5). The objective value the
// file states must be the point's objective, constant included (read
// the way one of the solvers reads an MPS constant: see
// milp.ObjectiveReading); a mismatch names both values. The solver's
// "optimal" or "infeasible" is its claim, which odtkit cannot check: a
// claimed optimum whose point's objective is the decoded model's is the
// result's claimed bound (model.Result.Claim), a claimed infeasibility
// an infeasible status resting on the claim; the selector then reports
// them as feasible and no-solution unless the solver is trusted.
//
// A point is never dropped for the solver's word: a point the file
// lists under "infeasible" (or values it lists under a stop without a
// solution, when they check) is decoded as any other, feasible and
// claiming nothing. witness, when not nil, is a point of m the
// formulation knows without any solver (its greedy tree or heuristic
// diagram; nil when it has none): a claimed infeasibility without a
// point is then refused with ErrRefutedInfeasible, since m has a point.
// A file that cannot be read, or whose point is not one of m, is an
// error wrapping backend.ErrInvalid and backend.ErrAnswer.
func Decode(r io.Reader, m *milp.Model, decode func(x []float64) (*model.Graph, error), d *model.Dataset, p model.Problem, witness func() []float64) (res *model.Result, err error) {
	// The file is read to its end: no context stops it.
	defer backend.Settled(context.Background(), nil, &res, &err)
	sol, err := milp.ReadSolution(r, m)
	if err != nil {
		return nil, backend.Answer(backend.Invalid(err))
	}
	res = &model.Result{Stats: map[string]any{"solution_format": sol.Format, "solver_status": sol.SolverStatus}}
	if sol.HasObjective {
		res.Stats["solver_objective"] = sol.Objective
	}
	if sol.Stray && m.CheckPoint(sol.X, 1e-5) != nil {
		sol.X = nil // values listed under "no solution" that are none
	}
	by := "the solver's answer (" + sol.SolverStatus + ")"
	switch {
	case sol.X == nil && sol.Status == milp.StatusInfeasible:
		if witness != nil {
			if x := witness(); x != nil && m.CheckPoint(x, 1e-9) == nil {
				// A wrong claim, not a malformed file: the solver failed.
				return nil, backend.Answer(fmt.Errorf("%w: the answer says %q, but the MILP has a point: %s", ErrRefutedInfeasible, sol.SolverStatus, witnessNote(m, x)))
			}
		}
		res.Infeasible, res.Stop = true, model.StopNone
		res.ClaimedBy = by
		return res, nil
	case sol.X == nil:
		res.Stop = model.StopNone // read to its end: no model
		return res, nil
	}
	if err := m.CheckPoint(sol.X, 1e-5); err != nil {
		return nil, backend.Answer(backend.Invalidf("the %s solution is not a point of the MILP: %w", sol.Format, err))
	}
	value := m.Objective(sol.X)
	if sol.HasObjective && !sol.Stray {
		reading, ok := milp.ObjectiveReading(sol.Objective, value, m.Offset)
		if !ok {
			return nil, backend.Answer(backend.Invalidf("%w: the %s solution states objective %v, but its point's objective is %v (objective constant %v included)", milp.ErrSolution, sol.Format, sol.Objective, value, m.Offset))
		}
		res.Stats["solver_objective_reading"] = reading
	}
	g, err := decode(sol.X)
	if err != nil {
		return nil, backend.Answer(backend.Invalid(err))
	}
	res.Model = g
	res.Errors = g.Errors(d)
	res.Objective = p.Evaluate(d, g)
	res.Stop = model.StopNone
	res.Stats["decoded_objective"] = res.Objective
	res.Stats["milp_objective"] = value
	if sol.Status == milp.StatusInfeasible || sol.Stray {
		// The solver's own point refutes its "infeasible" (or its "no
		// solution"): the point is kept, the word is not.
		res.Stats["solver_claim_refuted"] = sol.SolverStatus
	}
	if sol.Status == milp.StatusOptimal && Same(res.Objective, value) {
		// The MILP's optimum is the model's objective: the solver's word
		// that nothing is better.
		res.Claim(res.Objective, by)
	}
	return res, nil
}

// ErrRefutedInfeasible is wrapped by Decode's error about a solver's
// claim that a MILP with a known point is infeasible: a wrong answer,
// refused as a failure of the solver (not bad input).
var ErrRefutedInfeasible = errors.New("the solver claims infeasibility of a MILP that has a point")

// witnessNote describes a witness point by its objective.
func witnessNote(m *milp.Model, x []float64) string {
	return fmt.Sprintf("odtkit's own construction is one, of objective %v; the solver's answer is wrong", m.Objective(x))
}
