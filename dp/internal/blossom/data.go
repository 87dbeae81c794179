// Package blossom is the engine of the Blossom solver (Demirović,
// Hebrard and Jean, "A Simple and Efficient Anytime Algorithm for
// Computing Optimal Decision Trees", ICML 2023): an iterative version of the depth-bounded dynamic
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
//
// # Parallel search
//
// With Options.Workers > 1 (and a root searched test by test: depth 3 or
// more, or 2 without the two-level rule) the search runs on that many
// goroutines (parallel.go).
//
// Work split. The sequential search tries the tests of the root one
// after the other, in the order of its domain, and searches the two
// subtrees under each; apart from the root's best (the bound every
// branch is checked against by the ancestor lower bound) what it does
// under one root test does not depend on what it did under another. The
// parallel search orders the root's domain once and hands its positions
// out in that order from one shared counter; each worker searches the
// subtrees under its test with the sequential code (a root whose only
// test left is the one at its position), with its own branch slots, pair
// tables and scratch, then takes the next position. A worker that
// finishes early takes more tests: the load balances itself over the
// tens to hundreds of root tests.
//
// What is shared: the data and the root's domain (read only); the
// incumbent (best tree, its error, the position of the root test it came
// from) behind an atomic pointer that workers read before every step and
// write under one mutex; the next position; a stop flag; the Budget.
//
// Determinism. Among trees of equal error the one under the root test
// of lowest position wins, as in the sequential search (a later test
// replaces the root's tree only when strictly better). A worker at
// position p takes as its root's best the incumbent's error e when the
// incumbent came from a position below p, and e+1 when it came from
// above (so an equal tree from p still replaces it). The winning
// position is thus the lowest whose optimum is the optimum, whatever the
// timing. Under it, the tree is the first of optimal error its worker
// finds, and that tree does not depend on the bound the worker reads as
// long as the bound is above the optimum (it always is for the winning
// position): the ancestor lower bound only gives up configurations that
// cannot strictly improve some ancestor, and every branch's tests are
// tried in a fixed order, so each branch of the optimal tree gets the
// first of its tests that reaches its optimum, below which the same
// holds. Hence a search that runs to the end returns the same error and
// the same tree at every worker count, the sequential one included
// (tested on random data under every option at 1, 2 and 4 workers). One
// exception: under a Budget that refuses some pair tables, which
// branches are searched test by test instead (same error, possibly
// another tree of that error) depends on what the other workers hold at
// the time. A stopped search returns the incumbent of the moment.
//
// Anytime. Every improvement of a worker's root is offered to the shared
// incumbent under the mutex; it is reported there, and only when its
// error is below the last one reported, so reports strictly decrease. An
// equal tree from a lower position replaces the incumbent silently.
//
// Stop. Workers look at the context and at the shared stop flag where
// the sequential search looks at the context (cancel is as prompt), and
// Solve returns only after every worker has. A refused reservation of a
// branch slot sets the flag and becomes the result's Cause (memory-limit
// semantics); a refused pair table only makes that branch be searched
// test by test. The lower bound of a stopped search is the smallest of
// the incumbent's error, the bound of each root test being searched when
// it stopped (the sequential bound of a root whose current test is its
// last) and 0 if some root test was never handed out; a finished root
// test cannot beat the incumbent.
//
// Memory. Each worker holds the branches of one current tree under one
// root test (memory linear in the tree, as in the sequential search) and
// its pair tables, all reserved in the shared Budget: at most the
// sequential search's memory times the number of workers, plus the data
// once.
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
