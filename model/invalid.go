package model

import (
	"errors"
	"fmt"
)

// ErrInvalid marks errors caused by the request itself (an unknown
// backend or option, an option value out of range, a problem field the
// backend does not honour, data it cannot take), as opposed to failures
// while solving. Test for it with errors.Is; the CLI maps it to exit 2.
// Package backend re-exports it as backend.ErrInvalid, the same value.
var ErrInvalid = errors.New("invalid request")

type invalidError struct{ err error }

func (e *invalidError) Error() string   { return e.err.Error() }
func (e *invalidError) Unwrap() []error { return []error{e.err, ErrInvalid} }

// Invalid marks err as caused by the request, so that errors.Is(err,
// ErrInvalid) holds and the message is unchanged (nil stays nil).
func Invalid(err error) error {
	if err == nil || errors.Is(err, ErrInvalid) {
		return err
	}
	return &invalidError{err}
}

// Invalidf is Invalid(fmt.Errorf(format, a...)).
func Invalidf(format string, a ...any) error { return Invalid(fmt.Errorf(format, a...)) }
