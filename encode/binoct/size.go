package binoct

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
)

// pathCount is what the path constraints of one node and column j hold:
// the constraints, the rows they cover (each weighs the leaves of one
// side) and their literals, as pathRows writes them.
func (e *Encoding) pathCount(j int) (rows, covered, lits int64) {
	col := &e.Cols[j]
	nv := len(col.Values)
	perValue := make([]int64, nv)
	for _, k := range col.Index {
		perValue[k]++
	}
	count := func(vlo, vhi, nl int) {
		vhi = min(vhi, nv-1)
		var n int64
		for k := vlo; k <= vhi; k++ {
			n += perValue[k]
		}
		if n > 0 {
			rows, covered, lits = rows+1, covered+n, lits+int64(nl)
		}
	}
	var walk func(depth, lo int)
	walk = func(depth, lo int) {
		if lo > nv-1 {
			return
		}
		if depth == e.Bits {
			count(lo, lo, depth+1)
			return
		}
		size := 1 << (e.Bits - depth)
		mid := lo + size/2 - 1
		count(mid+1, lo+size-1, depth+2)
		count(lo, mid, depth+2)
		walk(depth+1, lo)
		walk(depth+1, mid+1)
	}
	walk(0, 0)
	return
}

// Estimate is the size of the planned MILP, counted from the data before
// anything is built, and the bytes of the Go model (with solving: plus
// the MILP solver's copy of it).
func (e *Encoding) Estimate(solving bool) backend.Size {
	var c backend.Counter
	n, K, P := int64(e.Data.Rows()), int64(e.Data.NumClasses()), int64(len(e.Cols))
	B, L := int64(e.nInt), int64(e.nLeaves)
	cols := c.Add(c.Mul(B, P+int64(e.Bits)), c.Mul(L, 2*K), c.Mul(n, L))
	rows := c.Add(L, n, c.Mul(L, K))
	nz := c.Add(c.Mul(L, K), c.Mul(n, L), c.Mul(L, c.Mul(K, 2)), c.Mul(n, L))
	if P > 0 {
		rows, nz = c.Add(rows, B), c.Add(nz, c.Mul(B, P))
	}
	// Every branch node holds each column's path rows; a covered row
	// weighs the leaves of the node's low side, 2^(D-l-1) at level l, so
	// the 2^l nodes of each level weigh 2^(D-1) leaves together and the
	// tree D·2^(D-1) (counted by level, not node by node: a deep tree has
	// far too many nodes to visit before refusing it).
	sides := c.Mul(int64(e.Opts.Depth), L/2)
	for j := range e.Cols {
		if e.capped() && len(e.Cols[j].Values) == 2 {
			continue // no path rows: strengthen routes a 0/1 column
		}
		pr, cov, lits := e.pathCount(j)
		rows = c.Add(rows, c.Mul(pr, B))
		nz = c.Add(nz, c.Mul(cov, sides), c.Mul(lits, B))
	}
	if e.Opts.extended() {
		cols = c.Add(cols, L)
		rows, nz = c.Add(rows, L), c.Add(nz, c.Mul(L, n+1))
		if e.Opts.MinSupport > 1 {
			rows, nz = c.Add(rows, L), c.Add(nz, c.Mul(L, n+1))
		}
		if e.Opts.MaxSplits > 0 {
			rows, nz = c.Add(rows, 1), c.Add(nz, L)
		}
	}
	if e.Opts.Strengthen {
		// Counted per row, not per group of identical rows (an upper
		// bound): q, Q, w; the cap, two routing rows per row and branch
		// node, q's two rows, w ≤ l and w ≤ Σ q (and w ≤ Σ q + Σ t) per
		// row and leaf, Σ e ≥ Σ w(l − w) per leaf.
		Bits := int64(e.Bits)
		cols = c.Add(cols, c.Mul(L, c.Mul(P, K)), c.Mul(L, K), c.Mul(n, L))
		rows = c.Add(rows, B, c.Mul(n, 2*B), c.Mul(L, P), c.Mul(L, 2*K), c.Mul(n, 3*L), L)
		nz = c.Add(nz, c.Mul(B, P+Bits), c.Mul(n, c.Mul(2*B, P+L+Bits)),
			c.Mul(L, c.Mul(P, K+1)), c.Mul(L, c.Mul(K, P+3)), c.Mul(n, c.Mul(L, 2*(P+Bits)+4)), c.Mul(L, c.Mul(2, n)+K))
	}
	return milpjob.Estimate(&c, cols, rows, nz, solving, milpjob.HiGHSBaseBytes)
}
