package dl85

import "math/bits"

// The similarity lower bound (Demirović et al., MurTree, JMLR 2022):
// removing a row from a branch lowers the optimal error of a given depth
// by at most that row's weight, and adding one never lowers it. So if a
// branch D' of the same remaining depth has a proven lower bound lb', any
// branch D has optimum at least lb' − |D' \ D| (unweighted rows). The
// tests of one node split its rows in similar ways (thresholds of one
// attribute, correlated attributes), so the branch searched just before
// is often a close neighbour: the bound then settles a branch, or a
// depth-2 step, without searching it.
//
// The bound holds for the error of trees of a given depth over the
// same tests with a minimum support of one row: with a larger minimum a
// tree of D may have leaves too small on D', and a pruning rule
// (CA-DL8.5) bounds only the trees it lets through. It is used only by
// plain DL8.5 on unweighted rows.

// simSlots is how many recent branches each remaining depth keeps: more
// slots find closer neighbours at the cost of more comparisons per
// branch. 64 saved more than 4 on the cp4im cells (docs/benchmarks.md,
// "The similarity bound").
const simSlots = 64

// simRing holds the last branches settled at one remaining depth.
type simRing struct {
	rows [simSlots][]uint64
	lb   [simSlots]float64
	size [simSlots]int // rows of each branch
	n    int           // slots filled
	next int           // slot written next
}

// similarOn tells whether the search may use the similarity bound.
func (s *search[T]) similarOn() bool {
	if s.cfg.NoSimilarity || s.minsup > 1 || s.d.w != nil {
		return false
	}
	_, plain := any(s.rule).(NoRule)
	return plain
}

// similarLB is the best similarity bound of the branch rows (n rows) at
// remaining depth rd from the branches remembered there, when it is above
// floor (else floor, or less). A branch of n' rows lacks at least n' − n
// of them, so most remembered branches are passed over without a scan.
func (s *search[T]) similarLB(rd int, rows []uint64, n int, floor float64) float64 {
	if rd >= len(s.sim) {
		return 0
	}
	ring := &s.sim[rd]
	best := max(0, int(floor))
	for i := range ring.n {
		lb := int(ring.lb[i])
		if lb-max(0, ring.size[i]-n) <= best {
			continue
		}
		other := ring.rows[i][:len(rows)]
		gone := 0
		for w, x := range other {
			gone += bits.OnesCount64(x &^ rows[w])
			if lb-gone <= best {
				break
			}
		}
		best = max(best, lb-gone)
	}
	return float64(best)
}

// rememberSimilar records a proven lower bound lb of the branch rows (n
// rows) at remaining depth rd, replacing the oldest remembered branch.
func (s *search[T]) rememberSimilar(rd int, rows []uint64, n int, lb float64) {
	if lb < 1 || rd >= len(s.sim) {
		return
	}
	ring := &s.sim[rd]
	i := ring.next
	if ring.rows[i] == nil {
		ring.rows[i] = make([]uint64, len(rows))
	}
	copy(ring.rows[i], rows)
	ring.lb[i] = lb
	ring.size[i] = n
	ring.next = (i + 1) % simSlots
	ring.n = max(ring.n, i+1)
}
