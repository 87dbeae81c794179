package main

import (
	"fmt"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/encode/avellaneda"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// dimacsFormula reads the flags of a depth-encoding export or decode:
// the prepared data, depth, node limit and formula options.
func dimacsFormula(encoding string, d *model.Dataset, p model.Problem, o odtkit.Options) (*avellaneda.Prepared, avellaneda.Options, error) {
	if encoding != "depth" {
		return nil, avellaneda.Options{}, usagef("--to dimacs exports the SAT encoding depth, not %q (use --to mps for odd and odt)", encoding)
	}
	switch p.Objective {
	case "", model.MinDepth, model.MinSize:
	default:
		return nil, avellaneda.Options{}, usagef("--objective %s: the depth encoding asks for a tree with no training error (min-depth or min-size)", p.Objective)
	}
	if p.MinSupport > 1 {
		return nil, avellaneda.Options{}, usagef("--min-support %d: the depth encoding has no leaf support", p.MinSupport)
	}
	if len(p.Skeleton) > 0 {
		return nil, avellaneda.Options{}, usagef("--skeleton: the depth encoding is a tree")
	}
	eo, drop, err := odtkit.SATEncodingOptions(o)
	if err != nil {
		return nil, eo, usagef("%v", err)
	}
	prep, err := avellaneda.Prepare(d, drop)
	if err != nil {
		return nil, eo, badInput(err)
	}
	return prep, eo, nil
}

// exportDIMACS writes the CNF of a perfect tree of depth --depth (with
// at most --max-nodes nodes) consistent with the data to req.Out.
func exportDIMACS(req exportRequest) error {
	prep, eo, err := dimacsFormula(req.Encoding, req.Data, req.Problem, req.Options)
	if err != nil {
		return err
	}
	if err := avellaneda.WriteDIMACS(req.Out, prep, req.Problem.MaxDepth, req.Problem.MaxNodes, eo); err != nil {
		return badInput(err)
	}
	return nil
}

// decodeDIMACS reads a SAT solver's output for req's encoding back into
// a result: a tree of depth at most --depth consistent with the (kept)
// rows, or status infeasible when the solver refuted the formula.
func decodeDIMACS(req decodeRequest) (*model.Result, error) {
	prep, eo, err := dimacsFormula(req.Encoding, req.Data, req.Problem, req.Options)
	if err != nil {
		return nil, err
	}
	k, maxNodes := req.Problem.MaxDepth, req.Problem.MaxNodes
	st, m, err := sat.ParseOutput(req.Solution)
	if err != nil {
		return nil, badInput(fmt.Errorf("solver output: %w", err))
	}
	prob := model.Problem{Objective: model.MinDepth, MaxDepth: k, MaxNodes: maxNodes}
	if maxNodes > 0 {
		prob.Objective = model.MinSize
	}
	if prep.Dropped > 0 {
		// The tree misclassifies the dropped rows: state it as a depth-
		// and size-bounded error problem, which Verify can check.
		prob.Objective = model.MinError
	}
	res := &model.Result{Problem: prob, Stats: map[string]any{
		"solver_status":     st.String(),
		"depth":             k,
		"max_nodes":         maxNodes,
		"conflicts_dropped": prep.Dropped,
		"distinct_rows":     len(prep.Reps),
		"tests_used":        len(prep.Tests),
	}}
	switch st {
	case sat.Unsatisfiable:
		// No tree of this depth (and size) classifies every kept row.
		res.Status = model.StatusInfeasible
		if prob.Objective == model.MinDepth {
			// Nor of any smaller depth (a shallower tree is a tree of
			// depth k too): the minimum depth is at least k+1.
			res.LowerBound = float64(k + 1)
		}
		return res, nil
	case sat.Unknown:
		res.Status = model.StatusNoSolution
		return res, nil
	}
	g, err := avellaneda.DecodeModel(prep, k, maxNodes, eo, m)
	if err != nil {
		return nil, badInput(err)
	}
	res.Model = g
	res.Errors = g.Errors(req.Data)
	res.Status = model.StatusFeasible
	switch prob.Objective {
	case model.MinDepth:
		res.Objective = float64(g.Depth())
	case model.MinSize:
		res.Objective = float64(g.Size())
	default:
		res.Objective = g.WeightedErrors(req.Data)
	}
	res.LowerBound = 0
	return res, nil
}
