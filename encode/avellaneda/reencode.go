package avellaneda

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Reencode builds the formula of a sat-depth certificate's proof again
// (see reencode).
func (DepthBackend) Reencode(ctx context.Context, job *backend.Job, p lrat.Proof) (*satjob.Formula, error) {
	return reencode(ctx, job, p, false)
}

// Reencode builds the formula of a sat-size certificate's proof again
// (see reencode).
func (SizeBackend) Reencode(ctx context.Context, job *backend.Job, p lrat.Proof) (*satjob.Formula, error) {
	return reencode(ctx, job, p, true)
}

// Bound derives the depth bound the data and the refuted depths prove.
func (DepthBackend) Bound(ctx context.Context, job *backend.Job, proofs []lrat.Proof) (satjob.Claim, error) {
	return bound(ctx, job, proofs, false)
}

// Bound derives the size bound the data, the refuted depths and the
// refuted leaf count prove.
func (SizeBackend) Bound(ctx context.Context, job *backend.Job, proofs []lrat.Proof) (satjob.Claim, error) {
	return bound(ctx, job, proofs, true)
}

// reencode builds a proof's formula through the code a solve builds it
// with. The search adds the examples it needs as it goes, so the stored
// formula holds some of them: the formula built here holds every one
// (and the per-threshold clauses, which the order encoding implies), of
// which the stored one must be a part. Proof depthK (no assumption)
// refutes depth K: bound K+1. The size proof, at the depth it records,
// also holds the leaf counter up to its recorded cap and the unit
// clauses that fix the count at or above the bound refuted; bound L
// stands for the assumption of at most L−1 labelled leaves.
func reencode(ctx context.Context, job *backend.Job, pr lrat.Proof, size bool) (*satjob.Formula, error) {
	var enc proofEncoding
	if err := json.Unmarshal(pr.Encoding, &enc); err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	k := enc.Depth
	if want := depthProof(k); pr.Name != want && (!size || pr.Name != sizeProof) {
		return nil, fmt.Errorf("proof %q of depth %d: want the name %s", pr.Name, k, want)
	}
	if k < 0 || k > 30 {
		return nil, fmt.Errorf("depth %d out of range", k)
	}
	o, p, err := prepare(ctx, job)
	if err != nil {
		return nil, err
	}
	s := settings(job, o)
	e, err := NewEncoding(ctx, job.Budget, p.View, p.Tests, p.Reps, k, s.Options)
	if err != nil {
		return nil, err
	}
	if s.MaxNodes > 0 {
		L := leafCap(s.MaxNodes)
		e.LimitLeaves(L)
		if L < 1<<k {
			b, err := e.LeafBound(L)
			if err != nil {
				return nil, err
			}
			e.add(b)
		}
	}
	isSize := pr.Name == sizeProof
	if isSize {
		if enc.LeavesCap < 1 {
			return nil, fmt.Errorf("leaf counter cap %d below 1", enc.LeavesCap)
		}
		e.LimitLeaves(enc.LeavesCap)
		e.AddDirectClauses()
	}
	for i := range e.NumExamples() {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		e.AddExample(i)
	}
	if isSize {
		e.AddDirectClauses()
		// The search fixes the count at each better tree's: units at or
		// above the bound refuted hold for every tree below it.
		least := e.limitCap
		for _, r := range pr.Refutations {
			least = min(least, r.Bound-1)
		}
		for L := max(least, 0); L <= e.limitCap; L++ {
			if b, err := e.LeafBound(L); err == nil {
				e.add(b)
			}
		}
	}
	if err := e.Err(); err != nil {
		return nil, err
	}
	f := &satjob.Formula{CNF: e.CNF}
	if isSize {
		f.Assume = func(b int) ([]sat.Lit, bool) {
			l, err := e.LeafBound(b - 1)
			if err != nil {
				return nil, false
			}
			return []sat.Lit{l}, true
		}
		f.Says = func(b int) string {
			return fmt.Sprintf("no tree of depth at most %d with fewer than %d leaves (%d nodes) is consistent with the rows", k, b, 2*b-1)
		}
	} else {
		f.Assume = func(b int) ([]sat.Lit, bool) { return []sat.Lit{}, b == k+1 }
		f.Says = func(int) string { return fmt.Sprintf("no tree of depth at most %d is consistent with the rows", k) }
	}
	return f, nil
}

// bound derives the claim of a certificate: the depth bound from the
// classes present (a tree of depth k has at most 2^k leaves) and the
// refuted depths, each from that bound up; infeasible when the depth
// limit is refuted; for DT_size the nodes of the least leaves at that
// depth (the size proof at the depth bound, or the leaves a tree of
// that depth needs).
func bound(ctx context.Context, job *backend.Job, proofs []lrat.Proof, size bool) (satjob.Claim, error) {
	cl := satjob.Claim{Objective: model.MinDepth}
	refuted := satjob.Refuted(proofs)
	sizeDepth := -1
	for _, pr := range proofs {
		if pr.Name == sizeProof {
			var enc proofEncoding
			if err := json.Unmarshal(pr.Encoding, &enc); err != nil {
				return cl, fmt.Errorf("encoding: %w", err)
			}
			sizeDepth = enc.Depth
		}
	}
	if size {
		cl.Objective = model.MinSize
	}
	o, p, err := prepare(ctx, job)
	if err != nil {
		return cl, err
	}
	s := settings(job, o)
	nc := p.PresentClasses()
	k := 0
	if nc > 1 {
		k = bits.Len(uint(nc - 1))
	}
	for refuted[depthProof(k)] == k+1 {
		k++
	}
	limit := -1
	if s.MaxDepth > 0 {
		limit = s.MaxDepth
	}
	if s.SingleLeaf {
		limit = 0
	}
	if s.MaxNodes > 0 {
		if l := max(leafCap(s.MaxNodes)-1, 0); limit < 0 || l < limit {
			limit = l
		}
	}
	if limit >= 0 && k > limit {
		cl.Objective, cl.Bound, cl.Infeasible = model.MinDepth, float64(k), true
		return cl, nil
	}
	cl.Bound = float64(k)
	if !size {
		return cl, nil
	}
	leaves := max(nc, k+1, 1)
	if b, ok := refuted[sizeProof]; ok {
		// The size proof bounds the trees of its depth: those of the
		// least depth when the depth proofs allow no lower one.
		if sizeDepth != k {
			return cl, fmt.Errorf("the size proof is at depth %d, the depth proofs prove the least depth at least %d", sizeDepth, k)
		}
		leaves = max(leaves, b)
	}
	cl.Bound = float64(max(2*k+1, 2*leaves-1))
	cl.Depth = k
	return cl, nil
}
