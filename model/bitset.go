package model

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// Bitset is a fixed-size set of row indices, 64 rows per word. Operations
// on two bitsets assume they have the same length.
type Bitset []uint64

// NewBitset returns an empty bitset able to hold n rows.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// FullBitset returns the set {0, ..., n-1}.
func FullBitset(n int) Bitset {
	b := NewBitset(n)
	for i := range b {
		b[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		b[len(b)-1] = (uint64(1) << r) - 1
	}
	return b
}

// Set adds row i.
func (b Bitset) Set(i int) { b[i>>6] |= 1 << (uint(i) & 63) }

// Clear removes row i.
func (b Bitset) Clear(i int) { b[i>>6] &^= 1 << (uint(i) & 63) }

// Has reports whether row i is in the set.
func (b Bitset) Has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// Count is the number of rows in the set.
func (b Bitset) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// Clone returns a copy.
func (b Bitset) Clone() Bitset { return append(Bitset(nil), b...) }

// Equal reports whether both sets hold the same rows.
func (b Bitset) Equal(o Bitset) bool {
	if len(b) != len(o) {
		return false
	}
	for i := range b {
		if b[i] != o[i] {
			return false
		}
	}
	return true
}

// And sets b to x ∩ y and returns b.
func (b Bitset) And(x, y Bitset) Bitset {
	for i := range b {
		b[i] = x[i] & y[i]
	}
	return b
}

// AndNot sets b to x \ y and returns b.
func (b Bitset) AndNot(x, y Bitset) Bitset {
	for i := range b {
		b[i] = x[i] &^ y[i]
	}
	return b
}

// AndCount is |x ∩ y|.
func AndCount(x, y Bitset) int {
	n := 0
	for i := range x {
		n += bits.OnesCount64(x[i] & y[i])
	}
	return n
}

// AndCount3 is |x ∩ y ∩ z|.
func AndCount3(x, y, z Bitset) int {
	n := 0
	for i := range x {
		n += bits.OnesCount64(x[i] & y[i] & z[i])
	}
	return n
}

// AndNotCount is |x \ y|.
func AndNotCount(x, y Bitset) int {
	n := 0
	for i := range x {
		n += bits.OnesCount64(x[i] &^ y[i])
	}
	return n
}

// Rows appends the rows of the set, in increasing order, to dst.
func (b Bitset) Rows(dst []int) []int {
	for i, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			dst = append(dst, i*64+t)
			w &= w - 1
		}
	}
	return dst
}

// Hash returns the hash of the words of b under seed: equal bitsets hash
// equal, so it keys a map of candidates that are then compared word by
// word.
func (b Bitset) Hash(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	// 64 words a write: one write per word costs more than the hashing.
	var buf [512]byte
	for len(b) > 0 {
		k := min(len(b), 64)
		for i, w := range b[:k] {
			binary.LittleEndian.PutUint64(buf[8*i:], w)
		}
		h.Write(buf[:8*k])
		b = b[k:]
	}
	return h.Sum64()
}
