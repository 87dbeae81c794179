package odd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// solveOnly are the options that steer the solve but not the MILP; an
// export refuses them.
var solveOnly = []string{"gap", "warm-start", "restarts", "highs", "lattice-cutoff", "milp-solver", "lp-bound"}

// ExportFormat is "mps".
func (DiagramBackend) ExportFormat() string { return "mps" }

// ExportFormat is "mps".
func (TreeBackend) ExportFormat() string { return "mps" }

// Export writes the diagram MILP in free MPS format.
func (DiagramBackend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	return export(ctx, w, job, false)
}

// Export writes the tree MILP in free MPS format.
func (TreeBackend) Export(ctx context.Context, w io.Writer, job *backend.Job) error {
	return export(ctx, w, job, true)
}

// Decode reads a MILP solver's solution file for the exported diagram MILP.
func (DiagramBackend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return decode(ctx, job, r, false)
}

// Decode reads a MILP solver's solution file for the exported tree MILP.
func (TreeBackend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return decode(ctx, job, r, true)
}

// exportJob refuses the options that steer the solve only, and builds
// the MILP (accounted in the job's budget until release is called).
func exportJob(ctx context.Context, job *backend.Job, tree bool) (e *Encoding, release func(), err error) {
	for _, k := range solveOnly {
		if job.Options.IsSet(k) {
			return nil, func() {}, backend.Invalidf("option %s steers the solve, not the MILP: export and decode do not take it", k)
		}
	}
	_, release, err = admit(job, tree, false)
	if err != nil {
		return nil, release, err
	}
	e, err = encode(ctx, job, tree)
	return e, release, err
}

// ExportFormats are "mps" and "lp" (CPLEX LP).
func (DiagramBackend) ExportFormats() []string { return []string{"mps", "lp"} }

// ExportFormats are "mps" and "lp" (CPLEX LP).
func (TreeBackend) ExportFormats() []string { return []string{"mps", "lp"} }

// ExportAs writes the diagram MILP as MPS or CPLEX LP.
func (DiagramBackend) ExportAs(ctx context.Context, w io.Writer, job *backend.Job, format string) error {
	return exportAs(ctx, w, job, false, format)
}

// ExportAs writes the tree MILP as MPS or CPLEX LP.
func (TreeBackend) ExportAs(ctx context.Context, w io.Writer, job *backend.Job, format string) error {
	return exportAs(ctx, w, job, true, format)
}

func export(ctx context.Context, w io.Writer, job *backend.Job, tree bool) error {
	return exportAs(ctx, w, job, tree, "mps")
}

func exportAs(ctx context.Context, w io.Writer, job *backend.Job, tree bool, format string) error {
	e, release, err := exportJob(ctx, job, tree)
	defer release()
	if err != nil {
		return err
	}
	e.Model.Comments = e.Header(job, tree)
	return milp.Write(w, e.Model, format)
}

// Header is the comment block of an exported MILP: what it encodes, the
// meaning of each group of columns with its index range, and the
// command that decodes a solver's solution.
func (e *Encoding) Header(job *backend.Job, tree bool) []string {
	name := "milp-odd"
	if tree {
		name = "milp-odt"
	}
	p := job.Problem
	var flags []string
	switch {
	case p.Objective == model.MinError:
		flags = append(flags, fmt.Sprintf("--depth %d", p.MaxDepth))
	default:
		sk := make([]string, len(p.Skeleton))
		for i, w := range p.Skeleton {
			sk[i] = strconv.Itoa(w)
		}
		flags = append(flags, "--skeleton "+strings.Join(sk, ","), "--alpha "+strconv.FormatFloat(p.Alpha, 'g', -1, 64))
	}
	if p.MaxNodes > 0 {
		flags = append(flags, fmt.Sprintf("--max-nodes %d", p.MaxNodes))
	}
	raw := job.Options.Raw()
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		flags = append(flags, fmt.Sprintf("--opt %s=%s", k, raw[k]))
	}
	h := []string{
		fmt.Sprintf("odtkit %s: the ODD flow MILP (Florio et al., AAAI 2023)%s, %d rows x %d feature columns scaled to [0,1], skeleton %v",
			name, map[bool]string{true: ", tree special case"}[tree], e.data.Rows(), len(e.cols), e.Opts.Skeleton),
		"solve it with one of: highs --solution_file SOL FILE; cbc FILE solve solu SOL; glpsol --freemps FILE.mps -w SOL (or glpsol --lp FILE.lp -w SOL; or -o SOL)",
		fmt.Sprintf("decode a solution with: odt decode --backend %s %s DATA SOL", name, strings.Join(flags, " ")),
		"columns (0-based index ranges; u = internal node, layers first to last; i = data row in file order; v = successor node or terminal nInt+class):",
	}
	groups := []struct {
		prefix, meaning string
	}{
		{"d_", "d_u: internal node u is active (binary)"},
		{"y-_", "y-_u_v: the negative (low) side of u leads to v (binary)"},
		{"y+_", "y+_u_v: the positive (high) side of u leads to v (binary)"},
		{"a_", "a_u_j: hyperplane weight of feature column j at u"},
		{"b_", "b_u: hyperplane threshold at u (negative side a.x + epsilon <= b)"},
		{"e_", "e_u_j: u tests column j (univariate splits, binary)"},
		{"lambda_", "lambda_i_l: row i takes the negative side at layer l (binary)"},
		{"w-_", "w-_i_u: flow of row i through the negative side of u"},
		{"w+_", "w+_i_u: flow of row i through the positive side of u"},
		{"z-_", "z-_i_u_v: flow of row i on the negative arc u->v"},
		{"z+_", "z+_i_u_v: flow of row i on the positive arc u->v"},
		{"wl_", "wl_i_c: row i ends in the terminal of class c"},
	}
	for _, g := range groups {
		lo, hi, n := -1, -1, 0
		for j, c := range e.Model.Columns {
			if strings.HasPrefix(c.Name, g.prefix) {
				if lo < 0 {
					lo = j
				}
				hi = j
				n++
			}
		}
		if n > 0 {
			h = append(h, fmt.Sprintf("  %d..%d (%d) %s", lo, hi, n, g.meaning))
		}
	}
	var fc []string
	for j, c := range e.cols {
		ft := e.data.Features[c.feature]
		s := fmt.Sprintf("%d=%s", j, ft.Name)
		if c.level >= 0 {
			s += "==" + ft.Levels[c.level]
		}
		fc = append(fc, s)
	}
	h = append(h, "feature columns j: "+strings.Join(fc, " "))
	var eps []string
	for j, c := range e.cols {
		eps = append(eps, fmt.Sprintf("%d=%g", j, c.eps))
	}
	h = append(h, "numeric columns are scaled by rank for univariate splits (value k of m distinct -> k/(m-1)), min-max for oblique ones; split margin epsilon of column j: "+strings.Join(eps, " "))
	if e.nCls > e.data.NumClasses() {
		h = append(h, fmt.Sprintf("terminal %d is an empty class: the data has one class, and the root needs two terminals", e.nCls-1))
	}
	return h
}

// decode reads a solution file of the exported MILP (HiGHS, CBC or
// GLPK), checks it against the MILP's bounds and constraints and decodes
// it into a model. The solver's "optimal" is within its own gap
// tolerance, so the result is feasible, not proven optimal.
func decode(ctx context.Context, job *backend.Job, r io.Reader, tree bool) (*model.Result, error) {
	e, release, err := exportJob(ctx, job, tree)
	defer release()
	if err != nil {
		return nil, err
	}
	witness := func() []float64 {
		// The construction heuristic's diagram, when it satisfies the
		// whole MILP (side constraints included).
		if inc := e.Heuristic(ctx, 4, uint64(job.Seed)); inc != nil && e.Model.CheckPoint(inc.X, 1e-9) == nil {
			return inc.X
		}
		return nil
	}
	return milpjob.Decode(r, e.Model, e.Decode, job.Data, job.Problem, witness)
}
