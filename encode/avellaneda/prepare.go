package avellaneda

import (
	"context"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
)

// ErrConflict is wrapped by the error for rows that no consistent tree
// can separate (identical tests, different labels): model.ErrConflict,
// which every backend of a consistent-tree objective reports alike.
var ErrConflict = model.ErrConflict

// Prepare binarizes the data, removes redundant tests and finds the
// distinct rows (satjob.PrepareExamples, no cap on the binary view).
// Rows with identical tests and different labels fail with ErrConflict
// (count, first conflicting rows) unless dropConflicts.
func Prepare(d *model.Dataset, dropConflicts bool) (*satjob.Examples, error) {
	return satjob.PrepareExamples(context.Background(), d, dropConflicts, 0)
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
