package contree

import (
	"bufio"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// contreeShared locates ../shared beside the repository root (or skips).
func contreeShared(t testing.TB) string {
	t.Helper()
	return shared.Dir(t, "")
}

type contreeRef struct {
	dataset        string
	depth, optimum int
	float32        bool
	cpu            float64
}

// contreeNumericRefs reads numeric-optima.tsv.
func contreeNumericRefs(t testing.TB) []contreeRef {
	t.Helper()
	var out []contreeRef
	for _, r := range shared.Table(t, "reference/numeric-optima.tsv") {
		d, _ := r.Int("depth")
		o, _ := r.Int("optimum")
		cpu, _ := r.Float("cpu_s")
		out = append(out, contreeRef{dataset: r["dataset"], depth: d, optimum: o, float32: r["float32"] == "yes", cpu: cpu})
	}
	return out
}

func contreeLong() bool { return shared.Long() }

// contreeCheck verifies a result against its data: the tree re-evaluates
// to the claimed errors and respects the depth.
func contreeCheck(t *testing.T, d *model.Dataset, depth int, r *Result) {
	t.Helper()
	if err := r.Tree.Validate(); err != nil {
		t.Fatalf("invalid tree: %v", err)
	}
	if got := r.Tree.Errors(d); got != r.Errors {
		t.Fatalf("claimed %d errors, tree makes %d\n%s", r.Errors, got, r.Tree.Text())
	}
	if got := r.Tree.WeightedErrors(d); got != float64(r.Objective) {
		t.Fatalf("claimed weighted errors %d, tree makes %v\n%s", r.Objective, got, r.Tree.Text())
	}
	if r.Tree.Depth() > depth {
		t.Fatalf("tree depth %d > %d", r.Tree.Depth(), depth)
	}
	if r.LowerBound > r.Objective {
		t.Fatalf("lower bound %d above the objective %d", r.LowerBound, r.Objective)
	}
	contreeCheckMidpoints(t, d, r.Tree)
}

// contreeCheckMidpoints checks that every numeric threshold of g lies in
// the middle between the two neighbouring distinct raw values of the rows
// reaching its node (model.Midpoint of the largest value going low and
// the smallest going high), and that both sides get rows.
func contreeCheckMidpoints(t *testing.T, d *model.Dataset, g *model.Graph) {
	t.Helper()
	var walk func(id int, rows []int)
	walk = func(id int, rows []int) {
		nd := g.Nodes[id]
		if nd.Leaf {
			return
		}
		var lo, hi []int
		if nd.IsCategory {
			for _, r := range rows {
				if d.Features[nd.Feature].Levels[int(d.Features[nd.Feature].Values[r])] == nd.Category {
					hi = append(hi, r)
				} else {
					lo = append(lo, r)
				}
			}
		} else {
			a, b := math.Inf(-1), math.Inf(1)
			for _, r := range rows {
				x := d.Features[nd.Feature].Values[r]
				if x <= nd.Threshold {
					lo = append(lo, r)
					a = max(a, x)
				} else {
					hi = append(hi, r)
					b = min(b, x)
				}
			}
			if len(lo) == 0 || len(hi) == 0 {
				t.Fatalf("node %d (%s <= %v) sends all %d rows one way", id, g.Features[nd.Feature], nd.Threshold, len(rows))
			}
			if want := model.Midpoint(a, b); nd.Threshold != want {
				t.Fatalf("node %d: threshold %v on %s, the neighbouring values are %v and %v (midpoint %v)", id, nd.Threshold, g.Features[nd.Feature], a, b, want)
			}
		}
		walk(nd.Low, lo)
		walk(nd.High, hi)
	}
	rows := make([]int, d.Rows())
	for r := range rows {
		rows[r] = r
	}
	walk(g.Root, rows)
}

// Fast numeric references in the default run; all of depth 2 and 3 with ODTKIT_LONG=1.
func TestConTreeNumericReference(t *testing.T) {
	refs := contreeNumericRefs(t)
	dir := filepath.Join(contreeShared(t), "data", "numeric")
	cache := map[string]*model.Dataset{}
	for _, ref := range refs {
		if ref.depth > 3 {
			continue
		}
		if !contreeLong() && (ref.depth == 3 && ref.cpu > 1.5 || ref.dataset == "skin") {
			continue
		}
		t.Run(ref.dataset+"/d"+strconv.Itoa(ref.depth), func(t *testing.T) {
			d := cache[ref.dataset]
			if d == nil {
				var err error
				d, err = model.ReadFile(filepath.Join(dir, ref.dataset+".txt"), model.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				cache[ref.dataset] = d
			}
			start := time.Now()
			var bounds []float64
			r, err := Solve(context.Background(), d, Config{MaxDepth: ref.depth, OnBound: func(lb float64) { bounds = append(bounds, lb) }}, nil)
			if err != nil {
				t.Fatal(err)
			}
			contreeCheck(t, d, ref.depth, r)
			if !r.Optimal {
				t.Fatalf("not optimal: %d errors, bound %d", r.Errors, r.LowerBound)
			}
			for i, b := range bounds {
				// The bound the search reported as it ran: rising, never above the optimum.
				if b > float64(r.Errors) || i > 0 && b <= bounds[i-1] {
					t.Fatalf("bounds reported %v, optimum %d", bounds, r.Errors)
				}
			}
			if r.Errors > ref.optimum || (!ref.float32 && r.Errors != ref.optimum) {
				t.Fatalf("optimum %d, reference %d (float32 %v)", r.Errors, ref.optimum, ref.float32)
			}
			t.Logf("%s depth %d: %d errors in %.3fs (reference %.3fs) %v", ref.dataset, ref.depth, r.Errors, time.Since(start).Seconds(), ref.cpu, r.Stats)
		})
	}
}

// contreeBrute is the optimum of a depth-d tree on the given rows,
// trying every threshold between distinct values of every feature.
func contreeBrute(d *model.Dataset, rows []int, depth int) int {
	cnt := make([]int, d.NumClasses())
	for _, r := range rows {
		cnt[d.Labels[r]]++
	}
	best := len(rows)
	for _, c := range cnt {
		best = min(best, len(rows)-c)
	}
	if depth == 0 || best == 0 {
		return best
	}
	for f := range d.Features {
		vals := map[float64]bool{}
		for _, r := range rows {
			vals[d.Features[f].Values[r]] = true
		}
		for v := range vals {
			var lo, hi []int
			for _, r := range rows {
				if d.Features[f].Values[r] <= v {
					lo = append(lo, r)
				} else {
					hi = append(hi, r)
				}
			}
			if len(hi) == 0 {
				continue
			}
			e := contreeBrute(d, lo, depth-1)
			if e >= best {
				continue
			}
			e += contreeBrute(d, hi, depth-1)
			best = min(best, e)
		}
	}
	return best
}

func contreeRandom(rng *rand.Rand, n, p, k, levels int) *model.Dataset {
	d := &model.Dataset{Name: "random"}
	for c := range k {
		d.Classes = append(d.Classes, strconv.Itoa(c))
	}
	for f := range p {
		vals := make([]float64, n)
		for r := range vals {
			vals[r] = float64(rng.IntN(levels)) / 2
		}
		d.Features = append(d.Features, model.Feature{Name: "f" + strconv.Itoa(f), Values: vals})
	}
	for range n {
		d.Labels = append(d.Labels, rng.IntN(k))
	}
	return d
}

func TestConTreeBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 120 {
		n := 5 + rng.IntN(30)
		p := 1 + rng.IntN(3)
		k := 2 + rng.IntN(3)
		levels := 2 + rng.IntN(8)
		depth := 1 + rng.IntN(3)
		if it%6 == 0 {
			// Depth 4 (the search starts from the greedy tree) on tiny data.
			depth, n, p, levels = 4, 8+rng.IntN(10), 2, 2+rng.IntN(4)
		}
		d := contreeRandom(rng, n, p, k, levels)
		rows := make([]int, n)
		for r := range rows {
			rows[r] = r
		}
		want := contreeBrute(d, rows, depth)
		for _, s := range []Config{{MaxDepth: depth}, {MaxDepth: depth, EtaShortest: true}, {MaxDepth: depth, NoCache: true}} {
			r, err := Solve(context.Background(), d, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			contreeCheck(t, d, depth, r)
			if !r.Optimal || r.Errors != want {
				t.Fatalf("case %d (n=%d p=%d k=%d depth=%d %+v): got %d (optimal %v), brute force %d", it, n, p, k, depth, s, r.Errors, r.Optimal, want)
			}
		}
	}
}

func TestConTreeMaxGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 40 {
		n := 20 + rng.IntN(40)
		depth := 2 + rng.IntN(3)
		d := contreeRandom(rng, n, 3, 2+rng.IntN(2), 10)
		exact, err := Solve(context.Background(), d, Config{MaxDepth: depth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, gap := range []int{1, 3, 8} {
			r, err := Solve(context.Background(), d, Config{MaxDepth: depth, MaxGap: gap}, nil)
			if err != nil {
				t.Fatal(err)
			}
			contreeCheck(t, d, depth, r)
			if r.Errors < exact.Errors || r.Errors > exact.Errors+gap {
				t.Fatalf("case %d gap %d: %d errors, optimum %d", it, gap, r.Errors, exact.Errors)
			}
			if r.LowerBound > exact.Errors {
				t.Fatalf("case %d gap %d: lower bound %d above the optimum %d", it, gap, r.LowerBound, exact.Errors)
			}
		}
	}
}

// On 0/1 data ConTree must match the DL8.5/MurTree optima.
func TestConTreeCP4IM(t *testing.T) {
	dir := contreeShared(t)
	f, err := os.Open(filepath.Join(dir, "reference", "cp4im-optima.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]map[int]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 6 || strings.HasPrefix(c[0], "#") || c[0] == "dataset" {
			continue
		}
		d, err1 := strconv.Atoi(c[4])
		o, err2 := strconv.Atoi(c[5])
		if err1 != nil || err2 != nil {
			continue
		}
		if want[c[0]] == nil {
			want[c[0]] = map[int]int{}
		}
		want[c[0]][d] = o
	}
	cases := []struct {
		name  string
		depth int
	}{{"hepatitis", 2}, {"hepatitis", 3}, {"lymph", 3}, {"primary-tumor", 3}, {"heart-cleveland", 2}, {"kr-vs-kp", 2}, {"anneal", 2}}
	for _, c := range cases {
		opt, ok := want[c.name][c.depth]
		if !ok {
			t.Fatalf("no reference for %s depth %d", c.name, c.depth)
		}
		d, err := model.ReadFile(filepath.Join(dir, "data", "cp4im", c.name+".txt"), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Solve(context.Background(), d, Config{MaxDepth: c.depth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		contreeCheck(t, d, c.depth, r)
		if !r.Optimal || r.Errors != opt {
			t.Errorf("%s depth %d: %d errors (optimal %v), reference %d", c.name, c.depth, r.Errors, r.Optimal, opt)
		}
	}
}

// A search stopped by its context returns a valid tree, not claimed optimal,
// with a valid bound; incumbents improve and re-evaluate to their errors.
func TestConTreeTimeLimit(t *testing.T) {
	dir := contreeShared(t)
	d, err := model.ReadFile(filepath.Join(dir, "data", "numeric", "magic.txt"), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// magic: depth-2 optimum 3746, depth-3 optimum 3240 found in minutes
	// (numeric-optima.tsv). Each run is stopped as soon as it reports a
	// tree at least as good as the depth-two optimum (at depth 3 after the
	// first root threshold's depth-two subtrees, at depth 4 the greedy
	// tree), so the test does not depend on the machine's speed; the
	// deadline is only a safety net.
	for _, depth := range []int{3, 4} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		last := -1.0
		var incs int
		var stopAt time.Time
		report := model.IncumbentFunc(func(obj float64, g *model.Graph) {
			if last >= 0 && obj >= last {
				t.Errorf("incumbent %v does not improve on %v", obj, last)
			}
			if e := g.Errors(d); float64(e) != obj || g.Depth() > depth {
				t.Errorf("incumbent claims %v errors, makes %d (depth %d)", obj, e, g.Depth())
			}
			last = obj
			incs++
			if obj <= 3746 && stopAt.IsZero() {
				stopAt = time.Now()
				cancel()
			}
		})
		r, err := Solve(ctx, d, Config{MaxDepth: depth}, report)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if stopAt.IsZero() {
			t.Fatalf("depth %d: no incumbent as good as the depth-two optimum 3746 within 2 minutes (last %v)", depth, last)
		}
		if el := time.Since(stopAt); el > 15*time.Second {
			t.Errorf("depth %d: stopping took %v", depth, el)
		}
		contreeCheck(t, d, depth, r)
		if r.Optimal || !r.Stopped {
			t.Fatalf("depth %d on magic should stop early: optimal %v stopped %v", depth, r.Optimal, r.Stopped)
		}
		if r.LowerBound > 3240 {
			t.Fatalf("lower bound %d above the depth-3 optimum", r.LowerBound)
		}
		// The last incumbent is returned (the old code returned the leaf).
		if incs < 1 || last != float64(r.Errors) {
			t.Fatalf("depth %d: %d incumbents, last %v, result %d", depth, incs, last, r.Errors)
		}
		t.Logf("depth %d: stopped with %d errors after %d incumbents", depth, r.Errors, incs)
	}
}

func TestConTreeInputs(t *testing.T) {
	d := &model.Dataset{Name: "cat", Classes: []string{"a", "b"}, Labels: []int{0, 1, 1, 0, 1, 0},
		Features: []model.Feature{
			{Name: "colour", Kind: model.Categorical, Levels: []string{"red", "green", "blue"}, Values: []float64{0, 1, 2, 0, 1, 2}},
			{Name: "x", Values: []float64{1, 2, 3, 4, 5, 6}},
		}}
	r, err := Solve(context.Background(), d, Config{MaxDepth: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	contreeCheck(t, d, 1, r)
	if r.Errors != 1 || !r.Optimal {
		t.Fatalf("colour == green separates all but one row; got %d errors\n%s", r.Errors, r.Tree.Text())
	}
	// Weight 3 on both blue rows (one of each class): each colour test now
	// misclassifies weight 3, while x <= 3.5 (or x <= 5.5) misclassifies
	// two rows of weight 1.
	d.Weights = []float64{1, 1, 3, 1, 1, 3}
	r, err = Solve(context.Background(), d, Config{MaxDepth: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	contreeCheck(t, d, 1, r)
	if !r.Optimal || r.Objective != 2 || r.Errors != 2 {
		t.Fatalf("weighted: objective %d, errors %d (want 2 and 2)\n%s", r.Objective, r.Errors, r.Tree.Text())
	}
	d.Weights = []float64{1, 2.5, 1, 1, 1, 1}
	if _, err := Solve(context.Background(), d, Config{MaxDepth: 1}, nil); !errors.Is(err, ErrInput) {
		t.Fatalf("fractional weights: got %v, want ErrInput", err)
	}
	d.Weights = nil
	if _, err := Solve(context.Background(), d, Config{MaxDepth: -1}, nil); err == nil {
		t.Fatal("negative depth accepted")
	}
}

// On 0/1 data, and on real-valued data binarized at every midpoint, the
// ConTree optimum equals DL8.5's (an independent search over the binary
// view).
func TestConTreeDL85(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := range 60 {
		var d *model.Dataset
		var depth int
		kind := "0/1"
		if it%2 == 0 {
			n, p := 30+rng.IntN(120), 5+rng.IntN(8)
			depth = 2 + rng.IntN(2)
			d = contreeRandom(rng, n, p, 2+rng.IntN(2), 2)
			for f := range d.Features {
				for r, x := range d.Features[f].Values {
					d.Features[f].Values[r] = 2 * x // 0 or 1
				}
			}
		} else {
			kind = "real"
			n, p := 20+rng.IntN(40), 2+rng.IntN(3)
			depth = 2 + rng.IntN(3) // depth 4 starts from the greedy tree
			if depth == 4 {
				n, p = n/2, 2
			}
			d = contreeRandom(rng, n, p, 2+rng.IntN(3), 2)
			for f := range d.Features {
				for r := range d.Features[f].Values {
					// Real values with some ties.
					d.Features[f].Values[r] = math.Round(rng.NormFloat64()*40) / 7
				}
			}
		}
		if it%3 == 0 {
			// Integer row weights (DL8.5 honours weights directly).
			d.Weights = make([]float64, d.Rows())
			for r := range d.Weights {
				d.Weights[r] = float64(1 + rng.IntN(4))
			}
			kind += ", weighted"
		}
		ref, err := dl85.Solve(context.Background(), model.Binarize(d), dl85.Config{MaxDepth: depth})
		if err != nil {
			t.Fatal(err)
		}
		if !ref.Optimal || ref.Tree.WeightedErrors(d) != ref.Error {
			t.Fatalf("case %d: DL8.5 not optimal or inconsistent", it)
		}
		r, err := Solve(context.Background(), d, Config{MaxDepth: depth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		contreeCheck(t, d, depth, r)
		if !r.Optimal || float64(r.Objective) != ref.Error {
			t.Fatalf("case %d (%s, %d rows, %d features, %d classes, depth %d): ConTree %d (optimal %v), DL8.5 %v",
				it, kind, d.Rows(), len(d.Features), d.NumClasses(), depth, r.Objective, r.Optimal, ref.Error)
		}
	}
}
