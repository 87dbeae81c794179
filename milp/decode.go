package milp

import (
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// DecodeResult reads a MILP solver's solution file (HiGHS, CBC or GLPK)
// for m, checks the point against m's bounds and constraints, and turns
// it into a result on the data d for the problem p with decode (the
// formulation's own reading of a point as a model). Solvers print rounded
// values, so the check is loose (1e-5), and a solver's "optimal" is
// within its own gap tolerance: the result is feasible, not proven
// optimal. A file that cannot be read, or whose point is not one of m, is
// an error wrapping backend.ErrInvalid.
func DecodeResult(r io.Reader, m *Model, decode func(x []float64) (*model.Graph, error), d *model.Dataset, p model.Problem) (*model.Result, error) {
	sol, err := ReadSolution(r, m)
	if err != nil {
		return nil, backend.Invalid(err)
	}
	res := &model.Result{Stats: map[string]any{"solution_format": sol.Format, "solver_status": sol.SolverStatus}}
	if sol.HasObjective {
		res.Stats["solver_objective"] = sol.Objective
	}
	switch {
	case sol.Status == StatusInfeasible:
		res.Status = model.StatusInfeasible
		return res, nil
	case sol.X == nil:
		res.Status = model.StatusNoSolution
		return res, nil
	}
	if err := m.CheckPoint(sol.X, 1e-5); err != nil {
		return nil, backend.Invalidf("the %s solution is not a point of the MILP: %w", sol.Format, err)
	}
	g, err := decode(sol.X)
	if err != nil {
		return nil, backend.Invalid(err)
	}
	res.Model = g
	res.Errors = g.Errors(d)
	res.Objective = p.Evaluate(d, g)
	res.Status = model.StatusFeasible
	res.Stats["decoded_objective"] = res.Objective
	return res, nil
}
