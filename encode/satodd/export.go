package satodd

import (
	"context"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
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
func formula(ctx context.Context, job *backend.Job) (*satjob.Prepared, *Encoding, Costs, error) {
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
	o, err := JobOptions(job)
	if err != nil {
		return err
	}
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
	return maxsat.Write(w, f.CNF, f.Soft, o.MaxSAT)
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
