package cart

import "github.com/odtkit/odtkit/backend"

// Options are a cart job's options, read once (JobOptions).
type Options struct {
	// MinLeaf is the least number of rows in a leaf (the problem's
	// minimum support applies when larger).
	MinLeaf int
}

// JobOptions reads the job's options (every value was validated by
// backend.NewJob: the error is always nil, kept for the shape every
// backend's JobOptions has).
func JobOptions(job *backend.Job) (Options, error) {
	return Options{MinLeaf: job.Options.Int("min-leaf")}, nil
}
