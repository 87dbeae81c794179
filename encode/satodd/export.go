package satodd

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// ExportFormat is "wcnf", the default of ExportFormats.
func (Backend) ExportFormat() string { return "wcnf" }

// ExportFormats are weighted MaxSAT ("wcnf") and pseudo-Boolean ("opb");
// ExportAs (odt export --to) or the job's option "format" picks one.
func (Backend) ExportFormats() []string { return []string{"wcnf", "opb"} }

// ExportAs writes the formula in format ("wcnf" or "opb"), whatever the
// job's option "format" says.
func (b Backend) ExportAs(ctx context.Context, w io.Writer, job *backend.Job, format string) error {
	return backend.ExportWithOption(ctx, w, b, job, "format", format)
}

// formula prepares the job's data and encodes its formula (the same
// numbering for export and decode).
func formula(ctx context.Context, job *backend.Job) (*satodt.Prepared, *Formula, Costs, error) {
	if err := backend.Check(Backend{}.Info(), job.Data, job.Problem); err != nil {
		return nil, nil, Costs{}, err
	}
	costs, err := ScaledCosts(totalWeight(job.Data), job.Problem.Skeleton, job.Problem.Alpha)
	if err != nil {
		return nil, nil, costs, backend.Invalid(err)
	}
	_, p, err := prepare(ctx, job, true)
	if err != nil {
		return nil, nil, costs, err
	}
	if len(p.Tests) == 0 {
		return nil, nil, costs, backend.Invalidf("sat-odd: no test splits the data: there is nothing to export")
	}
	if _, err := admit(job, p); err != nil {
		return nil, nil, costs, err
	}
	f, err := Encode(ctx, p, job.Problem.Skeleton, costs)
	if err != nil {
		return nil, nil, costs, err
	}
	return p, f, costs, nil
}

// Export writes the formula as weighted MaxSAT or pseudo-Boolean, its
// header naming the variables, the scaled weights and the decode command.
func (Backend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	_, f, costs, err := formula(ctx, job)
	if err != nil {
		return err
	}
	pr := job.Problem
	f.CNF.Comments = append(f.CNF.Comments,
		fmt.Sprintf("sat-odd: decision diagram on the skeleton %v, alpha %v, on %s (%d rows)", pr.Skeleton, pr.Alpha, job.Data.Name, job.Data.Rows()),
		fmt.Sprintf("cost = %d per misclassified row (per unit of row weight) + %d per active internal node but the root (the objective times a constant)", costs.Error, costs.Node),
		fmt.Sprintf("decode an answer with: odt decode --backend sat-odd --skeleton %s --alpha %v DATA SOLVER_OUTPUT", skeletonFlag(pr.Skeleton), pr.Alpha),
		"arc variables follow F..R: per side (low, then high), per node, the next layer's nodes then the classes; then the error literals per group and class",
	)
	if job.Data.Weights != nil {
		f.CNF.Comments = append(f.CNF.Comments, fmt.Sprintf("the rows are weighted (total weight %d): decode with the same data flags (--weight) as the export", totalWeight(job.Data)))
	}
	return maxsat.Write(w, f.CNF, f.Soft, job.Options)
}

func skeletonFlag(s []int) string {
	out := ""
	for i, w := range s {
		if i > 0 {
			out += ","
		}
		out += fmt.Sprint(w)
	}
	return out
}

// Decode reads a MaxSAT or PB solver's answer for the exported formula
// and verifies it like sat-odt's decode: every variable assigned, hard
// clauses satisfied, a cost line equal to the model's cost, and at a
// claimed optimum the model's cost equal to its diagram's. The claimed
// optimum is the result's claimed bound, not a proof.
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (*model.Result, error) {
	p, f, costs, err := formula(ctx, job)
	if err != nil {
		return nil, err
	}
	a, err := sat.ParseAnswer(r, f.CNF.NumVars)
	if err != nil {
		return nil, backend.Answer(backend.Invalidf("solver output: %w", err))
	}
	res, err := answerResult(job, p, f, costs, a)
	if err != nil {
		return nil, backend.Answer(backend.Invalid(err)) // the answer file is the bad input
	}
	return res, nil
}

// answerResult verifies a solver's answer for the formula f and turns
// it into a result: the model satisfies the hard clauses, a claimed
// cost is its soft literals' cost, and at a claimed optimum that cost is
// its diagram's (a model whose soft literals overcount is not optimal).
func answerResult(job *backend.Job, p *satodt.Prepared, f *Formula, costs Costs, a *sat.Answer) (*model.Result, error) {
	res := &model.Result{Stats: map[string]any{"solver_status": string(a.Status), "cost_error": costs.Error, "cost_node": costs.Node,
		"variables": f.CNF.NumVars, "clauses": f.CNF.NumClauses()}}
	if a.Status == sat.OptUnsatisfiable {
		return nil, fmt.Errorf("%w: the solver claims the formula unsatisfiable, but the root stump satisfies it", sat.ErrOutput)
	}
	if a.Model == nil {
		res.Status = model.StatusNoSolution
		return res, nil
	}
	val, cost, err := maxsat.Check(a, f.CNF, f.Soft, "were the skeleton and alpha the same as for the export?")
	if err != nil {
		return nil, err
	}
	g, err := f.Decode(p, val)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sat.ErrOutput, err)
	}
	d := job.Data
	res.Model, res.Errors, res.Objective = g, g.Errors(d), job.Problem.Evaluate(d, g)
	res.Status = model.StatusFeasible
	res.LowerBound = min(objectiveOf(p.Floor*costs.Error, costs, totalWeight(d)), res.Objective)
	if a.Status == sat.OptOptimum {
		if int64(costs.Cost(d, g)) != cost {
			return nil, fmt.Errorf("%w: the solver claims an optimum of cost %d, but its diagram costs %d: the model is not optimal", sat.ErrOutput, cost, costs.Cost(d, g))
		}
		// The solver's word: a claimed bound, not odtkit's proof.
		res.Claim(res.Objective, maxsat.Claimant(a))
	}
	return res, nil
}

// totalWeight is the data's total row weight (whole weights: Check
// refuses others), n rows without weights.
func totalWeight(d *model.Dataset) int { return int(math.Round(d.TotalWeight())) }

// The optional interfaces sat-odd implements.
var (
	_ backend.Decoder        = Backend{}
	_ backend.FormatExporter = Backend{}
)
