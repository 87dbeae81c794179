package race

import "github.com/odtkit/odtkit/backend"

// Options are a race job's options, read once (JobOptions).
type Options struct {
	// Members is the members option as given: the backends to race
	// ("": all).
	Members string
	// Threads is each member's thread count.
	Threads int
}

// JobOptions reads the job's options (every value was validated by
// backend.NewJob: the error is always nil, kept for the shape every
// backend's JobOptions has).
func JobOptions(job *backend.Job) (Options, error) {
	return Options{Members: job.Options.String("members"), Threads: job.Options.Int("threads")}, nil
}
