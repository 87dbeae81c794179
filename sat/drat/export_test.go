package drat

// WithCompaction makes Elaborate compact its memory at every deletion,
// so that tests on small proofs compact too.
func WithCompaction(o Options) Options {
	o.compactMin = -1
	return o
}
