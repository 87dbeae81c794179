package odd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// DiagramBackend is the milp-odd backend: an optimal decision diagram on
// a skeleton, by the flow MILP on HiGHS, warm-started by the
// construction heuristic. It exports the MILP as MPS and decodes a MILP
// solver's solution file for it.
type DiagramBackend struct{}

// TreeBackend is the milp-odt backend: the tree special case of the same
// MILP, for the fewest (weighted) errors at a depth or the diagram
// objective on a 1-2-4-… skeleton.
type TreeBackend struct{}

// The optional interfaces both backends implement.
var (
	_ backend.Decoder        = DiagramBackend{}
	_ backend.FormatExporter = DiagramBackend{}
	_ backend.Sizer          = DiagramBackend{}
	_ backend.Decoder        = TreeBackend{}
	_ backend.FormatExporter = TreeBackend{}
	_ backend.Sizer          = TreeBackend{}
)

// solveOnly are the options that steer the solve but not the MILP; an
// export refuses them.
var solveOnly = []string{"gap", "warm-start", "restarts", "highs", "lattice-cutoff", "milp-solver", "lp-bound"}

func milpParams() []backend.Param {
	return []backend.Param{
		backend.EnumParam("splits", "univariate", []string{"univariate", "multivariate"}, "univariate (one feature per node, constraints 15-16) or multivariate (oblique) splits"),
		epsilonParam(),
		milpjob.GapParam(),
		backend.BoolParam("warm-start", true, "run the construction heuristic first; its model is the first incumbent, the MIP start, and its objective the cutoff"),
		backend.IntParam("restarts", 1000, "restarts of the construction heuristic (within 10% of the time limit, at most 60s)").AtLeast(0),
		backend.BoolParam("sym-layer1", true, "strengthening: the in-degree order of symmetry-breaking constraint 12 also on layer 1 (the paper starts at layer 2)"),
		backend.BoolParam("error-cuts", true, "strengthening: valid lower bounds on the error (identical rows with different labels; the best univariate stump while only the root is active)"),
		backend.BoolParam("pair-cut", true, "strengthening, with error-cuts and sym-layer1 (or a tree): the error bound also from the best two-node diagram"),
		backend.BoolParam("lattice-cutoff", false, "strengthening: with equal row costs, cut off at the largest objective value (errors x cost + nodes x node cost) below the heuristic's instead of at the heuristic's"),
		milpjob.HiGHSParam(),
		milpjob.SolverParam("a program gets no MIP start or cutoff"),
		milpjob.LPBoundParam(false),
		backend.TrustSolverParam(),
		backend.IntParam("max-active", 0, "parsimony: at most this many active internal nodes (0 = no cap)").AtLeast(0),
		backend.IntParam("min-flow", 0, "stability: at least this many rows through every active internal node but the root").AtLeast(0),
		backend.StringParam("fair-column", "", "fairness: name (or 0-based index) of a 0/1 feature column defining two groups (excluded from the splits)"),
		backend.StringParam("fair-positive", "", "fairness: the positive class (default: the second class); needs fair-column"),
		backend.FloatParam("fair-ratio", 0.8, "fairness: each group's positive rate is at least this times the other's (four-fifths rule); needs fair-column").Above(0).AtMost(1),
	}
}

// epsilonParam is the split margin's override: unset, each column's
// margin comes from the data (see the package doc).
func epsilonParam() backend.Param {
	p := backend.FloatParam("epsilon", 0, "margin of the strict side of a split, on features scaled to [0,1], the same for every column (below 0.5); unset, each column's margin is the smallest gap between its scaled values, at most 1e-4 (univariate splits scale by rank), and oblique splits use the smallest gap of any column, at most 1e-4. A margin above a column's gap forbids the splits between its closest values").Above(0).AtMost(0.4999)
	p.Default, p.DefaultText = "", "from the data"
	return p
}

// Info describes milp-odd.
func (DiagramBackend) Info() backend.Info {
	return backend.Info{
		Name:        "milp-odd",
		Family:      backend.FamilyMILP,
		Description: "optimal decision diagram on a skeleton: the ODD flow MILP (Florio et al. 2023) on HiGHS, warm-started by the construction heuristic (build with -tags highs)",
		Paper:       "Florio, Martins, Schiffer, Serra & Vidal, Optimal Decision Diagrams for Classification, AAAI 2023",
		Objectives:  []model.Objective{model.DiagramError},
		Input:       "numeric (scaled to [0,1]; categorical one-hot)",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{Weights: backend.NoWeights},
		Params:      milpParams(),
	}
}

// Info describes milp-odt. Row weights are the rows' misclassification
// costs (error objective only); a node limit N is the exact constraint
// "at most ⌊(N−1)/2⌋ active internal nodes".
func (TreeBackend) Info() backend.Info {
	return backend.Info{
		Name:        "milp-odt",
		Family:      backend.FamilyMILP,
		Description: "optimal tree as the tree special case of the ODD flow MILP (Florio et al. 2023) on HiGHS (build with -tags highs)",
		Paper:       "Florio, Martins, Schiffer, Serra & Vidal, Optimal Decision Diagrams for Classification, AAAI 2023",
		Objectives:  []model.Objective{model.MinError, model.DiagramError},
		Input:       "numeric (scaled to [0,1]; categorical one-hot)",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{MaxNodes: true, Weights: backend.AnyWeights},
		Params:      milpParams(),
	}
}

// JobOptions maps a job (problem and validated options) to the
// encoder's options: a diagram on the problem's skeleton, or with tree
// the tree special case (of depth MaxDepth for the error objective, or
// on a 1-2-4-… skeleton for the diagram objective). Requests the MILP
// cannot state are refused with backend.ErrInvalid.
func JobOptions(job *backend.Job, tree bool) (Options, error) {
	var o Options
	d, p, v := job.Data, job.Problem, job.Options
	o.Multivariate = v.String("splits") == "multivariate"
	if v.IsSet("epsilon") {
		o.Epsilon = v.Float("epsilon")
	}
	o.MaxActive = v.Int("max-active")
	o.MinFlow = v.Int("min-flow")
	o.FirstLayerOrder = v.Bool("sym-layer1")
	o.ErrorCuts = v.Bool("error-cuts")
	o.PairCut = v.Bool("pair-cut")
	if col := v.String("fair-column"); col != "" {
		f := &Fairness{Column: -1, Positive: min(1, d.NumClasses()-1), Xi: v.Float("fair-ratio")}
		for j, ft := range d.Features {
			if ft.Name == col {
				f.Column = j
			}
		}
		if f.Column < 0 {
			j, err := strconv.Atoi(col)
			if err != nil || j < 0 || j >= d.NumFeatures() {
				return o, backend.Invalidf("option fair-column=%q names no feature", col)
			}
			f.Column = j
		}
		if pc := v.String("fair-positive"); pc != "" {
			if f.Positive = slices.Index(d.Classes, pc); f.Positive < 0 {
				return o, backend.Invalidf("option fair-positive=%q names no class (classes: %s)", pc, strings.Join(d.Classes, ", "))
			}
		}
		o.Fair = f
	} else {
		for _, k := range []string{"fair-positive", "fair-ratio"} {
			if v.IsSet(k) {
				return o, backend.Invalidf("option %s needs fair-column", k)
			}
		}
	}
	o.Tree = tree
	switch p.Objective {
	case model.DiagramError:
		if d.Weights != nil {
			return o, backend.Invalidf("the diagram objective counts unweighted errors: row weights apply to milp-odt's error objective only")
		}
		o.Skeleton, o.Alpha = p.Skeleton, p.Alpha
	case model.MinError:
		if p.MaxDepth < 1 {
			return o, backend.Invalidf("the tree MILP needs a depth of at least 1 (--depth K; at depth 0 milp-odt solves without it)")
		}
		o.Skeleton = TreeSkeleton(p.MaxDepth)
		o.RowCost = make([]float64, d.Rows())
		for i := range o.RowCost {
			o.RowCost[i] = d.Weight(i)
		}
	}
	if tree && p.MaxNodes > 0 {
		// Problem.MaxNodes bounds internal nodes; Options.MaxNodes counts
		// all nodes of the tree (k tests: 2k+1 nodes).
		o.MaxNodes = 2*p.MaxNodes + 1
	}
	return o, nil
}

// encode builds the job's MILP; encoder errors about the request are
// ErrInvalid.
func encode(ctx context.Context, job *backend.Job, tree bool) (*Encoding, error) {
	// A job made without NewJob is checked here too: never ignore a field.
	if err := backend.Check(infoOf(tree), job.Data, job.Problem); err != nil {
		return nil, err
	}
	o, err := JobOptions(job, tree)
	if err != nil {
		return nil, err
	}
	e, err := EncodeContext(ctx, job.Data, o)
	if errors.Is(err, ErrInput) {
		return nil, backend.Invalid(err)
	}
	return e, err
}

func infoOf(tree bool) backend.Info {
	if tree {
		return TreeBackend{}.Info()
	}
	return DiagramBackend{}.Info()
}

// Solve runs the heuristic and HiGHS on the diagram MILP.
func (DiagramBackend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	return solveJob(ctx, job, false)
}

// Solve runs the heuristic and HiGHS on the tree MILP.
func (TreeBackend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	return solveJob(ctx, job, true)
}

func solveJob(ctx context.Context, job *backend.Job, tree bool) (*model.Result, error) {
	if (tree && job.Problem.Objective == model.MinError && job.Problem.MaxDepth == 0) || job.Data.NumClasses() == 1 {
		// No MILP: the tree is one leaf at depth 0, and a leaf is optimal
		// (no error, no node) on data of one class.
		if err := backend.Check(infoOf(tree), job.Data, job.Problem); err != nil {
			return nil, err
		}
		if job.Problem.MaxDepth > 0 || !tree || job.Problem.Objective != model.MinError {
			// The request is checked as for a MILP.
			o, err := JobOptions(job, tree)
			if err != nil {
				return nil, err
			}
			if err := o.check(job.Data); err != nil {
				return nil, backend.Invalid(err)
			}
		}
		return singleLeaf(job, tree), nil
	}
	hopts, err := milpjob.HiGHSOptions(job.Options.String(milpjob.OptHiGHS))
	if err != nil {
		return nil, err
	}
	if err := backend.Check(infoOf(tree), job.Data, job.Problem); err != nil {
		return nil, err
	}
	size, release, err := admit(job, tree, true)
	defer release()
	if err != nil {
		return nil, err
	}
	e, err := encode(ctx, job, tree)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, backend.ErrInvalid) {
			return &model.Result{Status: model.StoppedStatus(ctx)}, nil
		}
		return nil, err
	}
	solver, err := milpjob.NewSolver(job)
	if err != nil {
		return nil, err
	}
	external := milp.IsExternal(solver)
	if !milp.HiGHSEnabled && !external {
		return nil, milp.ErrNotEnabled
	}
	d, p, v := job.Data, job.Problem, job.Options
	stats := map[string]any{"columns": len(e.Model.Columns), "rows": len(e.Model.Rows),
		"binaries": e.Model.NumIntegers(), "nonzeros": e.Model.NumNonzeros(), "size_estimate": size}
	var best *model.Graph
	bestObj := math.Inf(1)
	offer := func(g *model.Graph) {
		if obj := p.Evaluate(d, g); obj < bestObj-1e-12 {
			best, bestObj = g, obj
			job.Report.Report(obj, g)
		}
	}
	params := milpjob.Params(job, hopts)
	params.MemoryLimit = job.Budget.Limit()
	milpjob.LPBound(ctx, job, solver, e.Model, stats)
	if v.Bool("warm-start") {
		// Step 1: within 10% of the time left, at most 60 s.
		budget := 60 * time.Second
		if dl, ok := ctx.Deadline(); ok {
			budget = min(budget, time.Until(dl)/10)
		}
		hctx, cancel := context.WithTimeout(ctx, budget)
		start := time.Now()
		inc := e.Heuristic(hctx, v.Int("restarts"), uint64(job.Seed))
		cancel()
		stats["heuristic_seconds"] = time.Since(start).Seconds()
		if inc != nil {
			// The heuristic knows the skeleton, not every side constraint
			// (node limits, parsimony, stability, fairness): its diagram is an
			// incumbent, a start and a cutoff only when it satisfies the MILP,
			// or the cutoff's infeasibility would "prove" a model that breaks
			// them.
			if err := e.Model.CheckPoint(inc.X, 1e-6); err != nil {
				stats["heuristic_rejected"] = err.Error()
				inc = nil
			}
		}
		if inc != nil {
			offer(inc.Graph)
			stats["heuristic_objective"] = bestObj
		}
		if inc != nil && !external {
			// The paper's cutoff, plus the model itself as a MIP start.
			params.Cutoff, params.HasCutoff, params.Start = bestObj, true, inc.X
			if c, ok := e.cutoffBelow(bestObj); ok && v.Bool("lattice-cutoff") {
				params.Cutoff = c
				stats["cutoff"] = c
			}
		}
	}
	res := &model.Result{Stats: stats}
	sol, err := milpjob.Solve(ctx, solver, e.Model, params, stats)
	if err != nil {
		return nil, err
	}
	consistent := false
	if sol.X != nil {
		g, err := e.Decode(sol.X)
		if err != nil {
			return nil, err
		}
		obj := p.Evaluate(d, g)
		stats["decoded_objective"] = obj
		consistent = milpjob.Same(obj, sol.Objective)
		offer(g)
	}
	res.Model = best
	if sol.MemoryLimit && !milpProven(sol, params.HasCutoff, consistent, bestObj) {
		// The best model (if any) is in the job's trace.
		return nil, fmt.Errorf("%w: HiGHS stopped with the process's resident memory above the cap of %s", model.ErrMemoryLimit, backend.MB(job.Budget.Limit()))
	}
	if best == nil {
		res.Status = milpjob.Status(ctx, sol, false, false)
		if external {
			milpjob.ClaimExternal(res, milp.Claimant(solver), 0)
		}
		return res, nil
	}
	res.Optimal = milpProven(sol, params.HasCutoff, consistent, bestObj)
	if external && sol.Status == milp.StatusOptimal && (!consistent || bestObj < sol.Objective-1e-6*math.Max(1, math.Abs(bestObj))) {
		// A program's optimality claim that its own point or the
		// heuristic's model contradicts is a wrong answer, never an optimum.
		return nil, milpjob.WrongClaim(solver, sol.Objective, stats["decoded_objective"], bestObj)
	}
	res.Status = milpjob.Status(ctx, sol, true, res.Optimal)
	res.Errors, res.Objective = best.Errors(d), bestObj
	if res.Optimal {
		res.LowerBound = bestObj
	} else {
		res.LowerBound = math.Max(0, math.Min(sol.BoundOrZero(), bestObj))
	}
	if external {
		// The program's "optimal" and bound are its word, not odtkit's.
		milpjob.ClaimExternal(res, milp.Claimant(solver), 0)
	}
	return res, nil
}

// singleLeaf is the optimal depth-0 tree: a leaf of the class of largest
// weight.
func singleLeaf(job *backend.Job, tree bool) *model.Result {
	d := job.Data
	w := make([]float64, d.NumClasses())
	for r := range d.Rows() {
		w[d.Labels[r]] += d.Weight(r)
	}
	c, _ := model.Majority(w)
	kind := model.KindDiagram
	if tree {
		kind = model.KindTree
	}
	b := model.NewBuilder(d, kind)
	g := b.Graph(b.Leaf(c))
	obj := job.Problem.Evaluate(d, g)
	job.Report.Report(obj, g)
	return &model.Result{Model: g, Errors: g.Errors(d), Objective: obj, LowerBound: obj, Optimal: true, Status: model.StatusOptimal}
}

// milpProven reports whether the best model (objective bestObj) is
// proven optimal by a MILP run that ended with sol: HiGHS proved that
// nothing beats the cutoff (the heuristic's objective), or proved its
// solution optimal, that solution decodes to a model of the same
// objective (consistent), and the best model is not worse.
func milpProven(sol *milp.Solution, hasCutoff, consistent bool, bestObj float64) bool {
	switch sol.Status {
	case milp.StatusInfeasible:
		return hasCutoff
	case milp.StatusOptimal:
		// HiGHS's objective of a point is within its tolerances (flows
		// and λ integral to ~1e-6) of the diagram's, as consistent checks;
		// the same tolerance here (found: a point 3e-9 below the decoded
		// diagram's objective made a closed search "unproven").
		return consistent && bestObj <= sol.Objective+1e-6*math.Max(1, math.Abs(bestObj))
	}
	return false
}

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
func (DiagramBackend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (*model.Result, error) {
	return decode(ctx, job, r, false)
}

// Decode reads a MILP solver's solution file for the exported tree MILP.
func (TreeBackend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (*model.Result, error) {
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
	if err := backend.Check(infoOf(tree), job.Data, job.Problem); err != nil {
		return nil, func() {}, err
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
	return milpjob.Decode(r, e.Model, e.Decode, job.Data, job.Problem)
}
