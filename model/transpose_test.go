package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/model"
)

func TestRowMajorRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {63, 65}, {64, 64}, {130, 7}, {200, 129}} {
		n, m := sz[0], sz[1]
		cols := make([][]uint64, m)
		for c := range cols {
			b := model.NewBitset(n)
			for r := range n {
				if rng.IntN(3) == 0 {
					b.Set(r)
				}
			}
			cols[c] = b
		}
		rows, stride := model.RowMajor(cols, n)
		for r := range n {
			for c := range m {
				got := rows[r*stride+c/64]>>(uint(c)%64)&1 != 0
				if got != model.Bitset(cols[c]).Has(r) {
					t.Fatalf("%dx%d: bit (%d, %d) wrong", n, m, r, c)
				}
			}
		}
		back := model.ColumnMajor(rows, stride, n, m)
		for c := range m {
			if !model.Bitset(back[c]).Equal(cols[c]) {
				t.Fatalf("%dx%d: column %d not restored", n, m, c)
			}
		}
	}
}
