package model_test

import (
	"context"
	"errors"
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

// TestRowMajorContext: a done context stops the transpose with its cause.
func TestRowMajorContext(t *testing.T) {
	cols := [][]uint64{model.NewBitset(100), model.NewBitset(100)}
	why := errors.New("time limit")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(why)
	if rows, _, err := model.RowMajorContext(ctx, cols, 100); !errors.Is(err, why) || rows != nil {
		t.Fatalf("stopped: %d words, %v; want no rows and the cause", len(rows), err)
	}
	if rows, stride, err := model.RowMajorContext(context.Background(), cols, 100); err != nil || len(rows) != 100 || stride != 1 {
		t.Fatalf("running: %d words of stride %d, %v", len(rows), stride, err)
	}
}
