package odd

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
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

func milpParams() []backend.Param {
	return []backend.Param{
		backend.EnumParam("splits", "univariate", []string{"univariate", "multivariate"}, "univariate (one feature per node, constraints 15-16) or multivariate (oblique) splits"),
		epsilonParam(),
		milpjob.GapParam(),
		backend.BoolParam("warm-start", true, "run the construction heuristic first; its model is the first incumbent, the MIP start, and its objective the cutoff"),
		backend.IntParam("restarts", 1000, "restarts of the construction heuristic (within 10% of the time limit, at most 60s)").AtLeast(0),
		backend.EnumParam("formulation", "strengthened", []string{"strengthened", "published"}, "strengthened (the default): the paper's MILP with the strengthenings their options turn on (sym-layer1, error-cuts, pair-cut, count-cut, diagram-cut), valid inequalities and symmetry breaking that keep an optimal diagram and lift the LP bound, which proves cells the paper's MILP leaves open (docs/benchmarks.md); published: the MILP exactly as the paper states it, every strengthening off, to compare formulations"),
		backend.BoolParam("sym-layer1", true, "strengthening: the in-degree order of symmetry-breaking constraint 12 also on layer 1 (the paper starts at layer 2)"),
		backend.BoolParam("error-cuts", true, "strengthening: valid lower bounds on the error (identical rows with different labels; the best univariate stump while only the root is active)"),
		backend.BoolParam("pair-cut", true, "strengthening, with error-cuts and sym-layer1 (or a tree): the error bound also from the best two-node diagram"),
		backend.BoolParam("count-cut", true, "strengthening, with error-cuts (univariate splits): the error bound by the number of active nodes, the least error of any classifier of as many threshold tests, of any diagram of two or three nodes, and, for diagrams, of a tree of the skeleton's depth up to 3 (each found by enumeration within a work cap)"),
		backend.BoolParam("diagram-cut", true, "strengthening, with error-cuts (univariate splits, diagrams on skeletons of depth 2 or 3, not milp-odt's trees): the least objective of a branch and bound over the skeleton's diagrams (the tests of every layer but the last enumerated, the last layer's nodes and their sharing chosen exactly; within a quarter of the time left and a work cap) as a bound, and its best diagram as an incumbent and MIP start. When it finishes, the MILP's LP bound meets the optimum: the proof then rests on this enumeration, which the MILP confirms (docs/benchmarks.md)"),
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

// strengthenings are the options of the valid inequalities and
// symmetry breaking beyond the paper's formulation.
var strengthenings = []string{"sym-layer1", "error-cuts", "pair-cut", "count-cut", "diagram-cut"}

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
	if v.String("formulation") == "published" {
		for _, k := range strengthenings {
			if v.IsSet(k) && v.Bool(k) {
				return o, backend.Invalidf("option %s=true is a strengthening: formulation=published states the MILP without it", k)
			}
		}
	} else {
		o.FirstLayerOrder = v.Bool("sym-layer1")
		o.ErrorCuts = v.Bool("error-cuts")
		o.PairCut = v.Bool("pair-cut")
		o.CountCut = v.Bool("count-cut")
		o.DiagramCut = v.Bool("diagram-cut")
	}
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
