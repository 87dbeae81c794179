package satodt

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
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

// formula prepares the job's data and encodes the formula of its depth
// (the same numbering for export and decode).
func formula(ctx context.Context, job *backend.Job, o Options) (*satjob.Prepared, *Encoding, error) {
	d := job.Problem.MaxDepth
	if d < 1 {
		return nil, nil, backend.Invalidf("sat-odt: export and decode need a tree depth of at least 1 (--depth K)")
	}
	capBytes := job.Budget.Limit()
	limit := int64(viewBytes)
	if capBytes > 0 {
		limit = min(limit, capBytes/4)
	}
	v, err := model.BinarizeBudget(ctx, job.Data, limit)
	if err != nil {
		return nil, nil, err
	}
	if v.Coarse {
		return nil, nil, backend.Invalidf("sat-odt: the binary view of the data does not fit %s; the formula would leave out thresholds", backend.MB(limit))
	}
	p, err := prepareWithin(ctx, v, d, capBytes)
	if err != nil {
		return nil, nil, err
	}
	if p.Classes < 2 || len(p.Tests) == 0 {
		return p, nil, errSingleLeaf
	}
	// The formula of the useful depth has the same optimum.
	d = max(UsefulDepth(p, d), 1)
	size := ExportEstimate(p, d)
	what := fmt.Sprintf("the sat-odt formula of depth %d", d)
	if d > MaxDepth {
		return nil, nil, backend.Invalidf("sat-odt: depth %d exceeds the deepest complete tree the formula states (%d): %s would need about %s (%s) (lower --depth)",
			d, MaxDepth, what, backend.MB(size.Bytes), size)
	}
	if err := job.Budget.Admit(size, what); err != nil {
		return nil, nil, err
	}
	if size.Constraints > maxClauses {
		return nil, nil, backend.Invalidf("sat-odt: the formula of depth %d would have about %d clauses (more than %d)", d, size.Constraints, int64(maxClauses))
	}
	f, err := Encode(ctx, p, d, o)
	if err != nil {
		return nil, nil, err
	}
	return p, f, nil
}

// soft is the formula's objective for the file writers.
func (f *Encoding) soft() []sat.WeightedLit {
	out := make([]sat.WeightedLit, len(f.Soft))
	for i, s := range f.Soft {
		out[i] = sat.WeightedLit{Lit: s.Lit, Weight: int64(s.Weight)}
	}
	return out
}

// errSingleLeaf: the data has one class, or no test splits it, so the
// single leaf of the majority class is optimal and the formula is the
// trivial one of singleLeafFormula.
var errSingleLeaf = errors.New("sat-odt: a single leaf is optimal")

// singleLeafFormula is the formula exported when a single leaf is
// optimal: one variable, made true by a hard clause, no soft clause
// (cost 0), so that any solver answers it and decoding gives the leaf.
func singleLeafFormula(job *backend.Job, p *satjob.Prepared) *sat.CNF {
	c := &sat.CNF{}
	c.Add(c.NewVar())
	c.Comments = []string{
		fmt.Sprintf("sat-odt: the data %s has a single class or no test that splits it: the single leaf of its majority class is optimal", job.Data.Name),
		"the formula is trivial (one variable, true); any answer decodes to that leaf",
		fmt.Sprintf("decode an answer with: odt decode --backend sat-odt --depth %d DATA SOLVER_OUTPUT", job.Problem.MaxDepth),
	}
	return c
}

// Export writes the formula of the problem's depth as weighted MaxSAT
// (soft unit clauses ¬E[i]) or as a pseudo-Boolean problem (min: Σ w·E[i]),
// its comment header naming the variables and the decode command. The
// optimum's cost is the least weighted error of a tree of that depth.
func (Backend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	o, err := JobOptions(job)
	if err != nil {
		return err
	}
	p, f, err := formula(ctx, job, o)
	if errors.Is(err, errSingleLeaf) {
		return maxsat.Write(w, singleLeafFormula(job, p), nil, o.MaxSAT)
	}
	if err != nil {
		return err
	}
	d := job.Data
	f.CNF.Comments = append(f.CNF.Comments,
		fmt.Sprintf("sat-odt: minimum-error tree of depth at most %d on %s (%d rows, %d kept tests, %d groups of identical rows, %d classes)", f.Depth, d.Name, d.Rows(), len(p.Tests), len(p.Groups), p.Classes),
		"the cost of a model is the weighted error of its tree; no tree does better than the optimum's cost",
		fmt.Sprintf("decode an answer with: odt decode --backend sat-odt --depth %d --opt repeats=%v --opt dead=%v DATA SOLVER_OUTPUT", f.Depth, o.Repeats, o.Dead),
		"internal nodes in heap order (children of n: 2n+1 when its test is false, 2n+2 when true); leaves from the left",
	)
	for i, t := range p.Tests {
		f.CNF.Comments = append(f.CNF.Comments, fmt.Sprintf("test %d: %s", i, p.View.Tests[t].String(d)))
	}
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	return maxsat.Write(w, f.CNF, f.soft(), o.MaxSAT)
}
