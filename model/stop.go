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

// StopReason is why a search ended, as its backend reports it in
// Result.Stop; the status rule (backend.Settle) names the result's
// status from it.
type StopReason string

const (
	// StopUnsaid: the backend did not say; the status rule asks the
	// solve's context (a done context names the stop, else the search ended on
	// its own).
	StopUnsaid StopReason = ""
	// StopNone: the search ended on its own — it finished, a heuristic
	// reached its end, a solver stopped at the gap it was given, an
	// answer was read to its end — whatever the context says since.
	StopNone StopReason = "none"
	// StopTimeLimit, StopCancelled and StopMemory: the time limit, the
	// caller or a memory limit stopped the search.
	StopTimeLimit = StopReason(StatusTimeLimit)
	StopCancelled = StopReason(StatusCancelled)
	StopMemory    = StopReason(StatusMemory)
	// StopGap: the search stopped once its model was within the gap the
	// user allowed.
	StopGap = StopReason(StatusGap)
	// StopGaveUp: a solver stopped on its own limit (one set just short
	// of the context's deadline): the context's stop when it is done,
	// else the time limit.
	StopGaveUp StopReason = "gave-up"
)

// StopOf is the stop a done ctx names (see StoppedStatus); StopUnsaid
// while ctx is not done.
func StopOf(ctx context.Context) StopReason { return StopReason(StoppedStatus(ctx)) }

// Ended is the stop of a search that returns its best model by itself:
// StopGaveUp when gaveUp says a solver stopped early on its own limit,
// else the context's stop when it is done, else StopNone.
func Ended(ctx context.Context, gaveUp bool) StopReason {
	if gaveUp {
		return StopGaveUp
	}
	if s := StopOf(ctx); s != StopUnsaid {
		return s
	}
	return StopNone
}
