package satodd_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/encode/satodd"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// TestConformance runs the backend conformance suite on generated data,
// with bounds refuted root test by root test and on the whole diagram.
func TestConformance(t *testing.T) {
	for _, perRoot := range []string{"true", "false"} {
		t.Run("per-root="+perRoot, func(t *testing.T) {
			backendtest.Run(t, satodd.Backend{}, backendtest.Config{Options: map[string]string{"per-root": perRoot}})
		})
	}
}

// binaryData is n rows of f 0/1 features and k classes with a signal on
// the first two features.
func binaryData(rng *rand.Rand, n, f, k int) *model.Dataset {
	d := &model.Dataset{Name: fmt.Sprintf("bin-%dx%d-k%d", n, f, k)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		for r := range n {
			ft.Values[r] = float64(rng.IntN(2))
		}
		d.Features = append(d.Features, ft)
	}
	d.Labels = make([]int, n)
	for r := range n {
		d.Labels[r] = (int(d.Features[0].Values[r]) ^ int(d.Features[1].Values[r])) % k
		if rng.IntN(5) == 0 {
			d.Labels[r] = rng.IntN(k)
		}
	}
	for c := range k {
		d.Labels[c%n] = c
	}
	return d
}

func run(t *testing.T, b backend.Backend, d *model.Dataset, p model.Problem, opts ...map[string]string) *model.Result {
	t.Helper()
	var o map[string]string
	if len(opts) > 0 {
		o = opts[0]
	}
	job, err := backend.NewJob(b.Info(), d, p, o)
	if err != nil {
		t.Fatalf("%s: %v", b.Info().Name, err)
	}
	job.Threads = 1
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := b.Solve(ctx, job)
	if err != nil {
		t.Fatalf("%s on %s: %v", b.Info().Name, d.Name, err)
	}
	if res.Model != nil {
		if err := res.Model.Validate(); err != nil {
			t.Fatalf("%s on %s: %v", b.Info().Name, d.Name, err)
		}
		if o := p.Evaluate(d, res.Model); math.Abs(o-res.Objective) > 1e-9 {
			t.Fatalf("%s on %s: claims %v, its model's objective is %v", b.Info().Name, d.Name, res.Objective, o)
		}
	}
	return res
}

// TestAgreesWithMILP: on 0/1 data, sat-odd's optimum equals milp-odd's
// on every problem both prove (small skeletons, two and three classes,
// several α). Needs HiGHS (-tags highs).
func TestAgreesWithMILP(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS is not built in (build with -tags highs)")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	skeletons := [][]int{{1, 2}, {1, 2, 2}, {1, 2, 3}}
	alphas := []float64{0, 0.01, 0.1, 0.5}
	both := 0
	for i := range 10 {
		d := binaryData(rng, 14+rng.IntN(10), 3+rng.IntN(2), 2+i%2)
		p := model.Problem{Objective: model.DiagramError, Skeleton: skeletons[i%len(skeletons)], Alpha: alphas[i%len(alphas)]}
		s := run(t, satodd.Backend{}, d, p)
		m := run(t, odd.DiagramBackend{}, d, p)
		if !s.Optimal || !m.Optimal {
			t.Logf("%s %v α=%v: sat-odd optimal %v, milp-odd optimal %v", d.Name, p.Skeleton, p.Alpha, s.Optimal, m.Optimal)
			continue
		}
		both++
		if math.Abs(s.Objective-m.Objective) > 1e-9 {
			t.Errorf("%s %v α=%v: sat-odd %v (%d errors, %d nodes), milp-odd %v (%d errors, %d nodes)", d.Name, p.Skeleton, p.Alpha,
				s.Objective, s.Errors, s.Model.InternalNodes(), m.Objective, m.Errors, m.Model.InternalNodes())
		}
	}
	if both < 6 {
		t.Errorf("only %d of 10 problems proven by both", both)
	}
}
