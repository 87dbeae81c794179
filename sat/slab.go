package sat

import "math/bits"

// slab hands out the backing arrays of many small growing lists, the
// solver's watch lists, from a few large allocations. Capacities are
// powers of two; a list that grows gives its old array back, and the
// next list growing to that capacity takes it. Lists grown by append
// would be tens of thousands of small allocations per run for the
// collector to trace, sweep and free; the slab makes them a few.
type slab[T any] struct {
	rest []T     // the unused end of the last block
	made int     // elements in all blocks
	free [][][]T // returned arrays by log2 of their capacity
}

// push appends x to list l, growing it from the slab when it is full.
func (p *slab[T]) push(l []T, x T) []T {
	if len(l) == cap(l) {
		l = p.grow(l)
	}
	return append(l, x)
}

// grow returns l's elements in an array of twice its capacity (at least
// minList) and takes l's array back.
func (p *slab[T]) grow(l []T) []T {
	n := max(2*cap(l), minList)
	var nl []T
	if k := bits.TrailingZeros(uint(n)); k < len(p.free) && len(p.free[k]) > 0 {
		f := p.free[k]
		nl = f[len(f)-1]
		f[len(f)-1] = nil
		p.free[k] = f[:len(f)-1]
	} else {
		if len(p.rest) < n {
			size := max(n, min(max(p.made, minBlock), maxBlock))
			p.rest = make([]T, size)
			p.made += size
		}
		nl = p.rest[:0:n]
		p.rest = p.rest[n:]
	}
	nl = append(nl, l...)
	p.release(l)
	return nl
}

// releaseAll takes back the arrays of every list in ls and empties them.
func (p *slab[T]) releaseAll(ls [][]T) {
	for i := range ls {
		p.release(ls[i])
		ls[i] = nil
	}
}

// release takes list l's array back (l is not used again).
func (p *slab[T]) release(l []T) {
	if c := cap(l); c > 0 && c&(c-1) == 0 {
		k := bits.TrailingZeros(uint(c))
		for len(p.free) <= k {
			p.free = append(p.free, nil)
		}
		p.free[k] = append(p.free[k], l[:0])
	}
}

const (
	minList  = 4
	minBlock = 1 << 10
	maxBlock = 1 << 16
)
