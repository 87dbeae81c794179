package avellaneda

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// run is one incremental solve at a fixed depth (Algorithm 3).
type run struct {
	p       *satjob.Examples
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
func newRun(ctx context.Context, p *satjob.Examples, k int, s *Settings, seed []int, calls *int, recycle *sat.CDCL, sb *slotBits) (*run, error) {
	enc, err := NewEncoding(ctx, s.Budget, p.View, p.Tests, p.Reps, k, s.Options)
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
func newSlotBits(p *satjob.Examples) *slotBits {
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
// Near misses pin a split down where the data leave the least room, and a
// depth with no consistent tree is refuted with fewer, harder examples.
// Each depth starts from no example by default: the near misses that
// refuted depth k make depth k+1's satisfiable formula harder when they
// seed it (Settings.Seed). On the small inferdt files, the nearest examples
// with each depth from none took the fewest conflicts, the farthest the
// most (figures in docs/benchmarks.md, "Figures behind constants and
// defaults").
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
