package backend

import (
	"fmt"
	"sync/atomic"

	"github.com/odtkit/odtkit/model"
)

// Budget accounts a solve's big allocations (caches, pair-count tables,
// encodings) against its memory cap, so that a backend can estimate
// before it allocates, switch to a bounded method when a structure does
// not fit, and stop with model.ErrMemoryLimit when even that cannot fit.
//
// A nil *Budget has no cap: every method works on it. Budget is safe for
// concurrent use.
type Budget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// NewBudget returns a budget of limit bytes (0 or less: no cap).
func NewBudget(limit int64) *Budget { return &Budget{limit: max(limit, 0)} }

// Limit is the cap in bytes (0 = none).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is the number of bytes reserved now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Peak is the largest number of bytes reserved at once.
func (b *Budget) Peak() int64 {
	if b == nil {
		return 0
	}
	return b.peak.Load()
}

// Fits reports whether n more bytes fit under the cap now.
func (b *Budget) Fits(n int64) bool {
	return b == nil || b.limit == 0 || b.used.Load()+n <= b.limit
}

// Reserve accounts n bytes, or returns an error wrapping
// model.ErrMemoryLimit (and reserves nothing) when they would exceed the
// cap. what names the structure for the message.
func (b *Budget) Reserve(n int64, what string) error {
	if b == nil || n <= 0 {
		return nil
	}
	u := b.used.Add(n)
	if b.limit > 0 && u > b.limit {
		b.used.Add(-n)
		return fmt.Errorf("%w: %s needs %s, %s of %s in use", model.ErrMemoryLimit, what, MB(n), MB(u-n), MB(b.limit))
	}
	for {
		p := b.peak.Load()
		if u <= p || b.peak.CompareAndSwap(p, u) {
			return nil
		}
	}
}

// Release returns n bytes reserved earlier.
func (b *Budget) Release(n int64) {
	if b != nil && n > 0 {
		b.used.Add(-n)
	}
}

// MB formats a byte count in MiB for messages.
func MB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
