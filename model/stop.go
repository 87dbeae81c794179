package model

import (
	"context"
	"errors"

	"github.com/odtkit/odtkit/internal/memcap"
)

// ErrMemoryLimit is the cause of a solve stopped by its memory cap: a
// backend's accounting refused an allocation, or the process's heap grew
// past the cap. Such a solve returns its best model with status
// memory-limit. It is memcap.ErrLimit, the value the solver layers wrap.
var ErrMemoryLimit = memcap.ErrLimit

// StoppedStatus says why a solve whose context is done stopped: its
// deadline (time-limit), its memory cap (memory-limit: the context's
// cause wraps ErrMemoryLimit) or its caller (cancelled). It returns ""
// while ctx is not done.
func StoppedStatus(ctx context.Context) Status {
	switch {
	case ctx.Err() == nil:
		return ""
	case errors.Is(context.Cause(ctx), ErrMemoryLimit):
		return StatusMemory
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return StatusTimeLimit
	}
	return StatusCancelled
}

// EndStatus is the status of a search that returns its best model:
// optimal when it proved it; else, when it stopped early or its context
// is done, why it stopped (StoppedStatus, or time-limit when a solver
// gave up a moment before its context reports the end); else feasible.
func EndStatus(ctx context.Context, optimal, stopped bool) Status {
	switch {
	case optimal:
		return StatusOptimal
	case stopped || ctx.Err() != nil:
		if st := StoppedStatus(ctx); st != "" {
			return st
		}
		return StatusTimeLimit
	}
	return StatusFeasible
}
