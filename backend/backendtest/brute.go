package backendtest

import (
	"math"
	"math/bits"

	"github.com/odtkit/odtkit/model"
)

// brute computes optima by exhaustive search over the binary view of a
// tiny dataset (at most 64 rows): every tree of bounded depth over every
// test. It is the suite's independent oracle for exact backends.
type brute struct {
	d      *model.Dataset
	tests  []uint64 // rows on which each test is true
	all    uint64
	memoE  map[[2]uint64]float64
	memoSz map[[2]uint64]int
	memoS  map[[3]uint64]float64 // minSparse, for one λ and total weight
	minSup int
}

func newBrute(d *model.Dataset, minSupport int) *brute {
	n := d.Rows()
	if n > 64 {
		panic("backendtest: brute force takes at most 64 rows")
	}
	b := &brute{d: d, all: ^uint64(0) >> (64 - n), memoE: map[[2]uint64]float64{}, memoSz: map[[2]uint64]int{}, minSup: max(1, minSupport)}
	v := model.Binarize(d)
	for _, t := range v.Tests {
		var m uint64
		for r := range n {
			if t.Eval(d, r) {
				m |= 1 << r
			}
		}
		b.tests = append(b.tests, m)
	}
	return b
}

// leaf is the weighted error of the best leaf on rows.
func (b *brute) leaf(rows uint64) float64 {
	cnt := make([]float64, b.d.NumClasses())
	for m := rows; m != 0; m &= m - 1 {
		r := bits.TrailingZeros64(m)
		cnt[b.d.Labels[r]] += b.d.Weight(r)
	}
	_, e := model.Majority(cnt)
	return e
}

// minError is the least weighted error of a tree of depth at most depth on
// rows whose leaves hold at least minSup rows each (+Inf: none).
func (b *brute) minError(rows uint64, depth int) float64 {
	key := [2]uint64{rows, uint64(depth)}
	if v, ok := b.memoE[key]; ok {
		return v
	}
	best := math.Inf(1)
	if bits.OnesCount64(rows) >= b.minSup {
		best = b.leaf(rows)
	}
	if depth > 0 && best > 0 {
		for _, t := range b.tests {
			hi, lo := rows&t, rows&^t
			if hi == 0 || lo == 0 {
				continue
			}
			best = math.Min(best, b.minError(lo, depth-1)+b.minError(hi, depth-1))
		}
	}
	b.memoE[key] = best
	return best
}

// minDepth is the least depth of a tree with no training error (-1: none,
// identical rows carry different labels).
func (b *brute) minDepth() int {
	for k := 0; k <= len(b.tests); k++ {
		if b.minError(b.all, k) == 0 {
			return k
		}
	}
	return -1
}

// minSize is the fewest nodes of a tree of depth at most depth with no
// training error on rows (a large number: none).
func (b *brute) minSize(rows uint64, depth int) int {
	const none = 1 << 30
	key := [2]uint64{rows, uint64(depth)}
	if v, ok := b.memoSz[key]; ok {
		return v
	}
	best := none
	if b.leaf(rows) == 0 {
		best = 1
	} else if depth > 0 {
		for _, t := range b.tests {
			hi, lo := rows&t, rows&^t
			if hi == 0 || lo == 0 {
				continue
			}
			if s := 1 + b.minSize(lo, depth-1) + b.minSize(hi, depth-1); s < best {
				best = s
			}
		}
	}
	b.memoSz[key] = best
	return best
}

// minNodes is the fewest nodes of a tree with no training error at any
// depth: minSize at a depth no such tree exceeds. A smallest tree never
// tests a test twice on a path (the second test's other branch would be
// empty, and minSize admits no empty branch), so its depth is at most the
// number of tests; every split sends rows both ways, so it is also below
// the number of rows.
func (b *brute) minNodes() int {
	return b.minSize(b.all, max(0, min(len(b.tests), bits.OnesCount64(b.all)-1)))
}

// minSparse is the least objective errors/total + λ·leaves of a tree on
// rows of depth at most depth with at most nodes internal nodes (nodes <
// 0: no limit) and leaves of at least minSup rows (+Inf: none). With λ =
// 0 and no node limit it is minError/total.
func (b *brute) minSparse(rows uint64, depth, nodes int, lambda, total float64) float64 {
	if b.memoS == nil {
		b.memoS = map[[3]uint64]float64{}
	}
	key := [3]uint64{rows, uint64(depth), uint64(nodes + 1)}
	if v, ok := b.memoS[key]; ok {
		return v
	}
	best := math.Inf(1)
	if bits.OnesCount64(rows) >= b.minSup {
		best = b.leaf(rows)/total + lambda
	}
	if depth > 0 && nodes != 0 {
		for _, t := range b.tests {
			hi, lo := rows&t, rows&^t
			if hi == 0 || lo == 0 {
				continue
			}
			if nodes < 0 {
				best = math.Min(best, b.minSparse(lo, depth-1, -1, lambda, total)+b.minSparse(hi, depth-1, -1, lambda, total))
				continue
			}
			for kl := 0; kl < nodes; kl++ {
				best = math.Min(best, b.minSparse(lo, depth-1, kl, lambda, total)+b.minSparse(hi, depth-1, nodes-1-kl, lambda, total))
			}
		}
	}
	b.memoS[key] = best
	return best
}
