package model

import (
	"errors"
	"fmt"
	"strings"
)

// ErrConflict is wrapped by the error for rows that no consistent tree
// can separate (identical features, different labels).
var ErrConflict = errors.New("conflicting rows")

// ConsistentRows returns the rows a tree with no training error (the
// min-depth and min-size objectives) must classify. In every group of
// rows with identical features (IdenticalGroups) and different labels,
// drop keeps the rows of the group's most frequent label (the lowest
// class index on ties) and drops the others, counted in dropped (which
// then equals ConflictFloor); without drop such groups fail with an
// error wrapping ErrConflict that counts them and names the rows of the
// first, and keep is nil.
func (d *Dataset) ConsistentRows(drop bool) (keep Bitset, dropped int, err error) {
	n := d.Rows()
	keep = FullBitset(n)
	count := make([]int, d.NumClasses())
	var conflicts [][]int
	for _, rows := range d.IdenticalGroups() {
		clear(count)
		for _, r := range rows {
			count[d.Labels[r]]++
		}
		best := 0
		for c := range count {
			if count[c] > count[best] {
				best = c
			}
		}
		if count[best] == len(rows) {
			continue
		}
		conflicts = append(conflicts, rows)
		if drop {
			for _, r := range rows {
				if d.Labels[r] != best {
					keep.Clear(r)
					dropped++
				}
			}
		}
	}
	if len(conflicts) == 0 || drop {
		return keep, dropped, nil
	}
	rows := 0
	for _, g := range conflicts {
		rows += len(g)
	}
	first := conflicts[0]
	var desc []string
	for _, r := range first[:min(len(first), 6)] {
		where := fmt.Sprintf("row %d", r+1)
		if len(d.Lines) == d.Rows() {
			where = fmt.Sprintf("line %d", d.Lines[r])
		}
		desc = append(desc, fmt.Sprintf("%s (label %s)", where, d.Classes[d.Labels[r]]))
	}
	return nil, 0, fmt.Errorf("%s: %w: %d groups of rows (%d rows) have identical features and different labels, so no tree classifies every row; first group: %s; drop them with the drop-conflicts option",
		d.Where(first[0]), ErrConflict, len(conflicts), rows, strings.Join(desc, ", "))
}
