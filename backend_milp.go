package odtkit

import (
	"context"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/model"
)

// milpBackend is milp-odd or milp-odt (package encode/odd).
type milpBackend struct{ tree bool }

func (b milpBackend) backend() backend.Backend {
	if b.tree {
		return odd.TreeBackend{}
	}
	return odd.DiagramBackend{}
}

func (b milpBackend) Info() Info { return adapted{b.backend()}.Info() }

func (b milpBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	return adapted{b.backend()}.Solve(ctx, job)
}
