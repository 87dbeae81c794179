package satodd

import (
	"context"
	"errors"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
)

// Estimate is the size of the formula Encode builds for the prepared
// data on the skeleton (its counter left out), computed from the counts
// before anything is allocated; a count beyond int64 saturates.
func Estimate(p *satjob.Prepared, skeleton []int) backend.Size {
	var c backend.Counter
	nt, ng, nc := int64(len(p.Tests)), int64(len(p.Groups)), int64(p.Classes)
	// Error literals, and per group the classes it holds.
	var errLits, errPairs int64
	for _, g := range p.Groups {
		present := int64(0)
		for _, w := range g.Count {
			if w > 0 {
				present++
			}
		}
		errLits += present
		errPairs += present * max(nc-1, 0)
	}
	var nn int64
	for _, w := range skeleton {
		nn = c.Add(nn, int64(max(w, 0)))
	}
	// Per node: A, F, L, R, and the arcs of both sides; its test clause,
	// each side's arc clauses (one active, activation, pairwise at most
	// one, active targets), and per group its side at each test, its
	// reach along each arc to a node and its error at each class.
	vars := c.Add(nn, c.Mul(nn, nt), c.Mul(c.Mul(2, nn), ng), errLits)
	clauses := c.Add(1, ng)
	lits := c.Add(1, ng)
	for l, w64 := range skeleton {
		w := int64(max(w64, 0))
		tg := int64(0)
		if l+1 < len(skeleton) {
			tg = int64(max(skeleton[l+1], 0))
		}
		arcs := c.Add(tg, nc)
		pairs := c.Mul(arcs, arcs-1) / 2
		perNode := c.Add(1, c.Mul(2, c.Add(1, arcs, pairs, tg)))
		perNodeLits := c.Add(nt+1, c.Mul(2, c.Add(arcs+1, c.Mul(2, arcs), c.Mul(2, pairs), c.Mul(2, tg))))
		perGroup := c.Add(nt, c.Mul(2, tg))
		perGroupLits := c.Add(c.Mul(2, nt), c.Mul(8, tg))
		vars = c.Add(vars, c.Mul(w, c.Mul(2, arcs)))
		clauses = c.Add(clauses, c.Mul(w, perNode), c.Mul(w, c.Add(c.Mul(ng, perGroup), c.Mul(2, errPairs))))
		lits = c.Add(lits, c.Mul(w, perNodeLits), c.Mul(w, c.Add(c.Mul(ng, perGroupLits), c.Mul(8, errPairs))))
	}
	return satjob.CNFSize(&c, vars, clauses, lits)
}

// prepare binarizes the job's data (an exact view: a coarse one is
// refused when exact is set) and groups its rows, refusing the formula
// as soon as its node-group-test clauses alone would pass the job's
// memory cap.
func prepare(ctx context.Context, job *backend.Job, exact bool) (*model.BinaryView, *satjob.Prepared, error) {
	capBytes := job.Budget.Limit()
	limit := int64(256 << 20)
	if capBytes > 0 {
		limit = min(limit, capBytes/4)
	}
	v, err := model.BinarizeBudget(ctx, job.Data, limit)
	if err != nil {
		return nil, nil, err
	}
	if exact && v.Coarse {
		return nil, nil, backend.Invalidf("sat-odd: the binary view of the data does not fit %s; the formula would leave out thresholds", backend.MB(limit))
	}
	var nodes int64
	for _, w := range job.Problem.Skeleton {
		nodes += int64(max(w, 0))
	}
	p, err := satjob.PrepareWithin(ctx, v, func(groups, tests int) error {
		var c backend.Counter
		b := c.Mul(c.Mul(c.Mul(nodes, int64(groups)), int64(tests)), satjob.BinaryClauseBytes)
		if capBytes > 0 && (b > capBytes || c.Over) {
			return backend.Invalidf("sat-odd: the formula of the skeleton %s would need more than %s (at least %d groups of identical rows sent down each of its %d nodes by each of %d tests), more than the memory cap of %s: refused before building it (raise --memory-limit, or use a smaller skeleton)",
				skeletonFlag(job.Problem.Skeleton), backend.MB(b), groups, nodes, tests, backend.MB(capBytes))
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, backend.ErrInvalid) || ctx.Err() != nil {
			return v, nil, err
		}
		return v, nil, backend.Invalid(err)
	}
	return v, p, nil
}

// admit refuses, wrapped in backend.ErrInvalid, the formula of the
// prepared data on the job's skeleton when its estimate passes the
// memory cap or what a SAT solver can index.
func admit(job *backend.Job, p *satjob.Prepared) (backend.Size, error) {
	s := Estimate(p, job.Problem.Skeleton)
	if err := indexable(job, s); err != nil {
		return s, err
	}
	return s, job.Budget.Admit(s, "the sat-odd formula of the skeleton "+skeletonFlag(job.Problem.Skeleton))
}

// indexable refuses a formula of more variables or clauses than a SAT
// solver indexes.
func indexable(job *backend.Job, s backend.Size) error {
	return satjob.Indexable(s, "sat-odd: the formula of the skeleton "+skeletonFlag(job.Problem.Skeleton), "use a smaller skeleton")
}

// Size estimates the formula a solve of the job builds, its counter left
// out (the counter stops at its own clause budget): zero when the stump
// is optimal without a search.
func (b Backend) Size(job *backend.Job) (backend.Size, error) {
	if _, err := ScaledCosts(totalWeight(job.Data), job.Problem.Skeleton, job.Problem.Alpha); err != nil {
		return backend.Size{}, backend.Invalid(err)
	}
	_, p, err := prepare(context.Background(), job, false)
	if err != nil {
		return backend.Size{}, err
	}
	if len(p.Tests) == 0 || p.Classes < 2 {
		return backend.Size{}, nil
	}
	s := Estimate(p, job.Problem.Skeleton)
	return s, indexable(job, s)
}
