// Package blossom is the engine of the Blossom solver (Hebrard and
// Emmanuel, "Blossom: an anytime algorithm for computing optimal
// decision trees"): an iterative version of the depth-bounded dynamic
// programme over branches that completes a tree before it tries
// alternatives, keeps only the current tree in memory, and proves
// optimality when every feature has been tried on every branch.
//
// The engine works on weighted binary data (see Data); the package dp
// turns a model.BinaryView into that form (Prepare) and the result back
// into a model.Graph.
package blossom

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Plane is one bit plane of the row weights of a class: the rows of
// class Class whose weight has bit Shift set.
type Plane struct {
	Class int
	Shift uint
	Bits  []uint64
}

// Data is a weighted binary data set in column form: Cols[f] holds the
// rows on which feature f is true, and the weighted class count of a row
// set S is sum over planes of popcount(S ∩ plane) << Shift.
type Data struct {
	N      int // rows
	W      int // words per bitset
	C      int // classes
	Cols   [][]uint64
	Planes []Plane
	// Weight and Label of each row (for statistics and checks).
	Weight []int64
	Label  []int
}

// NewData builds the column form from per-row features, labels and
// positive integer weights. cols[f] must have length (n+63)/64.
func NewData(n, classes int, cols [][]uint64, labels []int, weights []int64) (*Data, error) {
	if classes < 1 {
		return nil, errors.New("blossom: no classes")
	}
	if len(labels) != n || len(weights) != n {
		return nil, fmt.Errorf("blossom: %d rows but %d labels and %d weights", n, len(labels), len(weights))
	}
	w := (n + 63) / 64
	d := &Data{N: n, W: w, C: classes, Cols: cols, Weight: weights, Label: labels}
	for f, c := range cols {
		if len(c) != w {
			return nil, fmt.Errorf("blossom: feature %d has %d words, want %d", f, len(c), w)
		}
	}
	top := make([]int64, classes)
	for r, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("blossom: row %d has class %d of %d", r, l, classes)
		}
		if weights[r] <= 0 || weights[r] > math.MaxInt32 {
			return nil, fmt.Errorf("blossom: row %d has weight %d (want 1..2^31-1)", r, weights[r])
		}
		top[l] = max(top[l], weights[r])
	}
	for c := range classes {
		nb := bits.Len64(uint64(top[c]))
		for s := range nb {
			p := Plane{Class: c, Shift: uint(s), Bits: make([]uint64, w)}
			for r, l := range labels {
				if l == c && weights[r]>>s&1 == 1 {
					p.Bits[r>>6] |= 1 << (uint(r) & 63)
				}
			}
			d.Planes = append(d.Planes, p)
		}
	}
	return d, nil
}
