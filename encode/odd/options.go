package odd

import (
	"slices"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/model"
)

// Values of the formulation option.
const (
	// Strengthened is the paper's MILP with the strengthenings their
	// options turn on (the default).
	Strengthened = "strengthened"
	// Published is the MILP exactly as the paper states it.
	Published = "published"
)

func milpParams() []backend.Param {
	return []backend.Param{
		backend.EnumParam("splits", "univariate", []string{"univariate", "multivariate"}, "univariate (one feature per node, constraints 15-16) or multivariate (oblique) splits"),
		epsilonParam(),
		milpjob.GapParam(),
		milpjob.WarmStartParam("the construction heuristic, run first; its objective is also the cutoff (in-process HiGHS)"),
		backend.IntParam("restarts", 1000, "restarts of the construction heuristic (within 10% of the time limit, at most 60s)").AtLeast(0),
		backend.EnumParam("formulation", Strengthened, []string{Strengthened, Published}, "strengthened (the default): the paper's MILP with the strengthenings their options turn on (sym-layer1, error-cuts, pair-cut, count-cut, diagram-cut), valid inequalities and symmetry breaking that keep an optimal diagram and lift the LP bound, which proves cells the paper's MILP leaves open (docs/benchmarks.md); published: the MILP exactly as the paper states it, every strengthening off, to compare formulations"),
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
	if v.String("formulation") == Published {
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

// Settings are how a milp-odd or milp-odt job solves its MILP, read
// from its options once (JobSettings); the MILP itself is stated by
// JobOptions.
type Settings struct {
	// Formulation is strengthened or published.
	Formulation string
	// WarmStart runs the construction heuristic first (Restarts
	// restarts); LatticeCutoff cuts off below its objective on the
	// lattice of objective values.
	WarmStart     bool
	Restarts      int
	LatticeCutoff bool
	// MILP are the options every MILP backend shares.
	MILP milpjob.Options
}

// JobSettings reads how the job solves its MILP; a malformed highs list
// is refused with backend.ErrInvalid.
func JobSettings(job *backend.Job) (Settings, error) {
	v := job.Options
	m, err := milpjob.JobOptions(job)
	s := Settings{Formulation: v.String("formulation"), WarmStart: v.Bool(milpjob.OptWarmStart), Restarts: v.Int("restarts"),
		LatticeCutoff: v.Bool("lattice-cutoff"), MILP: m}
	return s, err
}
