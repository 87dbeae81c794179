package oct_test

import (
	"context"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/encode/milpjob/formtest"
	"github.com/odtkit/odtkit/encode/oct"
	"github.com/odtkit/odtkit/model"
)

// TestForm runs the checks of a MILP form solved whole on milp-oct:
// optima against brute force and dl85, the conformance suite, the CBC
// round trip, the witness, false infeasibility claims and the
// formulation option (published or aggregated).
func TestForm(t *testing.T) {
	formtest.Run(t, formtest.Spec{
		Backend:     "milp-oct",
		Alternative: oct.FormulationAggregated,
		Encode: func(ctx context.Context, d *model.Dataset, tree milpjob.Tree, alt bool) (milpjob.Form, error) {
			return oct.Encode(ctx, d, oct.Options{Tree: tree, Aggregate: alt})
		},
		JobOptions: func(job *backend.Job) (milpjob.Tree, bool, error) {
			o, err := oct.JobOptions(job)
			return o.Tree, o.Aggregate, err
		},
	})
}
