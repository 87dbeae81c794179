package flowoct

import (
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// subtreeBaseBytes takes the place of milpjob.HiGHSBaseBytes for the
// subtree MILPs of a decomposed solve: each is small (of depth 1 with
// decompose=2 at depth 3), solved near its root and freed before the
// next, so the run's peak is the process's own floor (runtime, data,
// binary view) and HiGHS's least; calibrated on the peak resident memory
// of decomposed depth-3 solves (docs/benchmarks.md, "milp-flowoct's
// memory estimate of a decomposed solve").
const subtreeBaseBytes = 32 << 20

// Estimate is the size of the planned MILP (see Plan), counted exactly
// from the groups and tests before anything is built, and the bytes of
// the Go model (with solving: plus the MILP solver's copy of it).
func (e *Encoding) Estimate(solving bool) backend.Size {
	var c backend.Counter
	o := e.Opts
	gen := o.general()
	T, G, K := int64(len(e.Tests)), int64(len(e.groups)), int64(len(e.View.Class))
	nInt, nNodes := int64(e.nInt), int64(e.nNodes)
	leaves := nNodes - nInt
	wNodes := leaves
	if gen {
		wNodes = nNodes
	}
	var present int64 // Σ over groups of the classes each holds
	for _, g := range e.groups {
		for _, w := range g.w {
			if w > 0 {
				present++
			}
		}
	}
	cols := c.Add(c.Mul(nInt, T), c.Mul(wNodes, K))
	if gen {
		cols = c.Add(cols, nNodes)
	}
	// Node rows: one test per internal node (and with predictions, each
	// node or an ancestor predicts); one class per predicting node.
	var rows, nz int64
	if gen {
		var depthSum int64 // Σ over nodes of their depth
		for l := int64(0); l <= int64(o.Depth); l++ {
			depthSum = c.Add(depthSum, c.Mul(l, int64(1)<<l))
		}
		rows = nNodes
		nz = c.Add(c.Mul(nInt, T), nNodes, depthSum, c.Mul(wNodes, K+1))
	} else if T > 0 {
		rows = nInt
		nz = c.Add(c.Mul(nInt, T), c.Mul(wNodes, K))
	} else {
		nz = c.Mul(wNodes, K)
	}
	rows = c.Add(rows, wNodes)
	if o.MaxInternal > 0 && nInt > 0 {
		rows, nz = c.Add(rows, 1), c.Add(nz, c.Mul(nInt, T))
	}
	// Per group, the tests on each side: Σ over groups of f(m0)+f(m1).
	var sides int64
	var sidesPlain int64
	for g := range e.groups {
		m1 := int64(0)
		for j := range e.Tests {
			if e.value(g, j) {
				m1++
			}
		}
		sides += T
		for _, m := range []int64{T - m1, m1} {
			if 2*m > T {
				sidesPlain += T - m
			} else {
				sidesPlain += m
			}
		}
	}
	if o.MinSupport > 1 {
		cols = c.Add(cols, c.Mul(2, c.Mul(G, nNodes)))
		rows = c.Add(rows, c.Mul(2, c.Mul(G, nNodes)), c.Mul(2, c.Mul(G, nInt)), nNodes)
		nz = c.Add(nz, c.Mul(G, c.Add(c.Mul(4, nNodes), c.Mul(2, nInt))), c.Mul(G, c.Mul(2, nInt)), c.Mul(nInt, sides), c.Mul(nNodes, G+1))
	}
	if o.Benders {
		cols = c.Add(cols, present)
		for _, g := range e.groups {
			k := int64(0)
			for _, w := range g.w {
				if w > 0 {
					k++
				}
			}
			if k > 1 {
				rows, nz = c.Add(rows, 1), c.Add(nz, k)
			}
		}
	} else if o.tight() && o.Depth == 1 {
		// Compact: the leaves' classes per test, no flow.
		cols = c.Add(cols, c.Mul(leaves, c.Mul(T, K)))
		rows = c.Add(rows, c.Mul(leaves, T+K))
		nz = c.Add(nz, c.Mul(leaves, c.Mul(T, K+1)), c.Mul(leaves, c.Mul(K, T+1)))
	} else if o.tight() {
		// Per leaf: a v per test and class, a row per test and per
		// class; a sink row holds the v of the tests on its side.
		cols = c.Add(cols, c.Mul(leaves, c.Mul(T, K)))
		rows = c.Add(rows, c.Mul(leaves, T+K))
		nz = c.Add(nz, c.Mul(leaves, c.Mul(T, K+1)), c.Mul(leaves, c.Mul(K, T+1)))
		sinks := c.Mul(present, wNodes)
		cols = c.Add(cols, c.Mul(G, nNodes), sinks)
		rows = c.Add(rows, c.Mul(G, nNodes), c.Mul(2, c.Mul(G, nInt)), sinks)
		nz = c.Add(nz, c.Mul(G, nNodes), c.Mul(2, c.Mul(G, nInt)), sinks,
			c.Mul(2, c.Mul(G, nInt)), c.Mul(nInt, sidesPlain),
			sinks, c.Mul(present, c.Mul(leaves/2, T))) // each sink, and the tests of its side
	} else {
		sinks := c.Mul(present, wNodes)
		arcs := sides
		if !gen {
			arcs = sidesPlain
		}
		cols = c.Add(cols, c.Mul(G, nNodes), sinks)
		// Conservation at every node, the two arcs of every internal
		// node, one row per sink.
		rows = c.Add(rows, c.Mul(G, nNodes), c.Mul(2, c.Mul(G, nInt)), sinks)
		nz = c.Add(nz, c.Mul(G, nNodes), c.Mul(2, c.Mul(G, nInt)), sinks, // conservation: in, children
			c.Mul(2, c.Mul(G, nInt)), c.Mul(nInt, arcs), // arcs: the child and the tests
			c.Mul(2, sinks)) // sinks
	}
	base := int64(milpjob.HiGHSBaseBytes)
	if e.subtree {
		base = subtreeBaseBytes
	}
	s := milpjob.Estimate(&c, cols, rows, nz, solving, base)
	if c.Over {
		s = backend.Size{Variables: math.MaxInt64, Constraints: math.MaxInt64, NonZeros: math.MaxInt64, Bytes: math.MaxInt64}
	}
	return s
}
