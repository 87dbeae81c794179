package odd

import (
	"context"
	"errors"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// DiagramBackend is the milp-odd backend: an optimal decision diagram on
// a skeleton, by the flow MILP on HiGHS, warm-started by the
// construction heuristic. It exports the MILP as MPS and decodes a MILP
// solver's solution file for it.
type DiagramBackend struct{}

// TreeBackend is the milp-odt backend: the tree special case of the same
// MILP, for the fewest (weighted) errors at a depth or the diagram
// objective on a 1-2-4-… skeleton.
type TreeBackend struct{}

// The optional interfaces both backends implement.
var (
	_ backend.Decoder        = DiagramBackend{}
	_ backend.FormatExporter = DiagramBackend{}
	_ backend.Sizer          = DiagramBackend{}
	_ backend.Decoder        = TreeBackend{}
	_ backend.FormatExporter = TreeBackend{}
	_ backend.Sizer          = TreeBackend{}
)

// Info describes milp-odd.
func (DiagramBackend) Info() backend.Info {
	return backend.Info{
		Name:        "milp-odd",
		Family:      backend.FamilyMILP,
		Description: "optimal decision diagram on a skeleton: the ODD flow MILP (Florio et al. 2023) on HiGHS, warm-started by the construction heuristic (build with -tags highs)",
		Paper:       "Florio, Martins, Schiffer, Serra & Vidal, Optimal Decision Diagrams for Classification, AAAI 2023",
		Objectives:  []model.Objective{model.DiagramError},
		Input:       "numeric (scaled to [0,1]; categorical one-hot)",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{Weights: backend.NoWeights},
		Params:      milpParams(),
	}
}

// Info describes milp-odt. Row weights are the rows' misclassification
// costs (error objective only); a node limit N is the exact constraint
// "at most ⌊(N−1)/2⌋ active internal nodes".
func (TreeBackend) Info() backend.Info {
	return backend.Info{
		Name:        "milp-odt",
		Family:      backend.FamilyMILP,
		Description: "optimal tree as the tree special case of the ODD flow MILP (Florio et al. 2023) on HiGHS (build with -tags highs)",
		Paper:       "Florio, Martins, Schiffer, Serra & Vidal, Optimal Decision Diagrams for Classification, AAAI 2023",
		Objectives:  []model.Objective{model.MinError, model.DiagramError},
		Input:       "numeric (scaled to [0,1]; categorical one-hot)",
		Exact:       true,
		Anytime:     true,
		Caps:        backend.Caps{MaxNodes: true, Weights: backend.AnyWeights},
		Params:      milpParams(),
	}
}

// encode builds the job's MILP; encoder errors about the request are
// ErrInvalid.
func encode(ctx context.Context, job *backend.Job, tree bool) (*Encoding, error) {
	o, err := JobOptions(job, tree)
	if err != nil {
		return nil, err
	}
	e, err := Encode(ctx, job.Data, o)
	if errors.Is(err, ErrInput) {
		return nil, backend.Invalid(err)
	}
	return e, err
}
