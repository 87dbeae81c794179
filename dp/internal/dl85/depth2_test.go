package dl85

import (
	"math/rand/v2"
	"testing"
)

func TestTranspose64(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		var a, b [64]uint64
		for i := range a {
			a[i] = rng.Uint64()
		}
		b = a
		transpose64(&b)
		for r := range 64 {
			for c := range 64 {
				if (a[r]>>uint(c))&1 != (b[c]>>uint(r))&1 {
					t.Fatalf("bit (%d,%d) not transposed", r, c)
				}
			}
		}
	}
}
