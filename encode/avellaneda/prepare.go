package avellaneda

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

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
	return PrepareContext(context.Background(), d, dropConflicts, 0)
}

// PrepareContext is Prepare within a context and a cap of maxBytes on the
// binary view (0 or less: none). The minimum depth and size need every
// threshold, so a view beyond the cap is refused rather than coarsened; ctx is polled while the view is built and while
// the rows are told apart, and its cause is returned once it ends.
func PrepareContext(ctx context.Context, d *model.Dataset, dropConflicts bool, maxBytes int64) (*Prepared, error) {
	keep, dropped, err := d.ConsistentRows(dropConflicts)
	if err != nil {
		return nil, err
	}
	v, err := model.BinarizeBudget(ctx, d, maxBytes)
	if err != nil {
		return nil, err
	}
	if v.Coarse {
		return nil, fmt.Errorf("the binary view of every threshold (%d tests over %d rows) does not fit in %s, and the minimum depth and size need them all: refused before building the formula (raise --memory-limit)",
			v.FullTests, v.N, backend.MB(maxBytes))
	}
	dup, comp, constant, err := v.RedundancyContext(ctx)
	if err != nil {
		return nil, err
	}
	p := &Prepared{View: v, Keep: keep, Dropped: dropped}
	for t := range v.Tests {
		if dup[t] < 0 && comp[t] < 0 && !constant[t] {
			p.Tests = append(p.Tests, t)
		}
	}
	if p.Reps, err = distinctRows(ctx, v, p.Tests, keep); err != nil {
		return nil, err
	}
	return p, nil
}

// distinctRows returns the lowest kept row of each distinct vector of the
// tests, in increasing order (the rows told apart by
// model.BinaryView.Partition, which polls ctx).
func distinctRows(ctx context.Context, v *model.BinaryView, tests []int, keep model.Bitset) ([]int, error) {
	part, n, err := v.Partition(ctx, tests, nil)
	if err != nil {
		return nil, err
	}
	seen := make([]bool, n)
	var reps []int
	for r := range v.N {
		if keep.Has(r) && !seen[part[r]] {
			seen[part[r]] = true
			reps = append(reps, r)
		}
	}
	return reps, nil
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

// presentClasses counts the classes among the representative rows.
func presentClasses(p *Prepared) int {
	seen := map[int]bool{}
	for _, r := range p.Reps {
		seen[p.View.Data.Labels[r]] = true
	}
	return len(seen)
}
