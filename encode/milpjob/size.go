package milpjob

import "github.com/odtkit/odtkit/backend"

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
