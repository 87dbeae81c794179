// Package cacheline keeps a parallel worker's hot scratch on cache lines
// of its own. The workers of a parallel search write their small scratch
// (row sets, class counts, keys, counters) on every node; when two
// workers' objects lie side by side in one 64-byte line, the two cores
// take turns owning it (false sharing), at a cost that depends on where
// the allocator happened to put them and so varies from run to run.
package cacheline

import "unsafe"

// Size is the cache line size assumed: 64 bytes (x86-64 and most arm64).
const Size = 64

// Pad is a struct field that keeps the fields after it off the line of
// whatever precedes the struct in memory (put one first and one last).
type Pad [Size]byte

// Slice makes a slice of n elements whose backing array has whole cache
// lines to itself: its capacity is rounded up to a multiple of Size
// bytes (at least one line), and Go places an object of such a size at a
// multiple of its size class, itself then a multiple of 64 bytes.
func Slice[E any](n int) []E {
	sz := int(unsafe.Sizeof(*new(E)))
	if sz == 0 {
		return make([]E, n)
	}
	c := max((n*sz+Size-1)/Size*Size, Size) / sz
	return make([]E, n, c)
}
