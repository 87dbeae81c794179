package odtkit

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// heapSample is the runtime metric the memory watch reads: bytes of heap
// memory occupied by objects, live or not yet swept.
const heapSample = "/memory/classes/heap/objects:bytes"

// watchEvery is how often the memory watch samples the heap.
const watchEvery = 20 * time.Millisecond

// limits applies the settings' time limit to ctx and, under a memory cap,
// watches the heap: when it stays above the cap after a collection, the
// context is cancelled with cause model.ErrMemoryLimit, so the backend
// stops as it does for a deadline and the solve ends with status
// memory-limit. stop releases both.
func limits(ctx context.Context, s Settings, b *backend.Budget) (context.Context, func()) {
	var cancels []func()
	if s.TimeLimit > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, s.TimeLimit)
		cancels = append(cancels, c)
	}
	if limit := b.Limit(); limit > 0 {
		var cause context.CancelCauseFunc
		ctx, cause = context.WithCancelCause(ctx)
		done := make(chan struct{})
		go watchHeap(ctx, limit, cause, done)
		cancels = append(cancels, func() { cause(nil); <-done })
	}
	return ctx, func() {
		for i := len(cancels) - 1; i >= 0; i-- {
			cancels[i]()
		}
	}
}

func watchHeap(ctx context.Context, limit int64, cause context.CancelCauseFunc, done chan<- struct{}) {
	defer close(done)
	sample := []metrics.Sample{{Name: heapSample}}
	heap := func() int64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64())
	}
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if heap() <= limit {
			continue
		}
		runtime.GC() // count only what is live
		if h := heap(); h > limit {
			cause(fmt.Errorf("%w: the heap holds %s, the cap is %s", model.ErrMemoryLimit, backend.MB(h), backend.MB(limit)))
			return
		}
	}
}
