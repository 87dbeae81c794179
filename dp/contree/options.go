package contree

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/internal/sparse"
)

// Options are a contree job's options, read once (JobOptions).
type Options struct {
	// Config is the search's configuration for the job: its options and
	// its depth, budget, workers and bound callback.
	Config Config
}

// JobOptions reads the job's options (every value was validated by
// backend.NewJob: the error is always nil, kept for the shape every
// backend's JobOptions has).
func JobOptions(job *backend.Job) (Options, error) {
	o := job.Options
	return Options{Config: Config{MaxDepth: job.Problem.MaxDepth, MaxGap: o.Int("max-gap"), EtaShortest: o.String("eta") == "min", NoCache: !o.Bool("cache"),
		Budget: job.Budget, Workers: job.Workers(), DepthFirstRoot: o.String("root") == "depth-first",
		RelGap: o.Float(OptGap), AbsGap: o.Float(OptAbsGap), OnBound: job.Bound,
		BoundProbes: o.Int(OptBoundProbes), BoundWork: o.Int(OptBoundWork)}}, nil
}

// Option names of the gap at which a search may stop, and of the bound
// phase.
const (
	OptGap         = "gap"
	OptAbsGap      = "abs-gap"
	OptBoundProbes = "bound-probes"
	OptBoundWork   = "bound-work"
)

// noGap refuses a gap where the search has none (the sparse program of
// a leaf cost or node limit is exact).
func noGap(o Options) error {
	if o.Config.RelGap > 0 || o.Config.AbsGap > 0 || o.Config.BoundProbes > 0 {
		return sparse.Unsupported(OptGap, OptAbsGap, OptBoundProbes)
	}
	return nil
}
