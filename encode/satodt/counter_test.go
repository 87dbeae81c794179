package satodt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// TestCountersBoundFixedTrees fixes random complete trees (tests and
// classes by assumptions) on random weighted, multiclass data and checks
// both error counters against the tree's error computed on the data:
// a bound of the error is satisfiable, one below it is refuted. A
// counter that counted too little would let a worse tree through; one
// that counted too much would refute an optimum.
func TestCountersBoundFixedTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 24 {
		k := 2 + i%3
		depth := 1 + i%3
		d := noise(rng, fmt.Sprint("random", i), 12+rng.IntN(20), 4, k, true)
		p, err := satjob.Prepare(context.Background(), model.Binarize(d))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tests) < depth {
			continue
		}
		for _, counter := range []Counter{CounterLeaves, CounterRows} {
			f, err := Encode(context.Background(), p, depth, Options{sidesOnly: counter == CounterLeaves})
			if err != nil {
				t.Fatal(err)
			}
			all := make([]int, len(p.Groups))
			for g := range all {
				all[g] = g
			}
			// Random trees need not predict the heavier class: the
			// majority clauses are left out here.
			var tot *sat.Totalizer
			if counter == CounterLeaves {
				tot, err = newLeafCount(f, p, p.Total+1, false).add(context.Background(), all)
			} else {
				tot, err = rowCount(f, p.Total+1).add(context.Background(), all)
			}
			if err != nil {
				t.Fatal(err)
			}
			s := sat.NewCDCL()
			sat.AddCNF(s, f.CNF, 0)
			for range 3 {
				// A random tree without repeated tests on a path.
				a := Assignment{Test: make([]int, 1<<depth-1), Class: make([]int, 1<<depth)}
				for n := range a.Test {
					for {
						a.Test[n] = rng.IntN(len(p.Tests))
						ok := true
						for m := n; m > 0; {
							m = (m - 1) / 2
							ok = ok && a.Test[m] != a.Test[n]
						}
						if ok {
							break
						}
					}
				}
				for l := range a.Class {
					a.Class[l] = rng.IntN(k)
				}
				var fixed []sat.Lit
				for n, tt := range a.Test {
					for u := range p.Tests {
						if u == tt {
							fixed = append(fixed, f.F.Lit(n, u))
						} else {
							fixed = append(fixed, f.F.Lit(n, u).Not())
						}
					}
				}
				for l, c := range a.Class {
					for u := range k {
						if k == 2 && u == 0 {
							continue
						}
						fixed = append(fixed, map[bool]sat.Lit{true: f.Predicts(l, u), false: f.Predicts(l, u).Not()}[u == c])
					}
				}
				g, err := f.Decode(p, func(l sat.Lit) bool { return f.Values(p, a)[l.Var()] == l.Sign() })
				if err != nil {
					t.Fatal(err)
				}
				e := int(math.Round(g.WeightedErrors(d)))
				for _, bound := range []int{e, e - 1} {
					if bound < 0 {
						continue
					}
					as := fixed
					if o := tot.AtLeast(bound + 1); o != 0 {
						as = append(append([]sat.Lit(nil), fixed...), o.Not())
					}
					st, err := s.Solve(context.Background(), as...)
					if err != nil {
						t.Fatal(err)
					}
					if want := bound >= e; (st == sat.Satisfiable) != want {
						t.Fatalf("%s depth %d, %s counter, tree %v with %d errors: at most %d is %v", d.Name, depth, counter, a, e, bound, st)
					}
				}
			}
		}
	}
}

// TestSizeEstimate checks Prepared.Estimate against the formulas the search
// builds: never below what is built, and not far above it.
func TestSizeEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for i := range 18 {
		k := 2 + i%3
		depth := 1 + i%3
		n := 20 + rng.IntN(60)
		d := noise(rng, fmt.Sprint("random", i), n, 6, k, false)
		p, err := satjob.Prepare(context.Background(), model.Binarize(d))
		if err != nil {
			t.Fatal(err)
		}
		limit := 1 + rng.IntN(n)
		for _, counter := range []Counter{CounterLeaves, CounterRows} {
			f, err := Encode(context.Background(), p, depth, Options{sidesOnly: counter == CounterLeaves})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := (Settings{Counter: counter}).counter(context.Background(), f, p, limit); err != nil {
				t.Fatal(err)
			}
			est := Estimate(p, depth, counter, limit)
			built := []int64{int64(f.CNF.NumVars), int64(f.CNF.NumClauses()), int64(f.CNF.NumLits())}
			for j, e := range []int64{est.Variables, est.Constraints, est.NonZeros} {
				if e < built[j] || e > 2*built[j]+2000 {
					t.Errorf("%s depth %d, %s counter, limit %d: estimated %v, built %d variables, %d clauses, %d literals", d.Name, depth, counter, limit, est, built[0], built[1], built[2])
					break
				}
			}
		}
	}
}

// noise is n rows of f features of two or three values, k classes drawn
// at random, and whole weights in 1..3 when weighted.
func noise(rng *rand.Rand, name string, n, f, k int, weighted bool) *model.Dataset {
	d := &model.Dataset{Name: name}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		for r := range n {
			ft.Values[r] = float64(rng.IntN(2 + j%2))
		}
		d.Features = append(d.Features, ft)
	}
	d.Labels = make([]int, n)
	for r := range n {
		d.Labels[r] = rng.IntN(k)
	}
	if weighted {
		d.Weights = make([]float64, n)
		for r := range n {
			d.Weights[r] = float64(1 + rng.IntN(3))
		}
	}
	return d
}
