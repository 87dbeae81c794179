package avellaneda

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
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
	// AMO is the at-most-one encoding, Counter that of the node limit.
	AMO     AMO
	Counter Counter
	// PaperClauses: one clause per threshold (see Options).
	PaperClauses bool
	// Symmetry adds the node limit's symmetry breaking (see Options).
	Symmetry bool
	// NoClassCuts leaves out the class-count cuts (see Options).
	NoClassCuts bool
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

// ErrConflict is wrapped by the error for rows that no consistent tree
// can separate (identical tests, different labels): model.ErrConflict,
// which every backend of a consistent-tree objective reports alike.
var ErrConflict = model.ErrConflict

// Prepared is the data of a solve: the binary view, the tests kept
// (duplicates, complements and constants removed: they never change the
// minimum depth or size), and one representative row per distinct
// vector of tests.
type Prepared struct {
	View  *model.BinaryView
	Tests []int
	// Reps lists one row per distinct test vector (lowest row index).
	Reps []int
	// Dropped counts the rows dropped as conflicting (DropConflicts).
	Dropped int
	// Keep marks the rows the tree must classify (all but dropped ones).
	Keep model.Bitset
}

// Prepare binarizes the data, removes redundant tests and finds the
// distinct rows. Rows with identical tests and different labels fail
// with ErrConflict (count, first conflicting rows) unless dropConflicts.
func Prepare(d *model.Dataset, dropConflicts bool) (*Prepared, error) {
	keep, dropped, err := d.ConsistentRows(dropConflicts)
	if err != nil {
		return nil, err
	}
	v := model.Binarize(d)
	dup, comp, constant := v.Redundancy()
	p := &Prepared{View: v, Keep: keep, Dropped: dropped}
	for t := range v.Tests {
		if dup[t] < 0 && comp[t] < 0 && !constant[t] {
			p.Tests = append(p.Tests, t)
		}
	}
	// One representative (the lowest kept row) per vector of kept tests.
	words := (len(p.Tests) + 63) / 64
	key := make([]uint64, words)
	seen := map[string]bool{}
	var sb strings.Builder
	for r := range v.N {
		if !keep.Has(r) {
			continue
		}
		testBits(v, p.Tests, r, key)
		sb.Reset()
		for _, w := range key {
			fmt.Fprintf(&sb, "%016x", w)
		}
		if s := sb.String(); !seen[s] {
			seen[s] = true
			p.Reps = append(p.Reps, r)
		}
	}
	return p, nil
}

// Outcome is the result of DT_depth or DT_size.
type Outcome struct {
	// Tree is the best tree found (nil if none); it classifies every kept
	// row correctly.
	Tree *model.Graph
	// Depth and Leaves describe Tree; Optimal says whether it is proven
	// optimal for the objective.
	Depth, Leaves int
	Optimal       bool
	// DepthLB is a proven lower bound on the depth of consistent trees;
	// LeavesLB one on the number of leaves at minimum depth (size phase).
	DepthLB, LeavesLB int
	// Examples is the number of examples in the last formula; Iterations
	// the number of solver calls; Clauses the size of the last formula.
	Examples, Iterations, Clauses, Vars int
	Dropped                             int
	// TimedOut: ctx ended before the end.
	TimedOut bool
	// Infeasible: no consistent tree within Settings.MaxDepth and
	// MaxNodes exists (Tree is nil).
	Infeasible bool
}

// run is one incremental solve at a fixed depth (Algorithm 3).
type run struct {
	p       *Prepared
	enc     *Encoding
	solver  sat.Solver
	s       *Settings
	calls   *int
	pending []int // scratch: misclassified example slots
	// near[i]: Hamming distance from slot i to the nearest example of
	// another class in the formula (nil: Settings.FirstMisclassified or
	// no bits).
	near []int32
	bits *slotBits
}

// newRun starts Algorithm 3 at depth k on a new solver, or on recycle
// (reset) when it is not nil.
func newRun(ctx context.Context, p *Prepared, k int, s *Settings, seed []int, calls *int, recycle *sat.CDCL, sb *slotBits) (*run, error) {
	enc, err := NewContext(ctx, s.Budget, p.View, p.Tests, p.Reps, k, Options{AMO: s.AMO, Counter: s.Counter, PaperClauses: s.PaperClauses, Symmetry: s.Symmetry, NoClassCuts: s.NoClassCuts})
	if err != nil {
		return nil, err
	}
	var solver sat.Solver
	switch {
	case recycle != nil:
		recycle.Reset()
		solver = recycle
	case s.NewSolver != nil:
		if solver, err = s.NewSolver(); err != nil {
			return nil, err
		}
	default:
		solver = sat.NewCDCL()
	}
	if s.Certify != nil {
		if err := s.Certify.Start(solver, depthProof(k)); err != nil {
			enc.Release()
			return nil, err
		}
	}
	enc.stream(solver)
	r := &run{p: p, enc: enc, solver: solver, s: s, calls: calls, bits: sb}
	if sb != nil {
		r.near = make([]int32, enc.NumExamples())
		for i := range r.near {
			r.near[i] = math.MaxInt32
		}
	}
	for _, i := range seed {
		r.add(i)
	}
	if s.MaxNodes > 0 {
		// The node limit holds at every depth: its bound is a clause.
		L := leafCap(s.MaxNodes)
		enc.LimitLeaves(L)
		if L < 1<<k {
			b, err := enc.LeafBound(L)
			if err != nil {
				return nil, err
			}
			enc.add(b)
		}
	}
	if err := enc.Err(); err != nil {
		enc.Release()
		return nil, err
	}
	return r, nil
}

// slotBits holds the kept tests of every example slot as bits, row by
// row, for the distances between examples.
type slotBits struct {
	words int
	bits  []uint64
}

// maxSlotBits bounds the words of slotBits (32 MB, and one pass over
// them per example added); above it the loop adds the first
// misclassified examples.
const maxSlotBits = 1 << 22

// newSlotBits returns the bits of p's representative rows over its kept
// tests, or nil when they would take more than maxSlotBits words.
func newSlotBits(p *Prepared) *slotBits {
	w := (len(p.Tests) + 63) / 64
	if w == 0 || len(p.Reps)*w > maxSlotBits {
		return nil
	}
	b := &slotBits{words: w, bits: make([]uint64, len(p.Reps)*w)}
	for i, r := range p.Reps {
		testBits(p.View, p.Tests, r, b.bits[i*w:i*w+w])
	}
	return b
}

// testBits writes into dst (one bit per test, (len(tests)+63)/64 words)
// which of the tests row r passes.
func testBits(v *model.BinaryView, tests []int, r int, dst []uint64) {
	clear(dst)
	for i, t := range tests {
		if v.True[t].Has(r) {
			dst[i>>6] |= 1 << (i & 63)
		}
	}
}

// add puts example slot j in the formula and lowers the distances of the
// slots of other classes to it.
func (r *run) add(j int) {
	if r.enc.IsAdded(j) {
		return
	}
	r.enc.AddExample(j)
	if r.near == nil {
		return
	}
	w, b, cls := r.bits.words, r.bits.bits, r.enc.classOf
	bj := b[j*w : j*w+w]
	for i := range r.near {
		if cls[i] == cls[j] {
			continue
		}
		d := 0
		for x, y := range b[i*w : i*w+w] {
			d += bits.OnesCount64(y ^ bj[x])
		}
		r.near[i] = min(r.near[i], int32(d))
	}
}

// choose keeps in r.pending (misclassified slots, ascending) the batch
// slots nearest (Hamming distance over the kept tests) to an example of
// another class in the formula, lowest slot first among equals; with
// Settings.FirstMisclassified (or no slot bits), the first ones.
//
// Near misses pin a split down where the data leave the least room, and
// a depth with no consistent tree is refuted with fewer, harder
// examples. Measured on the 27 small inferdt files (whole and train
// folds), DT_depth conflicts: first misclassified with each depth seeded
// by the examples of the last (the loop before) 72.8k in refutations,
// 17.3k at the satisfiable depth; nearest, seeded 57.9k and 23.6k (the
// near misses that refuted depth k make depth k+1's satisfiable formula
// harder: monk2 455 -> 6,032 conflicts there); nearest, each depth from
// no example (the default now) 56.1k and 16.5k, 72.6k in all against
// 90.1k; the farthest instead of the nearest: 142k.
func (r *run) choose(batch int) {
	if len(r.pending) <= batch {
		return
	}
	if r.near == nil {
		r.pending = r.pending[:batch]
		return
	}
	// Selection of the batch smallest (batch is small), stable.
	for k := range batch {
		best := k
		for x := k + 1; x < len(r.pending); x++ {
			if r.near[r.pending[x]] < r.near[r.pending[best]] {
				best = x
			}
		}
		v := r.pending[best]
		copy(r.pending[k+1:best+1], r.pending[k:best])
		r.pending[k] = v
	}
	r.pending = r.pending[:batch]
}

// solve runs Algorithm 3 under the assumptions: it solves, decodes, and
// adds misclassified examples until the tree is consistent with every
// representative row (Satisfiable, tree) or the formula is unsatisfiable.
func (r *run) solve(ctx context.Context, assumptions ...sat.Lit) (sat.Status, *model.Graph, error) {
	batch := max(r.s.Batch, 1)
	d := r.p.View.Data
	for {
		if err := r.enc.Err(); err != nil {
			// The formula is incomplete: the context ended or the memory
			// cap was reached while it grew.
			if ctx.Err() != nil {
				return sat.Unknown, nil, nil
			}
			return sat.Unknown, nil, err
		}
		*r.calls++
		st, err := r.solver.Solve(ctx, assumptions...)
		if err != nil || st != sat.Satisfiable {
			return st, nil, err
		}
		r.enc.readTree(r.solver.Value)
		r.pending = r.pending[:0]
		for i := range r.enc.NumExamples() {
			row := r.enc.Row(i)
			if r.enc.predict(row) != d.Labels[row] {
				if r.enc.IsAdded(i) {
					return sat.Unknown, nil, fmt.Errorf("internal error: example row %d is in the formula but the decoded tree misclassifies it", row)
				}
				r.pending = append(r.pending, i)
				if len(r.pending) >= batch && r.near == nil {
					break
				}
			}
		}
		r.choose(batch)
		if len(r.pending) == 0 {
			// The graph is built for this tree alone, and checked.
			g := r.enc.treeGraph()
			for i := range r.enc.NumExamples() {
				if row := r.enc.Row(i); g.Predict(d, row) != d.Labels[row] {
					return sat.Unknown, nil, fmt.Errorf("internal error: the tree of a model misclassifies row %d as a graph and not before", row)
				}
			}
			return sat.Satisfiable, g, nil
		}
		for _, i := range r.pending {
			r.add(i)
		}
	}
}

// conflicts describes the solver's conflicts so far ("" when the solver
// does not count them), for the progress log.
func (r *run) conflicts() string {
	if c, ok := r.solver.(interface{ Conflicts() int64 }); ok {
		return fmt.Sprintf("%d conflicts in all, ", c.Conflicts())
	}
	return ""
}

func (r *run) addedSlots() []int {
	var out []int
	for i := range r.enc.NumExamples() {
		if r.enc.IsAdded(i) {
			out = append(out, i)
		}
	}
	return out
}

// presentClasses counts the classes among the representative rows.
func presentClasses(p *Prepared) int {
	seen := map[int]bool{}
	for _, r := range p.Reps {
		seen[p.View.Data.Labels[r]] = true
	}
	return len(seen)
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
// When ctx ends first, the outcome holds no tree, TimedOut and the depth
// lower bound proven so far.
func MinDepth(ctx context.Context, p *Prepared, s Settings) (*Outcome, error) {
	if s.Batch == 0 {
		s.Batch = defaultBatch(false)
	}
	out, r, err := minDepth(ctx, p, &s)
	if r != nil && s.Certify != nil {
		s.Certify.Drop(r.solver) // a satisfiable depth proves nothing
	}
	return out, err
}

// depthProof names the proof of depth k in a certificate.
func depthProof(k int) string { return fmt.Sprintf("depth%d", k) }

func minDepth(ctx context.Context, p *Prepared, s *Settings) (*Outcome, *run, error) {
	out := &Outcome{Dropped: p.Dropped}
	nc := presentClasses(p)
	k := 0
	if nc > 1 {
		k = bits.Len(uint(nc - 1))
	}
	out.DepthLB = k
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
			out.TimedOut = true
			return out, nil, nil
		}
		r, err := newRun(ctx, p, k, s, seed, &out.Iterations, recycle, sb)
		if err != nil {
			if ctx.Err() != nil {
				out.TimedOut = true
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
			out.TimedOut = true
			return out, nil, nil
		case sat.Satisfiable:
			out.Tree, out.Depth, out.Leaves, out.Optimal = g, g.Depth(), g.Leaves(), true
			if out.Depth != k {
				return nil, nil, fmt.Errorf("internal error: depth %d satisfiable but its tree has depth %d after depth %d was refuted", k, out.Depth, k-1)
			}
			out.DepthLB = k
			s.Report.Report(float64(k), g)
			return out, r, nil
		}
		out.DepthLB = k + 1
		if s.Certify != nil {
			// Every depth refuted is kept: the bound rests on them all
			// (from the classes' bound up), not on the encoding of one
			// depth holding the trees of smaller ones.
			id, _, _ := r.solver.(*sat.CDCL).Refutation()
			says := fmt.Sprintf("no tree of depth at most %d is consistent with the rows", k)
			if s.MaxNodes > 0 {
				says = fmt.Sprintf("no tree of depth at most %d with at most %d nodes is consistent with the rows", k, s.MaxNodes)
			}
			err := s.Certify.Finish(r.solver, depthProof(k), sat.Refuted{LogID: id, Bound: k + 1, Certifies: says})
			if err != nil {
				r.enc.Release()
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
func MinSize(ctx context.Context, p *Prepared, s Settings) (*Outcome, error) {
	if s.Batch == 0 {
		s.Batch = defaultBatch(true)
	}
	sz := func(leaves int) float64 { return float64(2*leaves - 1) }
	report := s.Report
	s.Report = nil
	out, r, err := minDepth(ctx, p, &s)
	if err != nil || out.Tree == nil {
		return out, err
	}
	defer r.enc.Release()
	var refuted *sat.Refuted // the call that proves the leaves' lower bound
	if s.Certify != nil {
		defer s.Certify.Drop(r.solver)
	}
	report.Report(sz(out.Leaves), out.Tree)
	k := out.Depth
	lo := max(presentClasses(p), k+1, 1)
	hi := out.Leaves
	out.LeavesLB = lo
	out.Optimal = lo >= hi
	if out.Optimal {
		out.LeavesLB = hi
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
			out.TimedOut = true
			out.LeavesLB = lo
			return out, nil
		case sat.Satisfiable:
			if g.Depth() != k || g.Leaves() > mid {
				return nil, fmt.Errorf("internal error: at most %d leaves at depth %d gave a tree of depth %d with %d leaves", mid, k, g.Depth(), g.Leaves())
			}
			hi = g.Leaves()
			out.Tree, out.Leaves = g, hi
			// No later call looks above hi: fix the bound for good, so
			// that the solver propagates it at level 0.
			if fixed, err := r.enc.LeafBound(hi); err == nil {
				r.enc.add(fixed)
			}
			report.Report(sz(hi), g)
		default:
			lo = mid + 1
			if s.Certify != nil {
				id, _, _ := r.solver.(*sat.CDCL).Refutation()
				refuted = &sat.Refuted{LogID: id, Assumptions: []sat.Lit{bound}, Bound: lo,
					Certifies: fmt.Sprintf("no tree of depth at most %d with at most %d leaves (%d nodes) is consistent with the rows", k, mid, 2*mid-1)}
			}
		}
		out.LeavesLB = lo
	}
	out.Optimal = true
	out.LeavesLB = hi
	if refuted != nil {
		if err := s.Certify.Finish(r.solver, "size", *refuted); err != nil {
			return nil, err
		}
	}
	return out, nil
}
