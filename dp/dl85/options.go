package dl85

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/sparse"
	"github.com/odtkit/odtkit/model"
)

// Options are a dl85 or cadl85 job's options, read once (JobOptions).
type Options struct {
	// Config is the search's configuration for the job: its options and
	// its problem, budget, workers and callbacks.
	Config Config
	// Spec and MaxRestarts are cadl85's pruning rule, relaxation
	// schedule and restart cap.
	Spec        Spec
	MaxRestarts int
}

// JobOptions reads the job's options. A gap asked of a search that has
// none, or a purity threshold above 1, is refused with
// backend.ErrInvalid.
func JobOptions(job *backend.Job) (Options, error) {
	spec, err := jobSpec(job.Options)
	if err != nil {
		return Options{}, err
	}
	if err := noGap(job); err != nil {
		return Options{}, err
	}
	return Options{Config: jobConfig(job), Spec: spec, MaxRestarts: job.Options.Int("max-restarts")}, nil
}

// jobConfig reads the options shared by both backends. A cache-mb of 0
// caps the cache at half the job's memory budget, if it has one.
func jobConfig(job *backend.Job) Config {
	o := job.Options
	s := Config{MaxDepth: job.Problem.MaxDepth, MinSupport: job.Problem.MinSupport,
		CacheMB: o.Float("cache-mb"), NoDepth2: !o.Bool("depth2"), IndexOrder: o.String("order") == "index",
		NoDive: !o.Bool("dive")}
	if s.CacheMB == 0 && job.Budget.Limit() > 0 {
		s.CacheMB = float64(job.Budget.Limit()) / (2 << 20)
	}
	s.OnIncumbent = func(g *model.Graph, e float64) { job.Report.Report(e, g) }
	s.AbsGap, s.RelGap, s.OnBound = o.Float(OptAbsGap), o.Float(OptGap), job.Bound
	s.RootGapOnly = o.String(OptGapBranches) == "exact"
	s.BoundGap = o.Float(OptBoundGap)
	s.Budget = job.Budget
	s.Workers = job.Workers()
	return s
}

// jobSpec reads the rule options of cadl85. The one limit that depends
// on the rule (purity's threshold is at most 1) is checked here, before
// any work, and refused with backend.ErrInvalid like the others.
func jobSpec(o backend.Values) (Spec, error) {
	spec := Spec{Rule: o.String("rule"), Relax: o.String("relax"), Step: o.Float("step")}
	if o.Has("start") {
		spec.Start, spec.StartSet = o.Float("start"), true
	}
	if spec.Rule == "purity" && spec.Start > 1 {
		return spec, backend.Invalidf("option start=%v: the purity rule's threshold is at most 1", spec.Start)
	}
	return spec, nil
}

// Option names of the gap at which a search may stop.
const (
	OptGap         = "gap"
	OptAbsGap      = "abs-gap"
	OptGapBranches = "gap-branches"
	OptBoundGap    = "bound-gap"
)

// noGap refuses a gap where the search has none: the exact programs of
// a leaf cost or node limit and of the consistent-tree objectives.
func noGap(job *backend.Job) error {
	o := job.Options
	if (o.Float(OptGap) > 0 || o.Float(OptAbsGap) > 0) && (sparse.Perfect(job.Problem) || sparse.Wanted(job.Problem)) {
		return sparse.Unsupported(OptGap, OptAbsGap)
	}
	if o.Float(OptBoundGap) > 0 {
		if o.Float(OptGap) > 0 || o.Float(OptAbsGap) > 0 {
			return backend.Invalidf("option %s is for a search without %s or %s (which end the search within their gap)", OptBoundGap, OptGap, OptAbsGap)
		}
		if sparse.Perfect(job.Problem) || sparse.Wanted(job.Problem) {
			return backend.Invalidf("option %s applies to the error objective without leaf cost or node limit", OptBoundGap)
		}
	}
	return nil
}
