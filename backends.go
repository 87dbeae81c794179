package odtkit

import (
	"context"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/blossom"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/dp/contree"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/encode/avellaneda"
	"github.com/odtkit/odtkit/encode/binoct"
	"github.com/odtkit/odtkit/encode/cpodt"
	"github.com/odtkit/odtkit/encode/dt1"
	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/encode/oct"
	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/encode/satodd"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/race"
)

// DefaultRegistry returns a registry holding every backend built into
// this binary, with the export encodings' old names as aliases.
func DefaultRegistry() *Registry {
	// One line per backend, in the order `odt backends` shows them; each
	// solver package owns its backend.
	r := NewRegistry(defaultBackends()...)
	for alias, name := range map[string]string{"depth": "sat-depth", "size": "sat-size", "odd": "milp-odd", "odt": "milp-odt"} {
		if _, ok := r.Get(name); ok {
			_ = r.Alias(alias, name) // cannot fail: name is registered, alias is not a backend
		}
	}
	return r
}

func defaultBackends() []backend.Backend {
	return []backend.Backend{
		cart.Backend{},
		dl85.Backend{},
		dl85.AnytimeBackend{},
		blossom.Backend{},
		avellaneda.DepthBackend{}, avellaneda.SizeBackend{},
		dt1.Backend{},
		satodt.Backend{}, satodd.Backend{},
		odd.DiagramBackend{}, odd.TreeBackend{},
		flowoct.Backend{},
		oct.Backend{},
		binoct.Backend{},
		contree.Backend{},
		cpodt.Backend{},
		race.New("race", dl85.Backend{}, blossom.Backend{}, contree.Backend{}),
	}
}

// Solve runs a solve with the default registry; see Registry.Solve.
func Solve(ctx context.Context, d *model.Dataset, p model.Problem, s Settings) (*model.Result, error) {
	return DefaultRegistry().Solve(ctx, d, p, s)
}

// Check validates a request with the default registry; see Registry.Check.
func Check(d *model.Dataset, p model.Problem, s Settings) error {
	return DefaultRegistry().Check(d, p, s)
}

// Export writes the formulation of the problem for the named backend with
// the default registry (DIMACS for sat-depth and sat-size, MPS for
// milp-odd and milp-odt) and returns the format written; see
// Registry.Export. Decode reads a solver's answer to it back.
func Export(ctx context.Context, w io.Writer, d *model.Dataset, p model.Problem, s Settings) (string, error) {
	return DefaultRegistry().Export(ctx, w, d, p, s)
}

// Decode reads an external solver's solution of the formulation Export
// wrote for the same data, problem and settings, with the default
// registry, and returns it as a verified result; see Registry.Decode.
func Decode(ctx context.Context, solution io.Reader, d *model.Dataset, p model.Problem, s Settings) (*model.Result, error) {
	return DefaultRegistry().Decode(ctx, solution, d, p, s)
}
