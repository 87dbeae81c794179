package avellaneda

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Settings control DT_depth and DT_size. The zero value uses sat.CDCL, no
// at-most-one clauses, and fails on conflicting rows.
type Settings struct {
	// NewSolver returns a fresh solver for the first depth tried, and
	// for each next one unless it returned a sat.CDCL (reset and reused
	// instead); nil = sat.NewCDCL.
	NewSolver func() (sat.Solver, error)
	// Options shape the formula: the at-most-one encoding, the node
	// limit's counter, the example clauses, the symmetry breaking and the
	// class-count cuts.
	Options Options
	// DropConflicts drops, in every group of rows with identical tests
	// and different labels, the rows not of the group's most frequent
	// label (lowest class index on ties) instead of failing.
	DropConflicts bool
	// Batch is how many misclassified examples are added per iteration
	// of Algorithm 3; 0 is 2 for DT_depth and 1 (the paper's choice) for
	// DT_size (defaultBatch).
	Batch int
	// FirstMisclassified adds, at each iteration of Algorithm 3, the
	// first misclassified examples (in row order) instead of those
	// nearest to an example of another class in the formula (see
	// run.choose).
	FirstMisclassified bool
	// Seed starts every depth from the examples the previous depth
	// needed instead of none. It pays with the first misclassified
	// examples and costs with the nearest: the near misses that refute a
	// depth make the formula of the next, satisfiable one harder (see
	// run.choose).
	Seed bool
	// Report receives every improving tree with its objective.
	Report model.IncumbentFunc
	// Budget accounts the formulas' clauses and variables against the
	// memory cap (nil: no cap); a formula that exhausts it stops the
	// search with an error wrapping model.ErrMemoryLimit.
	Budget *backend.Budget
	// Bisect makes DT_size bisect on the number of leaves, as the paper
	// does, instead of descending from the best tree (bound = best − 1,
	// the default): refutations close below the optimum are the costliest
	// calls and descending makes only one. Bisection raises the lower
	// bound during the search, descending only at its end, which matters
	// for time-limited runs.
	Bisect bool
	// SizeNoDirect keeps DT_size's size phase on the order variables
	// alone. By default the size phase adds the per-threshold clauses of
	// the numeric columns (Encoding.AddDirectClauses) once one of its
	// calls has met SizeDirectAfter conflicts, and solves that call
	// again. The clauses shorten long refutations on numeric data many
	// times over but only cost short ones, whose clauses outweigh the
	// conflicts they save: paying for them once the search has shown it
	// is long serves both.
	SizeNoDirect bool
	// SizeDirectAfter is that number of conflicts (0: 5000; negative:
	// add the clauses at once). It needs the default solver (sat.CDCL);
	// other solvers get the clauses at once.
	SizeDirectAfter int
	// MaxDepth, when positive, is the largest depth tried: when no
	// consistent tree of at most that depth exists the outcome is
	// Infeasible.
	MaxDepth int
	// SingleLeaf caps the depth at 0 (model.Problem's MaxDepth 0): only a
	// single leaf is tried.
	SingleLeaf bool
	// MaxNodes, when positive, admits only trees of at most that many
	// nodes (at most ⌊(MaxNodes+1)/2⌋ labelled leaves, Theorem 2) at
	// every depth tried: DT_depth then finds the least depth of such a
	// tree, DT_size the fewest nodes at that depth.
	MaxNodes int
	// Log, when set, receives progress lines.
	Log func(string)
	// Certify, when not nil, receives the formulas, proofs and
	// refutations that prove the optimum: every depth refuted, and for
	// DT_size the last number of leaves refuted (odtkit's CDCL only).
	Certify *sat.Certifier
}

// defaultBatch is Settings.Batch's default: two examples per call for
// DT_depth, whose searches end sooner with fewer calls, and one for
// DT_size, whose refutations two examples per call make costlier.
func defaultBatch(size bool) int {
	if size {
		return 1
	}
	return 2
}

// leafCap is the number of labelled leaves a node limit of maxNodes
// admits: a tree with L labelled leaves has 2L−1 nodes.
func leafCap(maxNodes int) int { return (maxNodes + 1) / 2 }

// defaultDirectAfter is Settings.SizeDirectAfter's default.
const defaultDirectAfter = 5000

// Outcome is the result of DT_depth or DT_size.
type Outcome struct {
	// Model is the best tree found (nil if none); it classifies every kept
	// row correctly.
	Model *model.Graph
	// Depth and Leaves describe Model; Optimal says whether it is proven
	// optimal for the objective.
	Depth, Leaves int
	Optimal       bool
	// DepthLowerBound is a proven lower bound on the depth of consistent
	// trees; LeavesLowerBound one on the number of leaves at minimum
	// depth (size phase).
	DepthLowerBound, LeavesLowerBound int
	// Examples is the number of examples in the last formula; Calls
	// the number of solver calls; Clauses the size of the last formula.
	Examples, Calls, Clauses, Vars int
	Dropped                        int
	// Stopped: ctx ended before the end.
	Stopped bool
	// Infeasible: no consistent tree within Settings.MaxDepth and
	// MaxNodes exists (Model is nil).
	Infeasible bool
}

func (s *Settings) logf(format string, a ...any) {
	if s.Log != nil {
		s.Log(fmt.Sprintf(format, a...))
	}
}

// MinDepth is DT_depth: it tries depths k = ⌈log2(classes)⌉, k+1, ...
// with Algorithm 3 until one is satisfiable; the first satisfiable depth
// is the minimum depth of a tree consistent with the kept rows. Each depth
// starts from no example, or from those the previous one needed (Seed).
// When ctx ends first, the outcome holds no tree, Stopped and the depth
// lower bound proven so far.
func MinDepth(ctx context.Context, p *satjob.Examples, s Settings) (*Outcome, error) {
	if s.Batch == 0 {
		s.Batch = defaultBatch(false)
	}
	out, r, err := minDepth(ctx, p, &s)
	if r != nil && s.Certify != nil {
		s.Certify.Drop(r.solver) // a satisfiable depth proves nothing
	}
	return out, err
}

// proofEncoding is what a certificate records of a formula beside the
// problem: its depth and (DT_size) the cap of its leaf counter.
type proofEncoding struct {
	Depth     int `json:"depth"`
	LeavesCap int `json:"leaves_cap,omitempty"`
}

func encodingOf(depth, leavesCap int) []byte {
	b, _ := json.Marshal(proofEncoding{Depth: depth, LeavesCap: leavesCap})
	return b
}

// sizeProof names the proof of the leaves' bound in a certificate.
const sizeProof = "size"

// depthProof names the proof of depth k in a certificate.
func depthProof(k int) string { return fmt.Sprintf("depth%d", k) }

func minDepth(ctx context.Context, p *satjob.Examples, s *Settings) (*Outcome, *run, error) {
	out := &Outcome{Dropped: p.Dropped}
	nc := p.PresentClasses()
	k := 0
	if nc > 1 {
		k = bits.Len(uint(nc - 1))
	}
	out.DepthLowerBound = k
	// A tree of L labelled leaves has depth at most L−1 once its
	// unlabelled leaves are removed (a single leaf: depth 0).
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
	var seed []int
	// A CDCL solver of a refuted depth is reset and reused for the
	// next: its memory (clause arena, watch lists) then serves again
	// instead of being allocated anew and faulted in.
	var recycle *sat.CDCL
	var sb *slotBits
	if !s.FirstMisclassified {
		sb = newSlotBits(p)
	}
	for ; ; k++ {
		if limit >= 0 && k > limit {
			out.Infeasible = true
			return out, nil, nil
		}
		if ctx.Err() != nil {
			out.Stopped = true
			return out, nil, nil
		}
		r, err := newRun(ctx, p, k, s, seed, &out.Calls, recycle, sb)
		if err != nil {
			if ctx.Err() != nil {
				out.Stopped = true
				return out, nil, nil
			}
			return nil, nil, err
		}
		start := time.Now()
		st, g, err := r.solve(ctx)
		out.Examples, out.Clauses, out.Vars = r.enc.Added(), r.enc.NumClauses(), r.enc.CNF.NumVars
		if err != nil {
			r.enc.Release()
			return nil, nil, err
		}
		s.logf("depth %d: %s with %d examples, %d variables, %d clauses, %s%.3fs", k, st, r.enc.Added(), r.enc.CNF.NumVars, r.enc.NumClauses(), r.conflicts(), time.Since(start).Seconds())
		switch st {
		case sat.Unknown:
			r.enc.Release()
			if s.Certify != nil {
				s.Certify.Drop(r.solver)
			}
			out.Stopped = true
			return out, nil, nil
		case sat.Satisfiable:
			out.Model, out.Depth, out.Leaves, out.Optimal = g, g.Depth(), g.Leaves(), true
			if out.Depth != k {
				return nil, nil, fmt.Errorf("internal error: depth %d satisfiable but its tree has depth %d after depth %d was refuted", k, out.Depth, k-1)
			}
			out.DepthLowerBound = k
			s.Report.Report(float64(k), g)
			return out, r, nil
		}
		out.DepthLowerBound = k + 1
		if s.Certify != nil {
			// Every depth refuted is kept: the bound rests on them all
			// (from the classes' bound up), not on the encoding of one
			// depth holding the trees of smaller ones.
			ref, err := satjob.LastRefuted(r.solver, nil, k+1)
			if err == nil {
				err = s.Certify.Finish(ctx, r.solver, depthProof(k), encodingOf(k, 0), ref)
			}
			if err != nil {
				r.enc.Release()
				if ctx.Err() != nil {
					// Stopped while the proof was written: that depth
					// is not certified.
					out.DepthLowerBound, out.Stopped = k, true
					return out, nil, nil
				}
				return nil, nil, err
			}
		}
		r.enc.Release()
		recycle, _ = r.solver.(*sat.CDCL)
		if s.Seed {
			seed = r.addedSlots()
		}
	}
}

// MinSize is DT_size: DT_depth finds the minimum depth k, then a search
// on the number L of labelled leaves of a perfect tree of depth k
// (Theorem 2: a tree of depth k with 2L−1 nodes exists iff a perfect one
// with at most L labelled leaves does), switching the bound by assumption
// on one formula: descending from the best tree found, or bisecting
// (Settings.Bisect). Every improving tree is reported with its
// node count. When ctx ends first, the outcome holds the best tree (if
// any) with Optimal false.
func MinSize(ctx context.Context, p *satjob.Examples, s Settings) (*Outcome, error) {
	if s.Batch == 0 {
		s.Batch = defaultBatch(true)
	}
	sz := func(leaves int) float64 { return float64(2*leaves - 1) }
	report := s.Report
	s.Report = nil
	out, r, err := minDepth(ctx, p, &s)
	if err != nil || out.Model == nil {
		return out, err
	}
	defer r.enc.Release()
	var refuted *sat.Refuted // the call that proves the leaves' lower bound
	if s.Certify != nil {
		defer s.Certify.Drop(r.solver)
	}
	report.Report(sz(out.Leaves), out.Model)
	k := out.Depth
	lo := max(p.PresentClasses(), k+1, 1)
	lo0 := lo
	hi := out.Leaves
	out.LeavesLowerBound = lo
	out.Optimal = lo >= hi
	if out.Optimal {
		out.LeavesLowerBound = hi
		return out, nil
	}
	// The per-threshold clauses: at once, or on the own solver after a
	// call of the size phase meets `after` conflicts (none without a
	// numeric column).
	after := int64(s.SizeDirectAfter)
	if after == 0 {
		after = defaultDirectAfter
	}
	var limited *sat.CDCL
	if !s.SizeNoDirect {
		if own, ok := r.solver.(*sat.CDCL); ok && after > 0 && len(r.enc.chains) > 0 {
			limited = own
			limited.SetConflictLimit(after)
			defer limited.SetConflictLimit(0)
		} else {
			r.enc.AddDirectClauses()
		}
	}
	r.enc.LimitLeaves(hi)
	for lo < hi {
		mid := hi - 1
		if s.Bisect {
			mid = (lo + hi) / 2
		}
		bound, err := r.enc.LeafBound(mid)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		st, g, err := r.solve(ctx, bound)
		out.Examples, out.Clauses, out.Vars = r.enc.Added(), r.enc.NumClauses(), r.enc.CNF.NumVars
		if err != nil {
			return nil, err
		}
		s.logf("depth %d, at most %d leaves: %s with %d examples, %d clauses, %s%.3fs", k, mid, st, r.enc.Added(), r.enc.NumClauses(), r.conflicts(), time.Since(start).Seconds())
		switch st {
		case sat.Unknown:
			if limited != nil && ctx.Err() == nil {
				// The conflict limit: the same bound again, with the
				// per-threshold clauses.
				limited.SetConflictLimit(0)
				limited = nil
				r.enc.AddDirectClauses()
				s.logf("depth %d, at most %d leaves: %d conflicts, per-threshold clauses added", k, mid, after)
				continue
			}
			out.Stopped = true
			out.LeavesLowerBound = lo
			return out, nil
		case sat.Satisfiable:
			if g.Depth() != k || g.Leaves() > mid {
				return nil, fmt.Errorf("internal error: at most %d leaves at depth %d gave a tree of depth %d with %d leaves", mid, k, g.Depth(), g.Leaves())
			}
			hi = g.Leaves()
			out.Model, out.Leaves = g, hi
			// No later call looks above hi: fix the bound for good, so
			// that the solver propagates it at level 0.
			if fixed, err := r.enc.LeafBound(hi); err == nil {
				r.enc.add(fixed)
			}
			report.Report(sz(hi), g)
		default:
			lo = mid + 1
			if s.Certify != nil {
				ref, err := satjob.LastRefuted(r.solver, []sat.Lit{bound}, lo)
				if err != nil {
					return nil, err
				}
				refuted = &ref
			}
		}
		out.LeavesLowerBound = lo
	}
	out.Optimal = true
	out.LeavesLowerBound = hi
	if refuted != nil {
		if err := s.Certify.Finish(ctx, r.solver, sizeProof, encodingOf(k, r.enc.limitCap), *refuted); err != nil {
			if ctx.Err() != nil {
				// Stopped while the proof was written: the best tree is
				// kept, its size not certified.
				out.Optimal, out.Stopped, out.LeavesLowerBound = false, true, lo0
				return out, nil
			}
			return nil, err
		}
	}
	return out, nil
}
