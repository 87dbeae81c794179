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

// encode builds the MILP of formulation form.
func encode(ctx context.Context, d *model.Dataset, tree milpjob.Tree, form string) (milpjob.Form, error) {
	return oct.Encode(ctx, d, oct.Options{Tree: tree,
		Aggregate:  form == oct.FormulationAggregated || form == oct.FormulationStrengthened,
		Strengthen: form == oct.FormulationStrengthened})
}

// TestForm runs the checks of a MILP form solved whole on milp-oct:
// optima against brute force and dl85, the witness, false infeasibility
// claims and the formulation option in every formulation, and the
// conformance suite and the CBC round trip of the published one (published, aggregated or strengthened).
func TestForm(t *testing.T) {
	formtest.Run(t, formtest.Spec{
		Backend:      "milp-oct",
		Alternatives: []string{oct.FormulationAggregated, oct.FormulationStrengthened},
		Encode:       encode,
		JobOptions: func(job *backend.Job) (milpjob.Tree, string, error) {
			o, err := oct.JobOptions(job)
			form := oct.FormulationPublished
			switch {
			case o.Strengthen:
				form = oct.FormulationStrengthened
			case o.Aggregate:
				form = oct.FormulationAggregated
			}
			return o.Tree, form, err
		},
	})
}

// TestStrengthenedLPBound: the strengthened MILP's LP relaxation bounds
// the optimum from above the published one's, which is 0.
func TestStrengthenedLPBound(t *testing.T) {
	formtest.LPBoundAbove(t, encode, oct.FormulationStrengthened)
}
