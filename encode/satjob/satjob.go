// Package satjob concludes the solves of the SAT-family backends
// (sat-odt, sat-odd, sat-depth, sat-size): a proven result whose
// refutations were logged is checked against its LRAT certificate
// (sat.Certifier, package sat/lrat) and marked certified. Package sat
// stays a generic SAT layer that knows nothing of models; this is its
// counterpart of encode/milpjob.
package satjob

import (
	"context"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Conclude checks the certificate of a proven result (optimal, or
// infeasible), when c is not nil, and marks the result certified; a
// certificate that does not check is an error. claim is the result's
// bound in words. When ctx ends before the check does, the result
// claims nothing proven: not optimal, its status the stop's.
func Conclude(ctx context.Context, res *model.Result, c *sat.Certifier, claim string) error {
	if c == nil || !res.Optimal && res.Status != model.StatusInfeasible {
		return nil
	}
	sum, err := c.Check(ctx, claim, res.LowerBound)
	if err != nil && ctx.Err() != nil {
		res.Optimal = false
		res.Status = model.EndStatus(ctx, false, true)
		if res.Stats == nil {
			res.Stats = map[string]any{}
		}
		res.Stats["certificate"] = "stopped before its proofs were checked: the bound is not claimed"
		return nil
	}
	if err != nil {
		return err
	}
	res.SetCertificate(&model.Certificate{Dir: sum.Dir, Claim: sum.Claim, Bounds: sum.Certified,
		ProofBytes: sum.ProofBytes, ProofSteps: sum.Steps, CheckSeconds: sum.Seconds})
	return nil
}
