package avellaneda

import (
	"context"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
)

// ExportFormat is "dimacs".
func (DepthBackend) ExportFormat() string { return "dimacs" }

// ExportFormat is "dimacs".
func (SizeBackend) ExportFormat() string { return "dimacs" }

// Export writes the whole formula of the problem's depth (with its node
// limit) as DIMACS, its header naming the variables.
func (DepthBackend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	return export(ctx, w, job, "sat-depth")
}

// Export writes the formula as DepthBackend.Export does.
func (SizeBackend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	return export(ctx, w, job, "sat-size")
}

// formulaDepth is the depth of an exported formula: the problem's depth
// limit, at least 1.
func formulaDepth(job *backend.Job, name string) (int, error) {
	k, ok := job.Problem.DepthLimit()
	if !ok || k < 1 {
		return 0, backend.Invalidf("%s: export and decode need the depth of the formula, at least 1 (--depth K)", name)
	}
	return k, nil
}

func export(ctx context.Context, w io.Writer, job *backend.Job, name string) error {
	k, err := formulaDepth(job, name)
	if err != nil {
		return err
	}
	o, p, err := prepare(ctx, job)
	if err != nil {
		return err
	}
	if err := admit(job, o, p, true); err != nil {
		return err
	}
	return writeDIMACS(ctx, job.Budget, w, p, name, k, formulaNodes(job.Problem.MaxNodes), o)
}

// Encode builds the whole (non-incremental) formula of depth k over
// every representative row: clauses (1)-(6), the chosen at-most-one, and
// when maxNodes > 0 the node limit (7)-(10) with the bound asserted as a
// unit clause (at most ⌊(maxNodes+1)/2⌋ labelled leaves, Theorem 2). The
// same arguments always give the same variable numbering, so a model of
// the formula from any solver decodes with DecodeModel. Data with a
// single class get the depth-0 formula (a single leaf). The comment
// header ends with the odt decode command for the backend name (sat-depth
// or sat-size). Building stops with ctx's error when ctx ends.
func Encode(ctx context.Context, p *satjob.Examples, name string, k, maxNodes int, opt Options) (*Encoding, error) {
	return encode(ctx, nil, p, name, k, maxNodes, opt)
}

// encode is Encode accounting the formula in budget (see
// NewEncoding); the caller releases it (Encoding.Release).
func encode(ctx context.Context, budget *backend.Budget, p *satjob.Examples, name string, k, maxNodes int, opt Options) (*Encoding, error) {
	if maxNodes < 0 {
		return nil, fmt.Errorf("max nodes %d is negative", maxNodes)
	}
	note, asked := "", k // the header's decode command repeats the depth asked for
	if k > 0 && p.PresentClasses() <= 1 {
		// A single leaf is the only tree with one labelled leaf, and a
		// perfect tree can only hide its other leaves behind a test that is
		// constant on the data; those were removed, so build depth 0.
		k, note = 0, "the data has a single class: depth 0 formula"
	}
	e, err := NewEncoding(ctx, budget, p.View, p.Tests, p.Reps, k, opt)
	if err != nil {
		return nil, err
	}
	if note != "" {
		e.CNF.Comments = append(e.CNF.Comments, note)
	}
	for i := range p.Reps {
		if i%256 == 0 {
			if err := e.Err(); err != nil {
				e.Release()
				return nil, err
			}
		}
		e.AddExample(i)
	}
	if maxNodes > 0 {
		L := leafCap(maxNodes)
		e.LimitLeaves(L)
		if L < 1<<k {
			b, err := e.LeafBound(L)
			if err != nil {
				return nil, err
			}
			e.CNF.Add(b)
		}
		if err := e.Err(); err != nil {
			e.Release()
			return nil, err
		}
		e.CNF.Comments = append(e.CNF.Comments, fmt.Sprintf("node limit: at most %d nodes = at most %d labelled leaves (unit clause on H)", maxNodes, L))
	}
	e.CNF.Comments = append(e.CNF.Comments,
		"decode a model with: "+decodeCommand(name, asked, maxNodes, opt),
		"X example slot e = the e-th data row (file order) that is the first row with its vector of tests")
	return e, nil
}

// WriteDIMACS writes the whole formula of depth k (see Encode) with its
// comment header mapping variable ranges to their meaning.
func WriteDIMACS(ctx context.Context, w io.Writer, p *satjob.Examples, name string, k, maxNodes int, opt Options) error {
	return writeDIMACS(ctx, nil, w, p, name, k, maxNodes, opt)
}

func writeDIMACS(ctx context.Context, budget *backend.Budget, w io.Writer, p *satjob.Examples, name string, k, maxNodes int, opt Options) error {
	e, err := encode(ctx, budget, p, name, k, maxNodes, opt)
	if err != nil {
		return err
	}
	defer e.Release()
	if err := e.Err(); err != nil {
		return err
	}
	return e.CNF.WriteDIMACS(w)
}

// decodeCommand is the odt decode command line that reads a solver's
// answer to the formula of depth k with at most maxNodes nodes in all
// (leaves included; 0 = no limit): the flags state the problem as the
// export was asked it, --max-nodes in internal nodes as odt counts them.
func decodeCommand(name string, k, maxNodes int, opt Options) string {
	s := fmt.Sprintf("odt decode --backend %s --depth %d", name, k)
	if maxNodes > 0 {
		s += fmt.Sprintf(" --max-nodes %d", (maxNodes-1)/2)
	}
	return s + " " + opt.flags() + " DATA SOLVER_OUTPUT"
}

// flags spells the options as odt's --opt flags (the backend's option
// names), for the comment header.
func (o Options) flags() string {
	clauses := "order"
	if o.PaperClauses {
		clauses = "paper"
	}
	return fmt.Sprintf("--opt amo=%s --opt counter=%s --opt clauses=%s --opt symmetry=%v --opt class-cuts=%v", o.AMO, o.Counter, clauses, o.Symmetry, !o.NoClassCuts)
}
