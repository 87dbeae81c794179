package binoct_test

import (
	"context"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/binoct"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/encode/milpjob/formtest"
	"github.com/odtkit/odtkit/model"
)

// TestForm runs the checks of a MILP form solved whole on milp-binoct:
// optima against brute force and dl85, the conformance suite, the CBC
// round trip, the witness, false infeasibility claims and the
// formulation option (published or binary-leaves).
func TestForm(t *testing.T) {
	formtest.Run(t, formtest.Spec{
		Backend:     "milp-binoct",
		Alternative: binoct.FormulationBinaryLeaves,
		Encode: func(ctx context.Context, d *model.Dataset, tree milpjob.Tree, alt bool) (milpjob.Form, error) {
			return binoct.Encode(ctx, d, binoct.Options{Tree: tree, BinaryLeaves: alt})
		},
		JobOptions: func(job *backend.Job) (milpjob.Tree, bool, error) {
			o, err := binoct.JobOptions(job)
			return o.Tree, o.BinaryLeaves, err
		},
	})
}
