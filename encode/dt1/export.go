package dt1

import (
	"context"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
)

// ExportFormat is "dimacs".
func (Backend) ExportFormat() string { return "dimacs" }

// Export writes the formula of a tree of exactly 2K+1 nodes, K the
// problem's node limit (--max-nodes K internal nodes), as DIMACS, its
// header naming the variables and the odt decode command for the answer.
func (Backend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	n, err := exportNodes(job)
	if err != nil {
		return err
	}
	o, p, err := prepare(ctx, job)
	if err != nil {
		return err
	}
	if err := admit(job, o, p, n); err != nil {
		return err
	}
	opt := o
	e, err := Encode(ctx, job.Budget, p.View, p.Tests, p.Reps, n, opt)
	if err != nil {
		return err
	}
	defer e.Release()
	counting := "true"
	if opt.NoCounting {
		counting = "false"
	}
	e.CNF.Comments = append(e.CNF.Comments,
		fmt.Sprintf("decode: odt decode --backend sat-dt1 --max-nodes %d --opt amo=%s --opt leaf-counting=%s --opt nonempty-leaves=%v --opt impure-splits=%v DATA SOLVER_OUTPUT", (n-1)/2, opt.AMO, counting, opt.NonEmptyLeaves, opt.ImpureSplits),
		"examples: the first data row of each distinct vector of tests, in row order")
	return e.CNF.WriteDIMACS(w)
}

// exportNodes is the node count of an exported or decoded formula:
// 2K+1 for the problem's node limit K.
func exportNodes(job *backend.Job) (int, error) {
	k := job.Problem.MaxNodes
	if k < 1 {
		return 0, backend.Invalidf("sat-dt1: export and decode need the node count of the formula: --max-nodes K (internal nodes) gives a tree of exactly 2K+1 nodes")
	}
	return 2*k + 1, nil
}
