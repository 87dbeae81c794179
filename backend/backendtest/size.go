package backendtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// checkSize checks a backend that estimates its formulation
// (backend.Sizer): the estimate of the hard problem, under a memory cap
// an eighth of it, is refused as the registry's Check refuses it (an
// error wrapping backend.ErrInvalid, or a size the budget does not
// admit), and a solve under that cap builds nothing: it is refused the
// same way, or stops for memory, at once.
func checkSize(t *testing.T, b backend.Backend, c Config) {
	sz, ok := b.(backend.Sizer)
	if !ok {
		t.Skipf("%s builds no formulation it estimates (no backend.Sizer)", b.Info().Name)
	}
	d, p := hard(b.Info(), c)
	job := func(capBytes int64) *backend.Job {
		j, err := backend.NewJob(b.Info(), d, p, c.Options)
		if err != nil {
			t.Fatalf("job on %s: %v", d.Name, err)
		}
		j.Budget = backend.NewBudget(capBytes)
		return j
	}
	full, err := sz.Size(job(0))
	if err != nil {
		t.Fatalf("Size without a memory cap: %v", err)
	}
	if full.Bytes <= 0 {
		t.Skipf("the hard problem needs no formulation (size %v)", full)
	}
	if full.Variables < 0 || full.Constraints < 0 || full.NonZeros < 0 {
		t.Fatalf("negative size %v", full)
	}
	capBytes := max(full.Bytes/8, 1)
	small := job(capBytes)
	s, err := sz.Size(small)
	switch {
	case err != nil && !errors.Is(err, backend.ErrInvalid):
		t.Fatalf("Size under a cap of %d bytes: an error not marked invalid: %v", capBytes, err)
	case err == nil && small.Budget.Admit(s, "the formulation") == nil:
		t.Fatalf("a formulation of %d bytes without a cap is admitted under a cap of %d bytes (estimated %d)", full.Bytes, capBytes, s.Bytes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := b.Solve(ctx, job(capBytes))
	took := time.Since(start)
	switch {
	case err != nil && !errors.Is(err, backend.ErrInvalid) && !errors.Is(err, model.ErrMemoryLimit):
		t.Fatalf("a solve under a cap of %d bytes failed: %v", capBytes, err)
	case err == nil && res != nil && res.Status != model.StatusMemory:
		t.Fatalf("a solve under a cap of %d bytes (the formulation needs %d) ended with status %q", capBytes, full.Bytes, res.Status)
	}
	if took > c.Latency+c.Slack {
		t.Errorf("the refusal took %v", took)
	}
}
