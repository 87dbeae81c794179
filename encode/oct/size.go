package oct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// Estimate is the size of the planned MILP, counted from the data before
// anything is built, and the bytes of the Go model (with solving: plus
// the MILP solver's copy of it).
func (e *Encoding) Estimate(solving bool) backend.Size {
	var c backend.Counter
	n, K, P := int64(e.Data.Rows()), int64(e.Data.NumClasses()), int64(len(e.Cols))
	B, L, D := int64(e.nInt), int64(e.nLeaves), int64(e.Opts.Depth)
	cols := c.Add(c.Mul(B, P+2), c.Mul(L, 3+2*K), c.Mul(n, L))
	// Branch: split, threshold, parent rows; leaves: N_t, min support,
	// class, N_kt and the two L_t rows per class, one z ≤ l per row;
	// rows: assignment and one path row per ancestor of each leaf.
	rows := c.Add(c.Mul(3, B), c.Mul(L, 3+3*K), c.Mul(n, L), n)
	nz := c.Add(c.Mul(B, P+1), c.Mul(2, B), c.Mul(2, B),
		c.Mul(L, c.Mul(2, n+1)), c.Mul(L, K+1), c.Mul(L, n+K), c.Mul(L, c.Mul(K, 8)),
		c.Mul(2, c.Mul(n, L)), c.Mul(n, L))
	switch {
	case e.routedExactly():
		// No path rows (strengthen states the routing).
	case e.Opts.Aggregate:
		// Per row, two path rows per branch node, each over the leaves of
		// its side; the leaves of one level's sides are the L leaves.
		rows = c.Add(rows, c.Mul(n, 2*B))
		nz = c.Add(nz, c.Mul(n, c.Add(c.Mul(2*B, P+1), c.Mul(L, D))))
	default:
		rows = c.Add(rows, c.Mul(n, c.Mul(L, D)))
		nz = c.Add(nz, c.Mul(n, c.Mul(L, c.Mul(D, P+2))))
	}
	if e.Opts.MaxSplits > 0 {
		rows, nz = c.Add(rows, 1), c.Add(nz, B)
	}
	if e.Opts.Strengthen {
		// Counted per row, not per group of identical rows (an upper
		// bound): q, Q, w; the first-gap rows, two routing rows per row
		// and branch node, q's two rows, w ≤ z and w ≤ Σ q per row and
		// leaf, L_t ≥ N_t − Σ w per leaf.
		cols = c.Add(cols, c.Mul(L, c.Mul(P+1, K)), c.Mul(L, K), c.Mul(n, L))
		rows = c.Add(rows, B, c.Mul(n, 2*B), c.Mul(L, P+1), c.Mul(L, 2*K), c.Mul(n, 2*L), L)
		nz = c.Add(nz, c.Mul(B, P+1), c.Mul(n, c.Add(c.Mul(2*B, P+2), c.Mul(L, D))),
			c.Mul(L, c.Mul(P+1, K+1)), c.Mul(L, c.Mul(K, P+4)), c.Mul(n, c.Mul(L, P+4)), c.Mul(L, n+2))
	}
	return milpjob.Estimate(&c, cols, rows, nz, solving, milpjob.HiGHSBaseBytes)
}
