package dptest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Weights says which row weights Random draws.
type Weights int

const (
	// NoWeights: unweighted rows.
	NoWeights Weights = iota
	// WholeWeights: weights 1 to 3.
	WholeWeights
	// AnyWeights: real weights in [0.1, 3.1).
	AnyWeights
)

// Random draws a small dataset from rng: m numeric columns of two to four
// distinct values (so that the binary view has nested thresholds and
// often duplicate or constant tests), a categorical column of three
// levels when cat is set, nc classes and the weights asked for.
func Random(rng *rand.Rand, n, m, nc int, cat bool, w Weights) *model.Dataset {
	d := &model.Dataset{Name: "random"}
	for c := range nc {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for f := range m {
		vals := make([]float64, n)
		levels := 2 + rng.IntN(3)
		for r := range vals {
			vals[r] = float64(rng.IntN(levels)) * 1.5
		}
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprint("x", f), Values: vals})
	}
	if cat {
		vals := make([]float64, n)
		for r := range vals {
			vals[r] = float64(rng.IntN(3))
		}
		d.Features = append(d.Features, model.Feature{Name: "colour", Kind: model.Categorical,
			Levels: []string{"red", "green", "blue"}, Values: vals})
	}
	for range n {
		d.Labels = append(d.Labels, rng.IntN(nc))
	}
	switch w {
	case WholeWeights:
		for range n {
			d.Weights = append(d.Weights, float64(1+rng.IntN(3)))
		}
	case AnyWeights:
		for range n {
			d.Weights = append(d.Weights, 0.1+3*rng.Float64())
		}
	}
	return d
}

// Optimum is the least weighted error of a tree for p on d (depth limit
// and minimum leaf support), by Brute over d's binary view.
func Optimum(d *model.Dataset, p model.Problem) float64 {
	v := model.Binarize(d)
	rows := make([]int, d.Rows())
	for r := range rows {
		rows[r] = r
	}
	return Brute(v, rows, p.MaxDepth, p.MinSupport)
}

// Solve runs b on d for p with the raw options as the registry does
// (backend.NewJob validates them first), collecting the incumbents, and
// checks the result on the data with Check. It fails tb on any error.
func Solve(tb testing.TB, ctx context.Context, b backend.Backend, d *model.Dataset, p model.Problem, raw map[string]string) (*model.Result, []float64) {
	tb.Helper()
	job, err := backend.NewJob(b.Info(), d, p, raw)
	if err != nil {
		tb.Fatalf("%s %v: %v", b.Info().Name, raw, err)
	}
	var incs []float64
	job.Report = func(obj float64, g *model.Graph) {
		if w := job.Problem.Evaluate(d, g); math.Abs(w-obj) > 1e-9*math.Max(1, obj) {
			tb.Errorf("%s %v: incumbent claims %v, its model scores %v", b.Info().Name, raw, obj, w)
		}
		incs = append(incs, obj)
	}
	res, err := b.Solve(ctx, job)
	if err != nil {
		tb.Fatalf("%s %v: %v", b.Info().Name, raw, err)
	}
	Check(tb, d, job.Problem, res, incs)
	return res, incs
}

// Check verifies a result on the data as the registry does: a valid tree
// over d's columns within the depth limit, every leaf holding at least the
// minimum support, the objective and error count those of the model, a
// lower bound at most the objective (equal when optimal), and incumbents
// that strictly improve and end at the objective.
func Check(tb testing.TB, d *model.Dataset, p model.Problem, res *model.Result, incs []float64) {
	tb.Helper()
	g := res.Model
	if g == nil {
		tb.Fatalf("no model (status %s)", res.Status)
	}
	if err := g.Validate(); err != nil {
		tb.Fatalf("invalid model: %v", err)
	}
	if err := g.CheckData(d); err != nil {
		tb.Fatal(err)
	}
	if g.Depth() > p.MaxDepth {
		tb.Fatalf("depth %d above the limit %d", g.Depth(), p.MaxDepth)
	}
	support := map[int]int{}
	for r := range d.Rows() {
		support[g.Leaf(d, r)]++
	}
	for leaf, n := range support {
		if n < p.MinSupport {
			tb.Fatalf("leaf %d holds %d rows, below the minimum support %d", leaf, n, p.MinSupport)
		}
	}
	obj := p.Evaluate(d, g)
	if math.Abs(obj-res.Objective) > 1e-9*math.Max(1, obj) || g.Errors(d) != res.Errors {
		tb.Fatalf("claims objective %v and %d errors, the model scores %v with %d errors", res.Objective, res.Errors, obj, g.Errors(d))
	}
	if res.LowerBound > res.Objective+1e-9 || res.Optimal && res.LowerBound < res.Objective-1e-9 {
		tb.Fatalf("lower bound %v, objective %v, optimal %v", res.LowerBound, res.Objective, res.Optimal)
	}
	for i := 1; i < len(incs); i++ {
		if incs[i] >= incs[i-1] {
			tb.Fatalf("incumbent %d does not improve: %v", i, incs)
		}
	}
	if len(incs) > 0 && math.Abs(incs[len(incs)-1]-res.Objective) > 1e-9*math.Max(1, obj) {
		tb.Fatalf("incumbents %v do not end at the objective %v", incs, res.Objective)
	}
}

// Refused reports why b does not refuse raw options or problem p on d
// with backend.ErrInvalid, before solving (backend.NewJob) or when Solve
// starts; "" when it does.
func Refused(b backend.Backend, d *model.Dataset, p model.Problem, raw map[string]string) string {
	job, err := backend.NewJob(b.Info(), d, p, raw)
	if err == nil {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // a refusal comes before any work
		_, err = b.Solve(ctx, job)
	}
	switch {
	case err == nil:
		return "accepted"
	case !errors.Is(err, backend.ErrInvalid):
		return fmt.Sprintf("error %q does not match backend.ErrInvalid", err)
	}
	return ""
}

// Exact checks that the exact backend b finds the brute-force optimum,
// proven, on 24 small datasets drawn from seed (with a categorical column
// on every other one, weights cycling through ws) at depths 0 to 3,
// under each set of options; with minSupport, minimum supports 1 to 3
// cycle too.
func Exact(t *testing.T, b backend.Backend, seed uint64, ws []Weights, minSupport bool, opts []map[string]string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range 24 {
		d := Random(rng, 12+rng.IntN(30), 1+rng.IntN(4), 2+rng.IntN(2), i%2 == 0, ws[i%len(ws)])
		for depth := range 4 {
			p := model.Problem{Objective: model.MinError, MaxDepth: depth}
			if minSupport {
				p.MinSupport = 1 + (i/3)%3
			}
			want := Optimum(d, p)
			for _, raw := range opts {
				res, _ := Solve(t, context.Background(), b, d, p, raw)
				if !res.Optimal || math.Abs(res.Objective-want) > 1e-9 {
					t.Fatalf("%s %v, data %d (weights %v) depth %d min support %d: objective %v optimal %v, brute force %v",
						b.Info().Name, raw, i, d.Weights != nil, depth, p.MinSupport, res.Objective, res.Optimal, want)
				}
			}
		}
	}
}

// Gapped checks the anytime bound and the gap of backend b on 24 small
// datasets drawn from seed (weights cycling through ws) at depths 2 to
// 4, under each set of options (a gap or abs-gap among them): every
// bound it reports while it searches is at most the brute-force optimum
// and higher than the one before; the result's bound is at most the
// optimum and its objective at least the optimum and within the gap of
// its bound (the larger of abs-gap and gap × objective); status gap
// unless optimal. At least one run must end with status gap.
func Gapped(t *testing.T, b backend.Backend, seed uint64, ws []Weights, opts []map[string]string) {
	t.Helper()
	GappedThreads(t, b, seed, ws, opts, 0)
}

// GappedThreads is Gapped with the jobs' Threads set to threads (0: the
// CPUs the process may use).
func GappedThreads(t *testing.T, b backend.Backend, seed uint64, ws []Weights, opts []map[string]string, threads int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	gaps := 0
	for i := range 24 {
		d := Random(rng, 30+rng.IntN(40), 2+rng.IntN(3), 2+rng.IntN(2), i%2 == 0, ws[i%len(ws)])
		for depth := 2; depth <= 4; depth++ {
			p := model.Problem{Objective: model.MinError, MaxDepth: depth}
			want := Optimum(d, p)
			for _, raw := range opts {
				job, err := backend.NewJob(b.Info(), d, p, raw)
				if err != nil {
					t.Fatalf("%s %v: %v", b.Info().Name, raw, err)
				}
				job.Threads = threads
				var bounds []float64
				job.Bound = func(lb float64) { bounds = append(bounds, lb) }
				res, err := b.Solve(context.Background(), job)
				if err != nil {
					t.Fatalf("%s %v: %v", b.Info().Name, raw, err)
				}
				name := fmt.Sprintf("%s %v threads %d, data %d depth %d", b.Info().Name, raw, threads, i, depth)
				Check(t, d, job.Problem, res, nil)
				for k, lb := range bounds {
					if lb > want+1e-9 || (k > 0 && lb <= bounds[k-1]) {
						t.Fatalf("%s: bounds reported %v, brute force %v", name, bounds, want)
					}
				}
				allow := allowedGap(job, res.Objective)
				if res.LowerBound > want+1e-9 || res.Objective < want-1e-9 || res.Objective-res.LowerBound > allow+1e-9 {
					t.Fatalf("%s: objective %v bound %v (allowed gap %v), brute force %v", name, res.Objective, res.LowerBound, allow, want)
				}
				switch {
				case res.Optimal && res.Status == "" && res.LowerBound >= res.Objective:
				case !res.Optimal && res.Status == model.StatusGap:
					gaps++
				default:
					t.Fatalf("%s: status %q optimal %v, objective %v bound %v", name, res.Status, res.Optimal, res.Objective, res.LowerBound)
				}
			}
		}
	}
	if gaps == 0 {
		t.Errorf("%s: no run stopped within its gap before proving optimality", b.Info().Name)
	}
}
