package flowoct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/model"
)

// Option names and values of milp-flowoct.
const (
	optFormulation   = "formulation"
	optMethod        = "method"
	optDecompose     = "decompose"
	optTight         = "tight"
	optDropConflicts = "drop-conflicts"

	// Strengthened and Published are the values of formulation:
	// strengthened (the default) is the tight form, decomposed by root
	// test; published is FlowOCT as its paper states it (decompose=0,
	// tight=false).
	Strengthened = "strengthened"
	Published    = "published"
	// MethodFlow and MethodBenders are the values of method: the flow
	// MILP, or its Benders form.
	MethodFlow    = "flow"
	MethodBenders = "benders"
)

// params are milp-flowoct's options.
func params() []backend.Param {
	return []backend.Param{
		backend.EnumParam(optFormulation, Strengthened, []string{Strengthened, Published}, "strengthened (the default): the error objective's MILP in its tight form (tight=true), decomposed by root test (decompose=2), which proves what the published MILP leaves open (docs/benchmarks.md); published: FlowOCT (or with method=benders BendersOCT) exactly as the paper states it, the same as decompose=0 tight=false, to compare formulations").
			Renamed(MethodFlow, optMethod+"="+MethodFlow).Renamed(MethodBenders, optMethod+"="+MethodBenders),
		backend.EnumParam(optMethod, MethodFlow, []string{MethodFlow, MethodBenders}, "error objective: flow states every group's flow in one MILP; benders solves a master of the tree variables and adds each group's min-cut cuts between re-solves (the cut loop; the bound of every round is a lower bound)"),
		backend.IntParam(optDecompose, 2, "error objective, flow method on in-process HiGHS: the number of tree levels whose tests are enumerated (each root test splits the rows, the root may be a leaf, and the two subtrees are independent FlowOCT MILPs, each with a cutoff from the incumbent); 0 solves one MILP of the whole tree, as does a node limit (it couples the subtrees). For min-depth and min-size, any value above 0 asks each depth for a tree with no error by enumerating every level down to depth-1 subtrees, and min-size then seeks, the same way, the tree of the minimum depth with no error and the fewest leaves. Export writes the one MILP; formulation=published is 0").AtLeast(0),
		backend.BoolParam(optTight, true, "error objective, flow method without leaf cost, node limit or min support: state each leaf's class per its parent's test, bounding a row group's flow into a leaf by the tests that send it there (the LP bound of a depth-1 tree is its optimum, and a depth-1 tree's MILP needs no flow); formulation=published is false. Export writes the published MILP"),
		milpjob.SolverParam(""),
		milpjob.GapParam(),
		milpjob.WarmStartParam("the greedy tree of the depth (CART's rule, Gini); the decomposition by root test compares each subtree with its greedy tree either way"),
		milpjob.LPBoundParam(true),
		milpjob.HiGHSParam(),
		backend.TrustSolverParam(),
		backend.BoolParam(optDropConflicts, false, "min-depth, min-size: drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"),
	}
}

// Settings are a milp-flowoct job's options, read once (JobSettings):
// how its MILPs are stated and solved.
type Settings struct {
	// Published states FlowOCT as published (formulation=published):
	// Decompose is 0 and Tight false.
	Published bool
	// Benders solves the error objective by the Benders cut loop
	// (method=benders).
	Benders bool
	// Decompose is the number of enumerated levels of the decomposition
	// by root test (0: one MILP).
	Decompose int
	// Tight states the leaves' classes per parent test (Options.Tight).
	Tight bool
	// WarmStart gives the MILP solver the greedy tree as its start.
	WarmStart bool
	// DropConflicts drops conflicting rows (min-depth, min-size);
	// DropConflictsSet says the option was given.
	DropConflicts, DropConflictsSet bool
	// MILP are the options every MILP backend shares.
	MILP milpjob.Options
	// SolveOnly is the first option given that steers the solve but not
	// the MILP ("": none), which an export or a decode refuses.
	// formulation=published is not one: it is the MILP they write.
	SolveOnly string
}

// JobSettings reads the job's options. formulation=published with
// tight=true or decompose above 0 given is refused with
// backend.ErrInvalid, as is method=benders for an objective other than
// the error.
func JobSettings(job *backend.Job) (Settings, error) {
	v := job.Options
	m, err := milpjob.JobOptions(job)
	if err != nil {
		return Settings{}, err
	}
	s := Settings{Published: v.String(optFormulation) == Published, Benders: v.String(optMethod) == MethodBenders,
		Decompose: v.Int(optDecompose), Tight: v.Bool(optTight), WarmStart: v.Bool(milpjob.OptWarmStart),
		DropConflicts: v.Bool(optDropConflicts), DropConflictsSet: v.IsSet(optDropConflicts), MILP: m}
	s.SolveOnly = m.SolveOnly
	for _, k := range []string{milpjob.OptWarmStart, optFormulation, optMethod, optDecompose, optTight} {
		if v.IsSet(k) && s.SolveOnly == "" && (k != optFormulation || !s.Published) {
			s.SolveOnly = k
		}
	}
	if s.Published {
		if v.IsSet(optTight) && s.Tight {
			return s, backend.Invalidf("option tight=true strengthens FlowOCT: formulation=published states the MILP without it")
		}
		if v.IsSet(optDecompose) && s.Decompose > 0 {
			return s, backend.Invalidf("option decompose=%d solves FlowOCT by decomposition: formulation=published states one MILP (decompose=0)", s.Decompose)
		}
		s.Decompose, s.Tight = 0, false
	}
	if s.Benders && job.Problem.Objective != model.MinError {
		return s, backend.Invalidf("option method=benders states the error objective only, not %s", job.Problem.Objective)
	}
	return s, nil
}
