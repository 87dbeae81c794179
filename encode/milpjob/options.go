package milpjob

import (
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Option names the MILP backends share.
const (
	OptGap       = "gap"
	OptHiGHS     = "highs"
	OptSolver    = "milp-solver"
	OptLPBound   = "lp-bound"
	OptWarmStart = "warm-start"
)

// Options are the options every MILP backend shares, read from a job
// once (JobOptions). A formulation package keeps them in its own typed
// options; no other file reads these keys.
type Options struct {
	// Gap is the relative gap at which the solver may stop (0: prove
	// optimality).
	Gap float64
	// HiGHS are the further HiGHS options, NAME → VALUE (nil: none).
	HiGHS map[string]string
	// Solver is the MILP solver's specification (milp.NewSolver).
	Solver string
	// LPBound asks for the LP relaxation's bound first.
	LPBound bool
	// TrustSolver takes an external solver's unchecked claims as proofs.
	TrustSolver bool
	// SolveOnly is the first of these options given that steers the
	// solve but not the MILP ("": none): an export or a decode refuses
	// it (SolveOnlyError).
	SolveOnly string
}

// SolveOnlyError is the error of an export or a decode given option k,
// which steers the solve, not the MILP.
func SolveOnlyError(k string) error {
	return backend.Invalidf("option %s steers the solve, not the MILP: export and decode do not take it", k)
}

// JobOptions reads the shared MILP options of a job validated against
// parameters declared by GapParam, HiGHSParam, SolverParam, LPBoundParam
// and backend.TrustSolverParam (an option a backend does not declare is
// its zero value). A malformed highs list is an error wrapping
// backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	o := readOptions(job)
	h, err := HiGHSOptions(job.Options.String(OptHiGHS))
	if err != nil {
		return o, err
	}
	o.HiGHS = h
	return o, nil
}

// readOptions is JobOptions without the highs list, which needs no
// parsing to be read.
func readOptions(job *backend.Job) Options {
	v := job.Options
	o := Options{Gap: v.Float(OptGap), Solver: v.String(OptSolver), LPBound: v.Bool(OptLPBound),
		TrustSolver: v.Bool(backend.OptTrustSolver)}
	for _, k := range []string{OptGap, OptLPBound, OptHiGHS, OptSolver} {
		if v.IsSet(k) && o.SolveOnly == "" {
			o.SolveOnly = k
		}
	}
	return o
}

// GapParam is the relative gap at which HiGHS may stop.
func GapParam() backend.Param {
	return backend.FloatParam(OptGap, 0, "relative gap at which HiGHS may stop (0 = prove optimality)").AtLeast(0)
}

// HiGHSParam is the list of further HiGHS options.
func HiGHSParam() backend.Param {
	return backend.StringParam(OptHiGHS, "", "further HiGHS options, NAME=VALUE[,NAME=VALUE...] (e.g. mip_heuristic_effort=0.3,presolve=off)")
}

// SolverParam picks the MILP solver; note, when not empty, follows the
// shared help text.
func SolverParam(note string) backend.Param {
	help := milp.SolverSpecHelp
	if note != "" {
		help += "; " + note
	}
	return backend.StringParam(OptSolver, "highs", help).Checked(milp.CheckSolverSpec)
}

// LPBoundParam asks for the LP relaxation's bound first.
func LPBoundParam(def bool) backend.Param {
	return backend.BoolParam(OptLPBound, def, "solve the LP relaxation first and report its bound (stats lp_bound; in-process HiGHS only)")
}

// WarmStartParam is warm-start, which means the same in every MILP
// backend: a heuristic's model, found before the MILP is solved, is the
// solve's first incumbent and the MILP solver's start. heuristic names
// the backend's heuristic and what else it does with it.
func WarmStartParam(heuristic string) backend.Param {
	return backend.BoolParam(OptWarmStart, true, "start from a heuristic's model: it is the first incumbent and the MILP solver's start (false: the heuristic does not run first); the heuristic here: "+heuristic)
}

// HiGHSOptions parses the highs option's NAME=VALUE list; a malformed
// entry is an error wrapping backend.ErrInvalid.
func HiGHSOptions(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(kv, "=")
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		if !ok || k == "" || val == "" {
			return nil, backend.Invalidf("option highs: %q is not NAME=VALUE", kv)
		}
		m[k] = val
	}
	return m, nil
}

// NewSolver is the solver the job's milp-solver option names; a bad
// specification is an error wrapping backend.ErrInvalid.
func NewSolver(job *backend.Job) (milp.Solver, error) {
	s, err := milp.NewSolver(readOptions(job).Solver)
	if err != nil {
		return nil, backend.Invalid(err)
	}
	return s, nil
}

// The option that chooses a MILP form's model, the value every form
// has (the paper's model exactly), and the name of a form's valid
// strengthening (the paper's model with inequalities added that keep an
// optimal tree and lift the LP bound).
const (
	OptFormulation          = "formulation"
	FormulationPublished    = "published"
	FormulationStrengthened = "strengthened"
)

// Tree is what a tree MILP takes from the job's problem.
type Tree struct {
	// Depth is the tree's maximum depth.
	Depth int
	// MinSupport is the least number of rows of a leaf that holds rows
	// (1: any).
	MinSupport int
	// LeafCost is the problem's λ (0: the error objective).
	LeafCost float64
	// MaxSplits caps the splits of the model (0: no cap).
	MaxSplits int
}

// TreeOf is the Tree of a problem.
func TreeOf(p model.Problem) Tree {
	return Tree{Depth: p.MaxDepth, MinSupport: p.MinSupport, LeafCost: p.LeafCost, MaxSplits: p.MaxNodes}
}

// SingleParams are the options of a MILP form solved whole
// (SolveSingle): its formulation option, published or one of alts (help
// says what each is), then the solver's options.
func SingleParams(help string, alts ...string) []backend.Param {
	return []backend.Param{
		backend.EnumParam(OptFormulation, FormulationPublished, append([]string{FormulationPublished}, alts...), help),
		SolverParam(""),
		GapParam(),
		LPBoundParam(true),
		HiGHSParam(),
		backend.TrustSolverParam(),
	}
}

// Formulation reads the formulation option of the backend name's form,
// whose models besides the published one are alts: the value asked for,
// FormulationPublished when none is. Another value is refused with
// backend.ErrInvalid.
func Formulation(job *backend.Job, name string, alts ...string) (string, error) {
	f := job.Options.String(OptFormulation)
	if f == "" || f == FormulationPublished {
		return FormulationPublished, nil
	}
	for _, a := range alts {
		if f == a {
			return f, nil
		}
	}
	return FormulationPublished, backend.Invalidf("%s: option %s=%q: want %s or %s", name, OptFormulation, f, FormulationPublished, strings.Join(alts, " or "))
}
