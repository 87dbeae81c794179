package avellaneda

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
)

// Estimate is the size, estimated without building it, of the formula of
// depth k over the given number of examples (with the node limit's
// counter when maxNodes > 0): its variables, clauses and literals, and
// the bytes the building accounts (see NewEncoding). The counts
// follow NewEncoding, AddExample,
// LimitLeaves and the class cuts; the per-example clauses of the numeric
// columns are counted as if no example met a threshold chain's end.
func Estimate(p *satjob.Examples, k, examples, maxNodes int, opt Options) backend.Size {
	var c backend.Counter
	if k > 62 {
		k = 62 // beyond any count; saturates below
		c.Over = true
	}
	m := int64(len(p.Tests))
	nc := int64(len(p.View.Class))
	present := p.PresentClasses()
	leaves := int64(1) << k
	inner := leaves - 1
	kk := int64(k)
	// Threshold chains of the numeric columns (order clauses).
	var chained, chains int64
	if !opt.PaperClauses && inner > 0 {
		byCol := map[int]int64{}
		for _, t := range p.Tests {
			if tt := p.View.Tests[t]; !tt.Categorical {
				byCol[tt.Feature]++
			}
		}
		for _, n := range byCol {
			if n >= 3 {
				chained += n
				chains++
			}
		}
	}
	vars := c.Add(c.Mul(inner, m), c.Mul(leaves, nc), c.Mul(int64(len(p.Reps)), kk), c.Mul(2, c.Mul(inner, chained)))
	clauses := c.Add(inner, c.Mul(inner, c.Mul(4, chained)))
	lits := c.Add(c.Mul(inner, m), c.Mul(inner, c.Mul(8, chained)))
	switch opt.AMO {
	case AMOPairwise:
		pairs := c.Mul(m, m-1) / 2
		clauses = c.Add(clauses, c.Mul(inner, pairs))
		lits = c.Add(lits, c.Mul(inner, c.Mul(2, pairs)))
	case AMOSequential:
		vars = c.Add(vars, c.Mul(inner, m))
		clauses = c.Add(clauses, c.Mul(inner, c.Mul(3, m)))
		lits = c.Add(lits, c.Mul(inner, c.Mul(6, m)))
	}
	// Class counters (class cuts): P and R, R's clauses.
	cuts := !opt.NoClassCuts && k > 0 && (present > 4 || (maxNodes > 0 && present > 1))
	if cuts {
		vars = c.Add(vars, c.Mul(inner, nc), c.Mul(inner, c.Mul(nc, nc)))
		per := c.Mul(nc, nc) // Σ_a (1 + 2a) counting clauses per node
		clauses = c.Add(clauses, c.Mul(inner, per))
		lits = c.Add(lits, c.Mul(inner, c.Mul(per, 3)))
	}
	// Per example: (5)-(6) at every leaf, k+1 literals each; (3)-(4) at
	// every internal node, one clause per unchained test and up to two per
	// chain, each of the path above the node (l literals at level l) and
	// two more; with the class cuts, one clause per internal node of the
	// path and one literal. The 2^l nodes of level l make Σ 2^l(l+2) =
	// k·2^k literals per clause kind and Σ 2^l(l+1) = (k-1)·2^k + 1.
	perNode := c.Add(m-chained, c.Mul(2, chains))
	perClauses := c.Add(c.Mul(leaves, nc), c.Mul(inner, perNode))
	perLits := c.Add(c.Mul(c.Mul(leaves, nc), kk+1), c.Mul(perNode, c.Mul(kk, leaves)))
	if cuts {
		perClauses = c.Add(perClauses, inner)
		perLits = c.Add(perLits, c.Mul(kk-1, leaves)+1)
	}
	ex := int64(examples)
	clauses = c.Add(clauses, c.Mul(ex, perClauses))
	lits = c.Add(lits, c.Mul(ex, perLits))
	if maxNodes > 0 {
		// U and the counter: at most leaves × leaves pairs along the tree.
		cnt := c.Mul(leaves, c.Add(int64(bits.Len64(uint64(leaves))), 2))
		vars = c.Add(vars, leaves, cnt)
		clauses = c.Add(clauses, c.Mul(2, cnt))
		lits = c.Add(lits, c.Mul(6, cnt))
	}
	return satjob.GuardedSize(&c, vars, clauses, lits)
}

// Size estimates the first formula the search builds (its starting
// depth, with the first batch of examples).
func (DepthBackend) Size(job *backend.Job) (backend.Size, error) { return jobSize(job, false) }

// Size estimates the first formula the search builds (its starting
// depth, with the first batch of examples).
func (SizeBackend) Size(job *backend.Job) (backend.Size, error) { return jobSize(job, false) }

func jobSize(job *backend.Job, export bool) (backend.Size, error) {
	o, p, err := prepare(context.Background(), job)
	if err != nil {
		return backend.Size{}, err
	}
	return prepSize(job, o, p, export)
}

// prepSize is jobSize on prepared data; with export, the whole formula of
// the problem's depth.
func prepSize(job *backend.Job, o Options, p *satjob.Examples, export bool) (backend.Size, error) {
	nodes := formulaNodes(job.Problem.MaxNodes)
	present := p.PresentClasses()
	var s backend.Size
	if export {
		k := job.Problem.MaxDepth
		if present <= 1 {
			k = 0
		}
		s = Estimate(p, k, len(p.Reps), nodes, o)
	} else {
		k := 0
		if present > 1 {
			k = bits.Len(uint(present - 1))
		}
		s = Estimate(p, k, min(len(p.Reps), max(o.Batch, 1)), nodes, o)
	}
	return s, satjob.Indexable(s, fmt.Sprintf("the formula of depth %d", job.Problem.MaxDepth), "")
}

// admit refuses a formula whose estimate exceeds the job's memory cap.
func admit(job *backend.Job, o Options, p *satjob.Examples, export bool) error {
	name := "sat-depth"
	if job.Problem.Objective == model.MinSize {
		name = "sat-size"
	}
	s, err := prepSize(job, o, p, export)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("the %s formula of depth %d", name, job.Problem.MaxDepth)
	if !export {
		what = "the " + name + " search's first formula"
	}
	return job.Budget.Admit(s, what)
}
