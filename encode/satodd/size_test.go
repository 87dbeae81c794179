package satodd_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/encode/satodd"
	"github.com/odtkit/odtkit/model"
)

// Estimate counts exactly the variables, clauses and literals Encode
// builds, on two and three classes and skeletons of several shapes.
func TestEstimateExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range []int{2, 3} {
		d := binaryData(rng, 60, 6, k)
		p, err := satjob.Prepare(context.Background(), model.Binarize(d))
		if err != nil {
			t.Fatal(err)
		}
		for _, sk := range [][]int{{1}, {1, 2}, {1, 3, 2}, {1, 1, 1, 1}} {
			costs, err := satodd.ScaledCosts(d.Rows(), sk, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			f, err := satodd.Encode(context.Background(), p, sk, costs)
			if err != nil {
				t.Fatal(err)
			}
			got := satodd.Estimate(p, sk)
			if got.Variables != int64(f.CNF.NumVars) || got.Constraints != int64(f.CNF.NumClauses()) || got.NonZeros != int64(f.CNF.NumLits()) {
				t.Errorf("k=%d skeleton %v: estimate %d vars, %d clauses, %d literals; built %d, %d, %d",
					k, sk, got.Variables, got.Constraints, got.NonZeros, f.CNF.NumVars, f.CNF.NumClauses(), f.CNF.NumLits())
			}
		}
	}
}

// Skeletons far beyond any formula are estimated without overflow.
func TestEstimateWide(t *testing.T) {
	d := binaryData(rand.New(rand.NewPCG(1, 2)), 40, 5, 2)
	p, err := satjob.Prepare(context.Background(), model.Binarize(d))
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range [][]int{{1, 10_000}, {1, 1_000_000}, {1, 1 << 40, 1 << 40}} {
		s := satodd.Estimate(p, sk)
		if s.Bytes <= 1<<30 || s.Constraints <= 0 {
			t.Errorf("skeleton %v: estimate %v, %d bytes", sk, s, s.Bytes)
		}
	}
}
