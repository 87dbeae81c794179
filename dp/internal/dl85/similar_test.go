package dl85

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// similarLB is the largest lb − |D' \ D| over the branches D' remembered
// at the same remaining depth (the last simSlots of them) when that is
// above the floor asked for, and at most the floor otherwise.
func TestSimilarLB(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const words, depths = 3, 4
	s := &search[struct{}]{sim: make([]simRing, depths)}
	type mem struct {
		rows []uint64
		lb   float64
	}
	kept := make([][]mem, depths)
	count := func(w []uint64) int {
		n := 0
		for _, x := range w {
			n += bits.OnesCount64(x)
		}
		return n
	}
	randRows := func() []uint64 {
		w := make([]uint64, words)
		for i := range w {
			// Dense or sparse words, for differences of every size.
			w[i] = rng.Uint64() | rng.Uint64()
			if rng.IntN(2) == 0 {
				w[i] &= rng.Uint64()
			}
		}
		return w
	}
	for step := range 2000 {
		rd := rng.IntN(depths)
		if rng.IntN(3) > 0 {
			rows := randRows()
			lb := float64(rng.IntN(150))
			s.rememberSimilar(rd, rows, count(rows), lb)
			if lb >= 1 {
				kept[rd] = append(kept[rd], mem{append([]uint64(nil), rows...), lb})
			}
			continue
		}
		rows := randRows()
		if k := kept[rd]; len(k) > 0 && rng.IntN(2) == 0 {
			// A subset of a remembered branch: it lacks exactly the rows
			// the size difference counts.
			m := k[len(k)-1-rng.IntN(min(len(k), simSlots))]
			for w := range rows {
				rows[w] = m.rows[w]
				for range rng.IntN(3) {
					rows[w] &^= 1 << rng.IntN(64)
				}
			}
		}
		want := 0
		k := kept[rd]
		for _, m := range k[max(0, len(k)-simSlots):] {
			gone := 0
			for w, x := range m.rows {
				gone += bits.OnesCount64(x &^ rows[w])
			}
			want = max(want, int(m.lb)-gone)
		}
		floor := float64(rng.IntN(60))
		got := s.similarLB(rd, rows, count(rows), floor)
		if float64(want) > floor && got != float64(want) || float64(want) <= floor && got > floor {
			t.Fatalf("step %d depth %d floor %v: similarity bound %v, want %v", step, rd, floor, got, want)
		}
	}
	if got := s.similarLB(depths, make([]uint64, words), 0, 0); got != 0 {
		t.Fatalf("a depth with no ring: bound %v, want 0", got)
	}
}
