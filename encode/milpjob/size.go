package milpjob

import (
	"math"

	"github.com/odtkit/odtkit/backend"
)

// Bytes per column, row and non-zero of HiGHS's copy of a MILP solved in
// process: the matrix row- and column-wise, its presolved copy, the LP
// relaxation and the first nodes' data. Calibrated on the peak resident
// memory of short solves (the data: docs/benchmarks.md, "Figures behind
// constants and defaults"); HiGHS's branch and bound
// grows beyond this as it runs, and the binding stops it at the memory
// cap.
const (
	highsColBytes = 400
	highsRowBytes = 300
	highsNZBytes  = 200
)

// HiGHSBytes is what in-process HiGHS holds for a MILP of cols columns,
// rows rows and nz non-zeros, beyond the model the backend built;
// overflow is recorded in c.
func HiGHSBytes(c *backend.Counter, cols, rows, nz int64) int64 {
	return c.Add(c.Mul(highsColBytes, cols), c.Mul(highsRowBytes, rows), c.Mul(highsNZBytes, nz))
}

// Bytes per entry of a MILP's estimate: a column and a row of milp.Model
// with their names and the form's indices, a non-zero (an int index and
// a float64 value, its copy in the matrix the MPS and LP writers and the
// HiGHS binding transpose, and the garbage of building rows), doubled
// for what a collected heap holds between collections. Calibrated on the
// peak resident memory of milp-flowoct's exports and solves (the data:
// docs/benchmarks.md, "Figures behind constants and defaults"); the
// other MILPs are built the same way.
const (
	colBytes = 2 * 96
	rowBytes = 2 * 112
	nzBytes  = 2 * 40
)

// HiGHSBaseBytes is what an in-process HiGHS solve holds whatever the
// MILP (its workers, the LP's factorisation, the search's pools).
const HiGHSBaseBytes = 80 << 20

// Estimate is the size of a MILP of cols columns, rows rows and nz
// non-zeros, counted in c, and the bytes of its Go model; with solving,
// plus base (what the solve holds whatever the MILP: HiGHSBaseBytes for
// one MILP solved whole) and HiGHS's copy (HiGHSBytes). When c saturated
// (c.Over), Bytes is the largest int64.
func Estimate(c *backend.Counter, cols, rows, nz int64, solving bool, base int64) backend.Size {
	s := backend.Size{Variables: cols, Constraints: rows, NonZeros: nz}
	s.Bytes = c.Add(c.Mul(colBytes, cols), c.Mul(rowBytes, rows), c.Mul(nzBytes, nz))
	if solving {
		s.Bytes = c.Add(s.Bytes, base, HiGHSBytes(c, cols, rows, nz))
	}
	if c.Over {
		s.Bytes = math.MaxInt64
	}
	return s
}
