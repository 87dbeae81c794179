package satjob

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Examples is the data as a formula of a tree with no training error
// sees it (sat-depth, sat-size, sat-dt1): the binary view, the tests kept
// (duplicates, complements and constants removed: they never change the
// minimum depth, size or node count), and one representative row per
// distinct vector of tests.
type Examples struct {
	View  *model.BinaryView
	Tests []int
	// Reps lists one row per distinct test vector (lowest row index).
	Reps []int
	// Dropped counts the rows dropped as conflicting (DropConflicts).
	Dropped int
	// Keep marks the rows the tree must classify (all but dropped ones).
	Keep model.Bitset
}

// PrepareExamples binarizes the data, removes redundant tests and finds
// the distinct rows, the binary view capped at maxBytes (0 or less:
// none). Rows with identical tests and different labels fail with
// model.ErrConflict (count, first conflicting rows) unless dropConflicts.
// A tree with no training error needs every threshold, so a view beyond
// the cap is refused rather than coarsened; ctx is polled while the view
// is built and while the rows are told apart, and its cause is returned
// once it ends.
func PrepareExamples(ctx context.Context, d *model.Dataset, dropConflicts bool, maxBytes int64) (*Examples, error) {
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
	kept, err := v.KeptTests(ctx)
	if err != nil {
		return nil, err
	}
	p := &Examples{View: v, Keep: keep, Dropped: dropped, Tests: kept}
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

// PresentClasses counts the classes among the representative rows.
func (p *Examples) PresentClasses() int {
	seen := map[int]bool{}
	for _, r := range p.Reps {
		seen[p.View.Data.Labels[r]] = true
	}
	return len(seen)
}

// JobExamples prepares the examples of a job's data (PrepareExamples),
// the binary view capped at half the job's memory cap (the rest is the
// formula's and the solver's). The job was checked when backend.NewJob
// built it; a refused view and conflicting rows (without dropConflicts)
// are a bad request (backend.ErrInvalid); when ctx ends the error is its
// cause.
func JobExamples(ctx context.Context, job *backend.Job, dropConflicts bool) (*Examples, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	p, err := PrepareExamples(ctx, job.Data, dropConflicts, max(job.Budget.Limit()/2, 0))
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, backend.Invalid(err)
	}
	return p, nil
}
