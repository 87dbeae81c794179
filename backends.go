package odtkit

import (
	"context"

	"github.com/odtkit/odtkit/model"
)

// DefaultRegistry returns a registry holding every backend built into
// this binary.
func DefaultRegistry() *Registry {
	// Backends are listed here, one line each, in the order `odt backends` shows them.
	return NewRegistry(
		cartBackend{},
		dl85Backend{},
		cadl85Backend{},
		blossomBackend{},
		satBackend{}, satBackend{size: true},
		milpBackend{},           // milp-odd
		milpBackend{tree: true}, // milp-odt
		contreeBackend{},
	)
}

// Solve runs a solve with the default registry; see Registry.Solve.
func Solve(ctx context.Context, d *model.Dataset, p model.Problem, s Settings) (*model.Result, error) {
	return DefaultRegistry().Solve(ctx, d, p, s)
}
