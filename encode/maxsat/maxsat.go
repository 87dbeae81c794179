// Package maxsat runs the weighted formula of a SAT-family backend
// (sat-odt, sat-odd) on an external MaxSAT or pseudo-Boolean solver:
// the backend's options that pick the solver and the file format, the
// file written to a temporary directory, the solver run until it ends or
// the context does (killed then, the directory removed either way), and
// its answer turned into a result by the backend's own verification
// against the incumbent. A wrong claim is an error, never a result.
package maxsat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/internal/proc"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// CheckSpec validates a maxsat-solver option: empty (the backend's
// in-process search) or external:"CMD ARGS".
func CheckSpec(spec string) error {
	_, err := Command(spec)
	return err
}

// Command splits an external:"CMD ARGS" specification into words (nil
// for the empty specification).
func Command(spec string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	rest, ok := strings.CutPrefix(spec, "external:")
	if !ok {
		return nil, fmt.Errorf("unknown MaxSAT solver %q (use external:\"CMD ARGS\", e.g. external:\"clasp {in}\")", spec)
	}
	argv, err := sat.SplitCommand(rest)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("external MaxSAT solver: empty command line")
	}
	return argv, nil
}

// Write writes the hard clauses and soft literals in the format the
// options name (format, wcnf-form).
func Write(w io.Writer, c *sat.CNF, soft []sat.WeightedLit, o Options) error {
	if o.Format == "opb" {
		return c.WriteOPB(w, soft)
	}
	return c.WriteWCNF(w, soft, o.Form != "2022")
}

// Check verifies a solver's model against the formula: every hard clause
// holds, and a cost line, if any, is the weight of the soft literals the
// model makes true. It returns the model's value of a literal and that
// cost. The errors wrap sat.ErrOutput; hint, when not empty, follows a
// falsified clause (what may have changed since the export).
func Check(a *sat.Answer, c *sat.CNF, soft []sat.WeightedLit, hint string) (val func(sat.Lit) bool, cost int64, err error) {
	m := a.Model
	if ok, i := c.Satisfies(m); !ok {
		if hint != "" {
			hint = " (" + hint + ")"
		}
		return nil, 0, fmt.Errorf("%w: the model falsifies hard clause %d %v%s", sat.ErrOutput, i+1, c.Clause(i), hint)
	}
	val = func(l sat.Lit) bool { v := l.Var(); return (v < len(m) && m[v]) == l.Sign() }
	for _, s := range soft {
		if val(s.Lit) {
			cost += s.Weight
		}
	}
	// A PB solver states the value of the OPB objective, which leaves
	// out the constant of the negated soft literals (w·¬x = w − w·x).
	var constant int64
	for _, s := range soft {
		if s.Lit < 0 {
			constant += s.Weight
		}
	}
	if a.HasCost && a.Cost != cost && (constant == 0 || a.Cost != cost-constant) {
		if constant != 0 {
			return nil, 0, fmt.Errorf("%w: the solver claims cost %d, its model's soft literals cost %d (%d as the OPB objective, without its constant %d)", sat.ErrOutput, a.Cost, cost, cost-constant, constant)
		}
		return nil, 0, fmt.Errorf("%w: the solver claims cost %d, its model's soft literals cost %d", sat.ErrOutput, a.Cost, cost)
	}
	return val, cost, nil
}

// Run is one formula for an external solver and what the backend knows
// without it.
type Run struct {
	// Argv is the solver's command line (Command).
	Argv []string
	// CNF and Soft are the formula (hard clauses, weighted soft literals).
	CNF  *sat.CNF
	Soft []sat.WeightedLit
	// Verify checks an answer against the formula and the data and
	// turns it into a result (a model's objective re-evaluated; a
	// claimed optimum recorded as the result's claimed bound), or says
	// why the answer is wrong.
	Verify func(*sat.Answer) (*model.Result, error)
	// Incumbent is the best model known before the run and Objective its
	// objective; LowerBound is a bound known without the solver.
	Incumbent  *model.Graph
	Objective  float64
	LowerBound float64
}

// Solve writes the formula in the job's format to a temporary file,
// runs the solver on it until it ends or ctx does, and verifies its
// answer with r.Verify. A stopped solver's last complete model, when it
// verifies and beats the incumbent, is the result (unproven); otherwise
// the incumbent is. An answer that does not verify is an error. The
// result is never worse than the incumbent: no model, or a worse one,
// leaves the incumbent, unproven. A better model is reported to the
// job's reporter.
func Solve(ctx context.Context, job *backend.Job, r Run) (*model.Result, error) {
	dir, err := os.MkdirTemp("", "odtkit-maxsat-")
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: %w", err)
	}
	defer os.RemoveAll(dir)
	o, err := JobOptions(job.Options)
	if err != nil {
		return nil, err
	}
	in, out := filepath.Join(dir, "in."+o.Format), filepath.Join(dir, "out.txt")
	fh, err := os.Create(in)
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: %w", err)
	}
	err = Write(fh, r.CNF, r.Soft, o)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: writing %s: %w", in, err)
	}
	so, err := sat.RunSolver(ctx, r.Argv, in, out, job.Budget.Limit())
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: %w", err)
	}
	answer, stderr, stopped := so.Answer, so.Stderr, so.Stopped
	by := "external MaxSAT solver " + strings.Join(r.Argv, " ")
	a, perr := sat.ParseAnswer(bytes.NewReader(answer), r.CNF.NumVars)
	if stopped {
		// What the solver printed before it was killed: its last model,
		// when one was complete and verifies, is the best so far.
		if perr == nil && a.Model != nil {
			a.Status = sat.OptSatisfiable
			if res, err := r.Verify(a); err == nil && res.Model != nil && res.Objective < r.Objective {
				job.Report.Report(res.Objective, res.Model)
				return Stopped(ctx, job, res.Model, r.LowerBound), nil
			}
		}
		return Stopped(ctx, job, r.Incumbent, r.LowerBound), nil
	}
	if perr != nil {
		return nil, fmt.Errorf("external MaxSAT solver %q: %w (answer: %s; stderr: %s)", r.Argv[0], perr, clip(so.Printed), clip(stderr))
	}
	res, err := r.Verify(a)
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver %q: %w", r.Argv[0], err)
	}
	if res.Stats == nil {
		res.Stats = map[string]any{}
	}
	res.Stats["maxsat_solver"] = strings.Join(r.Argv, " ")
	if res.ClaimedBy != "" {
		res.ClaimedBy = by
	}
	if res.ClaimedBound != nil && res.Model != nil && res.Objective > r.Objective*(1+1e-12)+1e-12 {
		return nil, fmt.Errorf("external MaxSAT solver %q: %w: it claims an optimum of objective %v, but a known model has %v", r.Argv[0], sat.ErrOutput, res.Objective, r.Objective)
	}
	if res.Model == nil || res.Objective > r.Objective {
		// No model, or a worse one than the incumbent: keep the
		// incumbent, unproven (with what the solver said on stderr when
		// it gave no model: a file it could not read, say).
		if res.Model == nil {
			res.Stats["solver_stderr"] = clip(stderr)
		}
		res.Model, res.Stop = r.Incumbent, model.StopNone
		res.ClaimedBound, res.ClaimedBy = nil, ""
		res.Errors, res.Objective = r.Incumbent.Errors(job.Data), r.Objective
		res.LowerBound = min(r.LowerBound, r.Objective)
		return res, nil
	}
	if res.Objective < r.Objective {
		job.Report.Report(res.Objective, res.Model)
	}
	return res, nil
}

// Stopped is the result of a stopped solve: the model g, unproven, with
// the lower bound lb (capped at g's objective).
func Stopped(ctx context.Context, job *backend.Job, g *model.Graph, lb float64) *model.Result {
	res := &model.Result{Model: g, Errors: g.Errors(job.Data), Objective: job.Problem.Evaluate(job.Data, g),
		Stop: model.StopGaveUp, Stats: map[string]any{}}
	res.LowerBound = min(lb, res.Objective)
	return res
}

func clip(b []byte) string { return proc.Clip(string(b)) }

// Claimant names the answer whose status claims an optimum, for
// Result.ClaimedBy (Solve names the solver's command instead, odt decode
// the answer file).
func Claimant(a *sat.Answer) string {
	if a.Said != "" {
		return "the solver's answer (" + a.Format + ": " + a.Said + ")"
	}
	return "the solver's answer (s " + string(a.Status) + ")"
}
