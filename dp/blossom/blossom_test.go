package blossom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// blossomShared returns the path of the shared folder (../shared beside
// the repository root), or skips the test when it is absent.
func blossomShared(t testing.TB) string {
	t.Helper()
	return shared.Dir(t, "reference/cp4im-optima.tsv")
}

// blossomRefCell is one row of cp4im-optima.tsv.
type blossomRefCell struct {
	name    string
	depth   int
	optimum int
	dl85    float64 // -1 when not numeric
}

func blossomReference(t testing.TB, dir string) []blossomRefCell {
	t.Helper()
	var out []blossomRefCell
	for _, r := range shared.Table(t, "reference/cp4im-optima.tsv") {
		depth, ok1 := r.Int("depth")
		opt, ok2 := r.Int("optimum")
		if !ok1 || !ok2 {
			continue // unknown optimum
		}
		dl, ok := r.Float("dl85_cpu_s")
		if !ok {
			dl = -1
		}
		out = append(out, blossomRefCell{name: r["dataset"], depth: depth, optimum: opt, dl85: dl})
	}
	return out
}

func blossomLoad(t testing.TB, shared, name string) *model.BinaryView {
	t.Helper()
	d, err := model.ReadFile(filepath.Join(shared, "data", "cp4im", name+".txt"), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return model.Binarize(d)
}

// blossomCheck runs Blossom and checks its claims against the data.
func blossomCheck(t testing.TB, ctx context.Context, v *model.BinaryView, s Config) *Result {
	t.Helper()
	r, err := Solve(ctx, v, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Model.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := r.Model.Errors(v.Data); got != r.Errors {
		t.Fatalf("model makes %d errors, claims %d", got, r.Errors)
	}
	if dep := r.Model.Depth(); dep > s.MaxDepth {
		t.Fatalf("model depth %d > %d", dep, s.MaxDepth)
	}
	if r.LowerBound > r.Objective {
		t.Fatalf("lower bound %v above objective %v", r.LowerBound, r.Objective)
	}
	return r
}

// blossomLong reports whether the long suites were asked for.
func blossomLong() bool { return shared.Long() }

// blossomDefaultCell tells the cells of the default run: depth up to 3,
// and the depth-4 cells DL8.5 solves in under 20 CPU seconds (Blossom
// needs under 3 s on each). The others (vehicle, pendigits and ionosphere
// at depth 4: about 8 s, 14 s and minutes) run with ODTKIT_LONG=1.
func blossomDefaultCell(c blossomRefCell) bool {
	return c.depth <= 3 || (c.depth == 4 && c.dl85 >= 0 && c.dl85 < 20)
}

func TestBlossomReferenceOptima(t *testing.T) {
	shared := blossomShared(t)
	long := blossomLong() && !testing.Short()
	views := map[string]*model.BinaryView{}
	for _, c := range blossomReference(t, shared) {
		if c.depth > 5 || (c.depth == 5 && !long) || (c.depth <= 4 && !blossomDefaultCell(c) && !long) {
			continue
		}
		t.Run(c.name+"/d"+strconv.Itoa(c.depth), func(t *testing.T) {
			v := views[c.name]
			if v == nil {
				v = blossomLoad(t, shared, c.name)
				views[c.name] = v
			}
			ctx := context.Background()
			if c.depth == 5 {
				// Depth 5 (long run only): a minute per cell; an unfinished
				// search must still bracket the reference.
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Minute)
				defer cancel()
			}
			r := blossomCheck(t, ctx, v, Config{MaxDepth: c.depth})
			if !r.Optimal {
				if c.depth < 5 || r.Objective < float64(c.optimum) || r.LowerBound > float64(c.optimum) {
					t.Fatalf("%s depth %d: %v errors, bound %v, optimal=%v; reference %d", c.name, c.depth, r.Objective, r.LowerBound, r.Optimal, c.optimum)
				}
				t.Logf("%s depth 5 unfinished in a minute: %v errors, reference %d", c.name, r.Objective, c.optimum)
				return
			}
			if r.Errors != c.optimum || r.Objective != float64(c.optimum) {
				t.Fatalf("%s depth %d: %d errors (optimal=%v), reference %d", c.name, c.depth, r.Errors, r.Optimal, c.optimum)
			}
		})
	}
}

// blossomVariants switches off one part at a time, then all of them.
var blossomVariants = map[string]Config{
	"no-merge-rows":         {NoMergeRows: true},
	"no-drop-redundant":     {NoDropRedundant: true},
	"no-drop-uninformative": {NoDropUninformative: true},
	"no-lower-bound":        {NoLowerBound: true},
	"no-depth2":             {NoDepth2: true},
	"order-error":           {Order: OrderError},
	"order-index":           {Order: OrderIndex},
	"all-off": {NoMergeRows: true, NoDropRedundant: true, NoDropUninformative: true,
		NoLowerBound: true, Order: OrderIndex},
}

// Each preprocessing step (and each search part) keeps the optimum: every
// variant finds the reference optimum on files with duplicate rows,
// inconsistent rows and redundant tests.
func TestBlossomVariantsKeepOptimum(t *testing.T) {
	shared := blossomShared(t)
	ref := map[string]int{}
	for _, c := range blossomReference(t, shared) {
		ref[c.name+"/"+strconv.Itoa(c.depth)] = c.optimum
	}
	for _, name := range []string{"anneal", "primary-tumor", "soybean", "yeast", "zoo-1", "hepatitis"} {
		v := blossomLoad(t, shared, name)
		for depth := 1; depth <= 3; depth++ {
			want, ok := ref[name+"/"+strconv.Itoa(depth)]
			if !ok {
				t.Fatalf("no reference for %s depth %d", name, depth)
			}
			for vn, s := range blossomVariants {
				if depth == 3 && s.NoDepth2 && s.NoLowerBound {
					continue
				}
				s.MaxDepth = depth
				r := blossomCheck(t, context.Background(), v, s)
				if !r.Optimal || r.Errors != want {
					t.Errorf("%s depth %d %s: %d errors (optimal=%v), reference %d", name, depth, vn, r.Errors, r.Optimal, want)
				}
			}
		}
	}
}

// blossomRandom draws a dataset with categorical and numeric columns,
// duplicated rows with conflicting labels, and C classes.
func blossomRandom(rng *rand.Rand, n, cat, num, C int, weighted bool) *model.Dataset {
	d := &model.Dataset{Name: "random"}
	for c := range C {
		d.Classes = append(d.Classes, "c"+strconv.Itoa(c))
	}
	for j := range cat {
		levels := []string{"a", "b", "c"}[:2+rng.IntN(2)]
		d.Features = append(d.Features, model.Feature{Name: "k" + strconv.Itoa(j), Kind: model.Categorical, Levels: levels})
	}
	for j := range num {
		d.Features = append(d.Features, model.Feature{Name: "x" + strconv.Itoa(j), Kind: model.Numeric})
	}
	for r := range n {
		if r > 0 && rng.IntN(4) == 0 {
			// a copy of an earlier row, maybe with another label
			src := rng.IntN(r)
			for j := range d.Features {
				d.Features[j].Values = append(d.Features[j].Values, d.Features[j].Values[src])
			}
		} else {
			for j := range d.Features {
				f := &d.Features[j]
				if f.Kind == model.Categorical {
					f.Values = append(f.Values, float64(rng.IntN(len(f.Levels))))
				} else {
					f.Values = append(f.Values, float64(rng.IntN(4)))
				}
			}
		}
		d.Labels = append(d.Labels, rng.IntN(C))
		if weighted {
			d.Weights = append(d.Weights, float64(1+rng.IntN(3)))
		}
	}
	return d
}

func TestBlossomBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 30 {
		C := 2 + trial%3
		d := blossomRandom(rng, 8+rng.IntN(40), 1+rng.IntN(2), 1+rng.IntN(2), C, trial%2 == 1)
		v := model.Binarize(d)
		rows := make([]int, d.Rows())
		for i := range rows {
			rows[i] = i
		}
		for depth := 0; depth <= 3; depth++ {
			want := dptest.Brute(v, rows, depth, 1)
			for vn, s := range blossomVariants {
				s.MaxDepth = depth
				r := blossomCheck(t, context.Background(), v, s)
				if !r.Optimal || r.Objective != want {
					t.Fatalf("trial %d (C=%d) depth %d %s: objective %v (optimal=%v), brute force %v", trial, C, depth, vn, r.Objective, r.Optimal, want)
				}
			}
		}
	}
}

// A time-limited deep run returns a valid tree, not proven optimal, with a
// lower bound below its error, and at least as good as the greedy tree.
func TestBlossomTimeLimited(t *testing.T) {
	shared := blossomShared(t)
	v := blossomLoad(t, shared, "german-credit")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var incs []float64
	// Without the greedy seed, so that the comparison with CART below is
	// about Blossom's own trees.
	r, err := Solve(ctx, v, Config{MaxDepth: 8, NoCARTSeed: true}, func(obj float64, g *model.Graph) {
		if w := g.WeightedErrors(v.Data); w != obj {
			t.Errorf("incumbent claims %v, makes %v", obj, w)
		}
		if len(incs) > 0 && obj >= incs[len(incs)-1] {
			t.Errorf("incumbent %v does not improve on %v", obj, incs[len(incs)-1])
		}
		incs = append(incs, obj)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Optimal {
		t.Fatal("depth 8 on german-credit proved optimal in 0.5 s: the time limit was not exercised")
	}
	if got := r.Model.Errors(v.Data); got != r.Errors || float64(got) != r.Objective {
		t.Fatalf("model makes %d errors, claims %d / %v", got, r.Errors, r.Objective)
	}
	if r.Model.Depth() > 8 || r.LowerBound > r.Objective {
		t.Fatalf("depth %d, bound %v, objective %v", r.Model.Depth(), r.LowerBound, r.Objective)
	}
	if len(incs) < 2 || incs[len(incs)-1] != r.Objective {
		t.Fatalf("incumbents %v do not end at the result %v", incs, r.Objective)
	}
	_, cartErr := cart.Grow(context.Background(), v, 8, cart.Config{})
	if r.Objective > cartErr {
		t.Fatalf("blossom %v worse than the greedy tree %v", r.Objective, cartErr)
	}
}

func TestBlossomBadInput(t *testing.T) {
	d := &model.Dataset{Classes: []string{"a", "b"}, Labels: []int{0, 1}, Weights: []float64{0.5, 1},
		Features: []model.Feature{{Name: "x", Values: []float64{0, 1}}}}
	if _, err := Solve(context.Background(), model.Binarize(d), Config{MaxDepth: 1}, nil); err == nil {
		t.Fatal("fractional weights accepted")
	}
	d.Weights = nil
	if _, err := Solve(context.Background(), model.Binarize(d), Config{MaxDepth: -1}, nil); err == nil {
		t.Fatal("negative depth accepted")
	}
	if _, err := Solve(context.Background(), model.Binarize(d), Config{MaxDepth: 1, Order: "best"}, nil); err == nil {
		t.Fatal("unknown order accepted")
	}
	if _, err := Solve(context.Background(), nil, Config{}, nil); err == nil {
		t.Fatal("nil view accepted")
	}
	for _, c := range []Config{{MaxDepth: 1, AbsGap: -1}, {MaxDepth: 1, RelGap: 1.5}, {MaxDepth: 1, RelGap: -0.1}, {MaxDepth: 1, AbsGap: math.NaN()}} {
		if _, err := Solve(context.Background(), model.Binarize(d), c, nil); err == nil {
			t.Fatalf("gaps %v and %v accepted", c.AbsGap, c.RelGap)
		}
	}
}

// The greedy seed is reported first and never beaten by a worse result.
func TestBlossomCARTSeed(t *testing.T) {
	shared := blossomShared(t)
	v := blossomLoad(t, shared, "soybean")
	_, cartErr := cart.Grow(context.Background(), v, 7, cart.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var first = -1.0
	r, err := Solve(ctx, v, Config{MaxDepth: 7}, func(obj float64, g *model.Graph) {
		if first < 0 {
			first = obj
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if first != cartErr || r.Objective > cartErr {
		t.Fatalf("first incumbent %v, result %v, greedy %v", first, r.Objective, cartErr)
	}
}

// At 2 and 4 workers Blossom finds the reference optimum on the depth-3
// cells and the quick depth-4 cells, with the very tree of the
// sequential search, and two runs at 2 workers give identical models.
func TestBlossomThreadsReference(t *testing.T) {
	shared := blossomShared(t)
	views := map[string]*model.BinaryView{}
	cells := 0
	for _, c := range blossomReference(t, shared) {
		if c.depth != 3 && (c.depth != 4 || c.dl85 < 0 || c.dl85 > 0.5) {
			continue
		}
		cells++
		t.Run(c.name+"/d"+strconv.Itoa(c.depth), func(t *testing.T) {
			v := views[c.name]
			if v == nil {
				v = blossomLoad(t, shared, c.name)
				views[c.name] = v
			}
			var want []byte
			for _, workers := range []int{1, 2, 2, 4} {
				r := blossomCheck(t, context.Background(), v, Config{MaxDepth: c.depth, Workers: workers})
				if !r.Optimal || r.Objective != float64(c.optimum) {
					t.Fatalf("%d workers: %v errors (optimal=%v), reference %d", workers, r.Objective, r.Optimal, c.optimum)
				}
				got, err := json.Marshal(r.Model)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Fatalf("%d workers: tree\n%s\nsequential tree\n%s", workers, got, want)
				}
			}
		})
	}
	if cells == 0 {
		t.Fatal("no reference cell")
	}
}

// A search stopped anywhere reports bounds (through Config.OnBound)
// that rise, never pass the brute-force optimum, and end at the result's
// bound; the data repeats rows with other labels, so the first bound is
// the error of the rows merging cancels.
func TestBlossomReportedBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 23))
	positive := 0
	for i := range 8 {
		d := blossomRandom(rng, 60+rng.IntN(60), 2, 2, 2, i%2 == 1)
		v := model.Binarize(d)
		rows := make([]int, d.Rows())
		for r := range rows {
			rows[r] = r
		}
		for _, depth := range []int{2, 3} {
			want := dptest.Brute(v, rows, depth, 1)
			for after := 0; after < 1<<14; after = after*2 + 1 {
				var bounds []float64
				r, err := Solve(modeltest.StopAfter(after), v, Config{MaxDepth: depth, NoCARTSeed: true,
					OnBound: func(lb float64) { bounds = append(bounds, lb) }}, nil)
				if errors.Is(err, context.Canceled) {
					continue // stopped before the search began
				}
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("data %d depth %d after %d", i, depth, after)
				for k, b := range bounds {
					if b > want+1e-9 || b > r.LowerBound+1e-9 || (k > 0 && b <= bounds[k-1]) {
						t.Fatalf("%s: bounds %v, final %v, brute force %v", name, bounds, r.LowerBound, want)
					}
				}
				if len(bounds) > 0 && bounds[len(bounds)-1] > 0 {
					positive++
				}
				if r.Optimal {
					if len(bounds) == 0 || bounds[len(bounds)-1] != want {
						t.Fatalf("%s: optimal, bounds %v, brute force %v", name, bounds, want)
					}
					break
				}
			}
		}
	}
	if positive == 0 {
		t.Error("no run reported a positive bound")
	}
}
