package dl85

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/odtkit/odtkit/model"
)

// Data is the binary input of the engine: one column bitset per test
// (rows where it is true), a class per row and optional row weights.
type Data struct {
	N, M, NC int // rows, tests, classes
	words    int
	cols     [][]uint64 // per test, rows where it is true
	class    [][]uint64 // per class, its rows
	label    []int32
	w        []float64  // nil: every row weighs 1
	rowBits  [][]uint64 // per row, the tests true on it
	group    []int32    // per row, the id of its distinct test vector
	nGroups  int
}

// NewData checks and indexes the input: cols[t] holds the rows (of n)
// where test t is true, labels[r] in [0, nc), weights nil or one
// non-negative finite weight per row. Transposing many tests over many
// rows takes seconds: it stops with ctx's cause when ctx is done.
func NewData(ctx context.Context, n int, cols [][]uint64, labels []int, nc int, weights []float64) (*Data, error) {
	if n <= 0 {
		return nil, errors.New("dl85: no rows")
	}
	if len(labels) != n {
		return nil, fmt.Errorf("dl85: %d labels for %d rows", len(labels), n)
	}
	if nc < 1 {
		return nil, errors.New("dl85: no classes")
	}
	if weights != nil && len(weights) != n {
		return nil, fmt.Errorf("dl85: %d weights for %d rows", len(weights), n)
	}
	words := (n + 63) / 64
	d := &Data{N: n, M: len(cols), NC: nc, words: words, cols: cols, w: weights}
	for t, c := range cols {
		if len(c) != words {
			return nil, fmt.Errorf("dl85: test %d has %d words, want %d", t, len(c), words)
		}
	}
	d.class = make([][]uint64, nc)
	for c := range d.class {
		d.class[c] = make([]uint64, words)
	}
	d.label = make([]int32, n)
	for r, l := range labels {
		if l < 0 || l >= nc {
			return nil, fmt.Errorf("dl85: row %d has class %d, want 0..%d", r, l, nc-1)
		}
		d.label[r] = int32(l)
		d.class[l][r>>6] |= 1 << (uint(r) & 63)
	}
	for r, x := range weights {
		if !(x >= 0) || x > 1e300 {
			return nil, fmt.Errorf("dl85: row %d has weight %v", r, x)
		}
	}
	flat, mw, err := model.RowMajorContext(ctx, cols, n)
	if err != nil {
		return nil, fmt.Errorf("dl85: indexing the rows: %w", err)
	}
	d.rowBits = make([][]uint64, n)
	for r := range d.rowBits {
		d.rowBits[r] = flat[r*mw : (r+1)*mw : (r+1)*mw]
	}
	// Distinct test vectors, for the irreducible-error lower bound: rows
	// keyed by a hash of their test words, compared word by word (no
	// copy of the rows' bits as map keys).
	d.group = make([]int32, n)
	// head[h]: the first representative row of hash h; chain[r]: the
	// next representative with r's hash (-1: none).
	head := make(map[uint64]int32, min(n, 1<<16))
	chain := make([]int32, n)
	groups := int32(0)
	for r := range n {
		h := wordsHash(d.rowBits[r])
		id := int32(-1)
		o, ok := head[h]
		for ok && o >= 0 {
			if slices.Equal(d.rowBits[o], d.rowBits[r]) {
				id = d.group[o]
				break
			}
			o = chain[o]
		}
		if id < 0 {
			id = groups
			groups++
			chain[r] = -1
			if first, had := head[h]; had {
				chain[r] = first
			}
			head[h] = int32(r)
		}
		d.group[r] = id
	}
	d.nGroups = int(groups)
	return d, nil
}

// wordsHash mixes the words of a row's tests into 64 bits (equal rows,
// equal hashes; rows are compared before they are grouped).
func wordsHash(w []uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, x := range w {
		h ^= x
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	return h
}

// Bytes estimates the memory of the engine's copy of the data beyond the
// caller's columns: the row-major bits and the per-row indexes.
func (d *Data) Bytes() int64 {
	mw := int64((d.M + 63) / 64)
	return int64(d.N)*(8*mw+4+4+24) + int64(d.NC*d.words)*8
}

// weight of row r.
func (d *Data) weight(r int) float64 {
	if d.w == nil {
		return 1
	}
	return d.w[r]
}

func andCount(x, y []uint64) int {
	n := 0
	y = y[:len(x)]
	for i, a := range x {
		n += bits.OnesCount64(a & y[i])
	}
	return n
}

func andCount3(x, y, z []uint64) int {
	n := 0
	y = y[:len(x)]
	z = z[:len(x)]
	for i, a := range x {
		n += bits.OnesCount64(a & y[i] & z[i])
	}
	return n
}
