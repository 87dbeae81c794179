package satodt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// checkMaxSATSpec validates the maxsat-solver option: empty (the
// in-process search) or external:"CMD ARGS".
func checkMaxSATSpec(spec string) error {
	_, err := maxSATCommand(spec)
	return err
}

// maxSATCommand splits an external:"CMD ARGS" specification into words
// (nil for the empty specification).
func maxSATCommand(spec string) ([]string, error) {
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

// solveExternal writes the formula of the job's depth in the job's
// format (wcnf or opb) to a temporary file, runs the external solver on
// it until it ends or ctx does (the solver is killed then, and the file
// removed either way), and verifies its answer like odt decode: the
// model satisfies the hard clauses, a claimed cost is its cost, a
// claimed optimum's soft literals are exactly its tree's errors. A
// stopped solver's last complete model, if any, is the incumbent. A
// wrong claim is an error; the result is never better than the
// incumbent given (cart's tree).
func solveExternal(ctx context.Context, job *backend.Job, argv []string, inc *model.Graph, incErr float64) (*model.Result, error) {
	p, f, err := formula(ctx, job)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return stoppedWith(ctx, job, inc, 0), nil
		}
		return nil, err
	}
	dir, err := os.MkdirTemp("", "odtkit-maxsat-")
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: %w", err)
	}
	defer os.RemoveAll(dir)
	format := job.Options.String("format")
	in, out := filepath.Join(dir, "in."+format), filepath.Join(dir, "out.txt")
	fh, err := os.Create(in)
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: %w", err)
	}
	if format == "opb" {
		err = f.CNF.WriteOPB(fh, f.soft())
	} else {
		err = f.CNF.WriteWCNF(fh, f.soft(), job.Options.String("wcnf-form") != "2022")
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: writing %s: %w", in, err)
	}
	answer, stderr, stopped, err := sat.RunSolver(ctx, argv, in, out)
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver: %w", err)
	}
	a, perr := sat.ParseAnswer(bytes.NewReader(answer), f.CNF.NumVars)
	if stopped {
		// What the solver printed before it was killed: its last model,
		// when one was complete and verifies, is the best so far.
		if perr == nil && a.Model != nil {
			a.Status = sat.OptSatisfiable
			if res, err := answerResult(job, p, f, a); err == nil && res.Model != nil && res.Objective < incErr {
				job.Report.Report(res.Objective, res.Model)
				return stoppedWith(ctx, job, res.Model, p.Floor), nil
			}
		}
		return stoppedWith(ctx, job, inc, p.Floor), nil
	}
	if perr != nil {
		return nil, fmt.Errorf("external MaxSAT solver %q: %w (answer: %s; stderr: %s)", argv[0], perr, clipText(answer), clipText(stderr))
	}
	res, err := answerResult(job, p, f, a)
	if err != nil {
		return nil, fmt.Errorf("external MaxSAT solver %q: %w", argv[0], err)
	}
	res.Stats["maxsat_solver"] = strings.Join(argv, " ")
	if res.Model == nil || res.Objective > incErr {
		// No model, or a worse one than the incumbent: keep the
		// incumbent, unproven.
		res.Model, res.Optimal, res.Status = inc, false, model.StatusFeasible
		res.Errors, res.Objective = inc.Errors(job.Data), incErr
		res.LowerBound = min(float64(p.Floor), incErr)
		return res, nil
	}
	if res.Objective < incErr {
		job.Report.Report(res.Objective, res.Model)
	}
	return res, nil
}

// stoppedWith is the result of a stopped solve: the tree g, unproven,
// with the lower bound floor.
func stoppedWith(ctx context.Context, job *backend.Job, g *model.Graph, floor int) *model.Result {
	res := &model.Result{Model: g, Errors: g.Errors(job.Data), Objective: job.Problem.Evaluate(job.Data, g),
		Status: model.EndStatus(ctx, false, true), Stats: map[string]any{}}
	res.LowerBound = min(float64(floor), res.Objective)
	return res
}

func clipText(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	if s == "" {
		return "(empty)"
	}
	return s
}
