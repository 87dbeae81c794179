// Package blossom is the engine of the Blossom solver (Hebrard and
// Emmanuel, "Blossom: an anytime algorithm for computing optimal
// decision trees"): an iterative version of the depth-bounded dynamic
// programme over branches that completes a tree before it tries
// alternatives, keeps only the current tree in memory, and proves
// optimality when every feature has been tried on every branch.
//
// The search follows the paper's Algorithm "Blossom": a stack of
// decisions (branch, feature) and a FIFO queue of buds; features tried in
// order of Gini impurity; a branch with one level left takes the test of
// least error and is optimal at once; when the buds run out, decisions
// are popped until a branch with untried features goes back to the buds.
// The best subtree of every branch is kept (shared, immutable Tree
// values), and every improvement of a branch is pushed to its parent at
// once, so the root always holds a complete tree: the anytime incumbent.
//
// Choices and extensions beyond the printed pseudo-code:
//   - the ancestor lower bound (sum of the errors of optimal siblings
//     between an ancestor and a branch) is checked when a decision is
//     popped, as in the paper, and also when a bud is picked. A branch
//     given up this way, and the branches between it and the ancestor
//     that failed, are "tainted": their best is an upper bound only, and
//     the bound never counts them as optimal siblings. (The paper leaves
//     open whether such a branch is optimal; counting it would use a
//     value that is not a lower bound.)
//   - the two-level rule (on by default): a branch with two levels left is
//     solved at once from the class counts of every pair of features, the
//     way the paper solves the last level; two sibling branches are solved
//     together, the larger one from its parent's counts minus the
//     smaller one's.
//   - "informationless" features are those that take one value on all
//     rows of the branch; they are dropped from its domain.
//
// The engine works on weighted binary data (see Data); the package dp
// turns a model.BinaryView into that form and the result back into a
// model.Graph.
package blossom

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/odtkit/odtkit/model"
)

// Data is a weighted binary data set in column form. Its rows are laid
// out in segments of equal class and weight, each segment starting on a
// 64-bit word boundary (the bits between segments are padding and belong
// to no row set), so that every word of a bitset holds rows of one class
// and one weight: the weighted class counts of a row set are popcounts
// scaled by the word's weight.
type Data struct {
	N int // row slots, padding included
	W int // words per bitset
	C int // classes
	// Cols[f] holds the rows on which feature f is true.
	Cols [][]uint64
	// All holds every row (no padding).
	All []uint64
	// WordClass[w] and WordWeight[w] are the class and the weight of the
	// rows in word w.
	WordClass  []int32
	WordWeight []int64
	// Weight and Label of each row slot (0 and 0 for padding), and the
	// caller's index of each row (-1 for padding).
	Weight []int64
	Label  []int
	Orig   []int
}

// NewData builds the column form from the caller's rows: cols[f] holds
// the rows (caller's numbering, (n+63)/64 words) where feature f is true;
// weights must be positive.
func NewData(n, classes int, cols [][]uint64, labels []int, weights []int64) (*Data, error) {
	if classes < 1 {
		return nil, errors.New("blossom: no classes")
	}
	if len(labels) != n || len(weights) != n {
		return nil, fmt.Errorf("blossom: %d rows but %d labels and %d weights", n, len(labels), len(weights))
	}
	for f, c := range cols {
		if len(c) != (n+63)/64 {
			return nil, fmt.Errorf("blossom: feature %d has %d words, want %d", f, len(c), (n+63)/64)
		}
	}
	for r, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("blossom: row %d has class %d of %d", r, l, classes)
		}
		if weights[r] <= 0 || weights[r] > math.MaxInt32 {
			return nil, fmt.Errorf("blossom: row %d has weight %d (want 1..2^31-1)", r, weights[r])
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if labels[a] != labels[b] {
			return labels[a] - labels[b]
		}
		return cmp.Compare(weights[a], weights[b])
	})
	d := &Data{C: classes}
	slot := make([]int, n) // caller's row -> slot
	for i, r := range order {
		if i > 0 && (labels[r] != labels[order[i-1]] || weights[r] != weights[order[i-1]]) {
			for len(d.Orig)%64 != 0 {
				d.Orig, d.Label, d.Weight = append(d.Orig, -1), append(d.Label, 0), append(d.Weight, 0)
			}
		}
		slot[r] = len(d.Orig)
		d.Orig, d.Label, d.Weight = append(d.Orig, r), append(d.Label, labels[r]), append(d.Weight, weights[r])
	}
	d.N = len(d.Orig)
	d.W = (d.N + 63) / 64
	d.All = make([]uint64, d.W)
	d.WordClass = make([]int32, d.W)
	d.WordWeight = make([]int64, d.W)
	for i, r := range d.Orig {
		if r >= 0 {
			d.All[i>>6] |= 1 << uint(i&63)
			d.WordClass[i>>6] = int32(d.Label[i])
			d.WordWeight[i>>6] = d.Weight[i]
		}
	}
	// Columns in slot order, 64 features at a time: their bits row by
	// row (block transposes), the rows moved to their slots, and back to
	// columns; memory beyond the result is two words per row.
	d.Cols = make([][]uint64, 0, len(cols))
	slotWords := make([]uint64, d.N)
	for j := 0; j < len(cols); j += 64 {
		block := cols[j:min(j+64, len(cols))]
		rows, _ := model.RowMajor(block, n)
		for r, w := range rows {
			slotWords[slot[r]] = w
		}
		d.Cols = append(d.Cols, model.ColumnMajor(slotWords, 1, d.N, len(block))...)
	}
	return d, nil
}

// Bytes is the memory of the column form.
func (d *Data) Bytes() int64 {
	return int64(len(d.Cols)+1)*8*int64(d.W) + int64(d.W)*12 + int64(d.N)*(8+8+8)
}
