package dt1

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Reencode builds the formula of a sat-dt1 certificate's proof again:
// proof nodesN is the formula of exactly N nodes on the job's examples,
// refuted with no assumption (bound N+2).
func (Backend) Reencode(ctx context.Context, job *backend.Job, pr lrat.Proof) (*satjob.Formula, error) {
	var n int
	if _, err := fmt.Sscanf(pr.Name, "nodes%d", &n); err != nil || proofName(n) != pr.Name {
		return nil, fmt.Errorf("proof %q: want a name nodesN", pr.Name)
	}
	if n < 1 || n%2 == 0 || n > 1<<20 {
		return nil, fmt.Errorf("proof %q: node count %d is not an odd count in range", pr.Name, n)
	}
	o, p, err := prepare(ctx, job)
	if err != nil {
		return nil, err
	}
	e, err := Encode(ctx, job.Budget, p.View, p.Tests, p.Reps, n, o)
	if err != nil {
		return nil, err
	}
	return &satjob.Formula{CNF: e.CNF,
		Assume: func(b int) ([]sat.Lit, bool) { return []sat.Lit{}, b == n+2 },
		Says:   func(int) string { return fmt.Sprintf("no tree of exactly %d nodes is consistent with the rows", n) },
	}, nil
}

// Bound derives the claim of a certificate: the fewest nodes the classes
// allow (2c−1 for c classes), raised past every count refuted in an
// unbroken run from there (a count not refuted ends the run: nothing is
// assumed of the counts beyond it).
func (Backend) Bound(ctx context.Context, job *backend.Job, proofs []lrat.Proof) (satjob.Claim, error) {
	cl := satjob.Claim{Objective: model.MinNodes}
	_, p, err := prepare(ctx, job)
	if err != nil {
		return cl, err
	}
	refuted := satjob.Refuted(proofs)
	n := leastNodes(p)
	for refuted[proofName(n)] == n+2 {
		n += 2
	}
	cl.Bound = float64(n)
	return cl, nil
}
