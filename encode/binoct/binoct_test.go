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

// encode builds the MILP of formulation form.
func encode(ctx context.Context, d *model.Dataset, tree milpjob.Tree, form string) (milpjob.Form, error) {
	return binoct.Encode(ctx, d, binoct.Options{Tree: tree,
		BinaryLeaves: form == binoct.FormulationBinaryLeaves,
		Strengthen:   form == binoct.FormulationStrengthened})
}

// TestForm runs the checks of a MILP form solved whole on milp-binoct:
// optima against brute force and dl85, the witness, false infeasibility
// claims and the formulation option in every formulation, and the
// conformance suite and the CBC round trip of the published one (published, binary-leaves or strengthened).
func TestForm(t *testing.T) {
	formtest.Run(t, formtest.Spec{
		Backend:      "milp-binoct",
		Alternatives: []string{binoct.FormulationBinaryLeaves, binoct.FormulationStrengthened},
		Encode:       encode,
		JobOptions: func(job *backend.Job) (milpjob.Tree, string, error) {
			o, err := binoct.JobOptions(job)
			form := binoct.FormulationPublished
			switch {
			case o.Strengthen:
				form = binoct.FormulationStrengthened
			case o.BinaryLeaves:
				form = binoct.FormulationBinaryLeaves
			}
			return o.Tree, form, err
		},
	})
}

// TestStrengthenedLPBound: the strengthened MILP's LP relaxation bounds
// the optimum from above the published one's, which is 0.
func TestStrengthenedLPBound(t *testing.T) {
	formtest.LPBoundAbove(t, encode, binoct.FormulationStrengthened)
}
