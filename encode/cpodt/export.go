package cpodt

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"strings"

	"github.com/odtkit/odtkit/backend"
)

// Model is the MiniZinc model (odt.mzn): the same text for every goal
// and data, which the data file (WriteData) completes.
//
//go:embed odt.mzn
var Model string

//go:embed doc.md
var doc string

// Doc explains the model for the backend reference page
// (backend.Documenter).
func (Backend) Doc() string { return doc }

// ExportFormat is "mzn": the model and its data in one MiniZinc file.
func (Backend) ExportFormat() string { return "mzn" }

// Export writes the model and the job's data as one MiniZinc file that
// `minizinc --solver gecode FILE` runs as it is: a header naming the
// data, the goal and the odt decode command that reads the answer back,
// the commented model, then the data. The depth of the complete tree is
// the problem's (--depth; for min-depth and min-size the depth limit
// searched within).
func (b Backend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	in, err := exportInstance(ctx, job)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	p := job.Problem
	fmt.Fprintf(bw, "%% odtkit cp-odt: %s of %s as a MiniZinc model, with its data.\n", p.Objective, job.Data.Name)
	fmt.Fprintf(bw, "%% %s.\n", in)
	fmt.Fprintf(bw, "%% Solve:  minizinc --solver gecode -a FILE.mzn > ANSWER   (or --output-mode json)\n")
	fmt.Fprintf(bw, "%% Decode: odt decode --backend cp-odt --objective %s --depth %d%s DATA ANSWER\n", p.Objective, in.Depth, problemFlags(job))
	fmt.Fprintf(bw, "%% The answer's node_test numbers the tests below (0: a leaf); leaf_class the classes.\n\n")
	bw.WriteString(Model)
	bw.WriteString("\n")
	if err := in.WriteData(ctx, bw); err != nil {
		return err
	}
	return bw.Flush()
}

// problemFlags are the odt flags beyond objective and depth that shape
// the model.
func problemFlags(job *backend.Job) string {
	var b strings.Builder
	p := job.Problem
	if p.MinSupport > 1 {
		fmt.Fprintf(&b, " --min-support %d", p.MinSupport)
	}
	if p.MaxNodes > 0 {
		fmt.Fprintf(&b, " --max-nodes %d", p.MaxNodes)
	}
	if p.LeafCost > 0 {
		fmt.Fprintf(&b, " --leaf-cost %v", p.LeafCost)
	}
	return b.String()
}

// WriteData writes the instance as MiniZinc assignments (a .dzn file,
// or the end of a model file), the tests and classes named in comments.
func (in *Instance) WriteData(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriter(w)
	d := in.View.Data
	fmt.Fprintf(bw, "%% ---------------------------------------------------------------- the data\n")
	fmt.Fprintf(bw, "goal = %s;\n", in.Goal)
	fmt.Fprintf(bw, "K = %d;\n", in.Depth)
	fmt.Fprintf(bw, "F = %d;\n", len(in.Tests))
	fmt.Fprintf(bw, "C = %d;\n", in.Classes)
	fmt.Fprintf(bw, "G = %d;\n", len(in.Groups))
	for i, t := range in.Tests {
		fmt.Fprintf(bw, "%% test %d: %s\n", i+1, in.View.Tests[t].String(d))
	}
	for c, name := range d.Classes {
		fmt.Fprintf(bw, "%% class %d: %s\n", c+1, name)
	}
	fmt.Fprintf(bw, "value = array2d(1..%d, 1..%d, [\n", len(in.Groups), len(in.Tests))
	for g := range in.Groups {
		if g%256 == 0 {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
		}
		bw.WriteString("  ")
		for t := range in.Tests {
			if in.Value(g, t) {
				bw.WriteString("1,")
			} else {
				bw.WriteString("0,")
			}
		}
		fmt.Fprintf(bw, " %% group %d: row %d\n", g+1, in.Groups[g].Rep+1)
	}
	bw.WriteString("]);\n")
	fmt.Fprintf(bw, "weight = array2d(1..%d, 1..%d, [\n", len(in.Groups), in.Classes)
	for _, g := range in.Groups {
		bw.WriteString("  ")
		for _, w := range g.Weight {
			fmt.Fprintf(bw, "%d,", w)
		}
		bw.WriteString("\n")
	}
	bw.WriteString("]);\n")
	bw.WriteString("rows = [")
	for i, g := range in.Groups {
		if i > 0 {
			bw.WriteString(",")
		}
		fmt.Fprintf(bw, "%d", g.Rows)
	}
	bw.WriteString("];\nlabel = [")
	for i, g := range in.Groups {
		if i > 0 {
			bw.WriteString(",")
		}
		fmt.Fprintf(bw, "%d", g.Label()+1)
	}
	bw.WriteString("];\n")
	fmt.Fprintf(bw, "min_support = %d;\n", in.MinSupport)
	fmt.Fprintf(bw, "max_tests = %d;\n", in.MaxTests)
	fmt.Fprintf(bw, "full_tree = %v;\n", in.Complete())
	fmt.Fprintf(bw, "error_unit = %d;\n", in.ErrorUnit)
	fmt.Fprintf(bw, "leaf_unit = %d;\n", in.LeafUnit)
	fmt.Fprintf(bw, "upper = %d;\n", in.Upper)
	fmt.Fprintf(bw, "lower = %d;\n", in.Lower)
	fmt.Fprintf(bw, "lookahead = %d;\n", in.Lookahead())
	return bw.Flush()
}
