package sparse

import "github.com/odtkit/odtkit/backend"

// Options are the options of a job the sparse and perfect-tree
// programs read, once (JobOptions).
type Options struct {
	// DropConflicts drops rows whose tests equal another row's with a
	// different label (keeping each group's majority label) instead of
	// failing (min-depth, min-size, min-nodes).
	DropConflicts bool
}

// JobOptions reads the job's options (every value was validated by
// backend.NewJob: the error is always nil, kept for the shape every
// backend's JobOptions has).
func JobOptions(job *backend.Job) (Options, error) {
	return Options{DropConflicts: job.Options.Bool("drop-conflicts")}, nil
}
