// Package memcap holds the error that means a memory cap was reached,
// so that every layer — the model, the solver runners of internal/proc,
// the MILP and SAT packages — wraps the same value without the generic
// solver layers depending on the model. Callers outside the module use
// model.ErrMemoryLimit, the same value.
package memcap

import "errors"

// ErrLimit is the cause of work stopped by its memory cap.
var ErrLimit = errors.New("memory limit reached")
