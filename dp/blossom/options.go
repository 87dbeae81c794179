package blossom

import "github.com/odtkit/odtkit/backend"

// Options are a blossom job's options, read once (JobOptions).
type Options struct {
	// Config is the search's configuration for the job: its options and
	// its depth, budget and workers.
	Config Config
}

// JobOptions reads the job's options (every value was validated by
// backend.NewJob: the error is always nil, kept for the shape every
// backend's JobOptions has).
func JobOptions(job *backend.Job) (Options, error) {
	s := Config{MaxDepth: job.Problem.MaxDepth, Order: Order(job.Options.String("order"))}
	for _, sw := range switches(&s) {
		*sw.off = !job.Options.Bool(sw.param.Name)
	}
	s.Budget, s.Workers = job.Budget, job.Workers()
	s.RelGap, s.AbsGap = job.Options.Float(OptGap), job.Options.Float(OptAbsGap)
	return Options{Config: s}, nil
}

// Option names of the gap at which a search may stop.
const (
	OptGap    = "gap"
	OptAbsGap = "abs-gap"
)
