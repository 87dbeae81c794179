package avellaneda

import (
	"fmt"
	"strings"

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
