package dt1

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
)

// Estimate is the size, estimated without building it, of the formula of
// exactly n nodes over p's tests and examples: its variables, clauses and
// literals, following Encode group by group (the at-most-one halves as
// sequential counters, the larger of the two encodings for big groups).
func Estimate(p *satjob.Examples, n int, opt Options) backend.Size {
	var c backend.Counter
	N, K, E := int64(n), int64(len(p.Tests)), int64(len(p.Reps))
	nc := int64(len(p.View.Class))
	var pairs int64 // (i, j) with j ∈ LR(i)
	for i := 1; i <= n; i++ {
		pairs += int64(len(LR(i, n)))
	}
	cols := int64(1)
	if nc > 2 {
		cols = nc
	}
	// v, l, r, p, a, u, d0, d1, c, and the counters' auxiliaries.
	vars := c.Add(N, c.Mul(4, pairs), c.Mul(4, c.Mul(N, K)), c.Mul(N, cols), c.Mul(N, K), c.Mul(2, pairs))
	clauses := c.Add(c.Mul(7, pairs), c.Mul(3, c.Mul(2, pairs)), N)
	lits := c.Add(c.Mul(14, pairs), c.Mul(6, c.Mul(2, pairs)), c.Mul(N, pairs))
	// a, u: exactly one feature per internal node, none at a leaf.
	clauses = c.Add(clauses, c.Mul(N, c.Add(c.Mul(5, K), 1)))
	lits = c.Add(lits, c.Mul(N, c.Add(c.Mul(10, K), K+1)))
	if opt.AMO == AMOPairwise {
		clauses = c.Add(clauses, c.Mul(N, c.Mul(K, K)/2))
		lits = c.Add(lits, c.Mul(N, c.Mul(K, K)))
	}
	// Discrimination: 8 clauses per feature, node and possible parent (two
	// at most per node: p's pairs).
	clauses = c.Add(clauses, c.Mul(8, c.Mul(2*pairs, K)))
	lits = c.Add(lits, c.Mul(30, c.Mul(2*pairs, K)))
	if !opt.NoCounting {
		cnt := c.Mul(N, N+1)
		vars = c.Add(vars, cnt)
		clauses = c.Add(clauses, c.Mul(5, cnt))
		lits = c.Add(lits, c.Mul(14, cnt))
	}
	if opt.NonEmptyLeaves || opt.ImpureSplits {
		// x: a binary clause per node, example and feature, a ternary one
		// per node and example, and the clauses of E+1 literals per node.
		nx := c.Mul(N, E)
		per := int64(0)
		if opt.NonEmptyLeaves {
			per++
		}
		if opt.ImpureSplits {
			per += nc
		}
		vars = c.Add(vars, nx)
		clauses = c.Add(clauses, c.Mul(nx, K+1), c.Mul(N, per))
		lits = c.Add(lits, c.Mul(nx, 2*K+3), c.Mul(c.Mul(N, per), E+1))
	}
	// Examples: one clause per example, leaf and other class.
	other := max(nc-1, 1)
	ex := c.Mul(E, c.Mul(N, other))
	clauses = c.Add(clauses, ex, c.Mul(N, cols))
	lits = c.Add(lits, c.Mul(ex, K+2))
	return satjob.GuardedSize(&c, vars, clauses, lits)
}

// Size estimates the first formula the search builds (the least node
// count the classes allow).
func (Backend) Size(job *backend.Job) (backend.Size, error) {
	o, p, err := prepare(context.Background(), job)
	if err != nil {
		return backend.Size{}, err
	}
	return prepSize(o, p, max(leastNodes(p), 3))
}

func prepSize(o Options, p *satjob.Examples, n int) (backend.Size, error) {
	s := Estimate(p, n, o)
	return s, satjob.Indexable(s, fmt.Sprintf("the formula of %d nodes", n), "")
}

// admit refuses a formula of n nodes whose estimate exceeds the job's
// memory cap.
func admit(job *backend.Job, o Options, p *satjob.Examples, n int) error {
	s, err := prepSize(o, p, n)
	if err != nil {
		return err
	}
	return job.Budget.Admit(s, fmt.Sprintf("the sat-dt1 formula of %d nodes", n))
}
