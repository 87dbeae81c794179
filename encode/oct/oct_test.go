package oct_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// randomData is n rows: f numeric columns of few values, one categorical
// column of three levels, k classes from a noisy rule; weighted gives
// the rows random whole weights.
func randomData(seed uint64, n, f, k int, weighted bool) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 7))
	d := &model.Dataset{Name: fmt.Sprint("rnd", seed)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprint("f", j), Kind: model.Numeric, Values: make([]float64, n)})
	}
	cat := model.Feature{Name: "colour", Kind: model.Categorical, Levels: []string{"red", "green", "blue"}, Values: make([]float64, n)}
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(2+j)) / 2
		}
		cat.Values[i] = float64(r.IntN(3))
		l := (int(2*d.Features[0].Values[i]) + int(cat.Values[i])) % k
		if r.IntN(4) == 0 {
			l = r.IntN(k)
		}
		d.Labels = append(d.Labels, l)
		if weighted {
			d.Weights = append(d.Weights, float64(1+r.IntN(3)))
		}
	}
	d.Features = append(d.Features, cat)
	return d
}

// brute is the optimum of p on d by enumerating every tree on the
// binary view's tests: a leaf holds at least MinSupport rows, a split
// sends rows both ways.
func brute(d *model.Dataset, p model.Problem) float64 {
	v := model.Binarize(d)
	W := d.TotalWeight()
	leaf := func(rows []int) float64 {
		if len(rows) < max(p.MinSupport, 1) {
			return math.Inf(1)
		}
		cnt := make([]float64, d.NumClasses())
		for _, r := range rows {
			cnt[d.Labels[r]] += d.Weight(r)
		}
		_, e := model.Majority(cnt)
		if p.LeafCost > 0 {
			return e/W + p.LeafCost
		}
		return e
	}
	var best func(rows []int, k int) float64
	best = func(rows []int, k int) float64 {
		b := leaf(rows)
		if k == 0 {
			return b
		}
		for t := range v.Tests {
			var lo, hi []int
			for _, r := range rows {
				if v.Value(t, r) {
					hi = append(hi, r)
				} else {
					lo = append(lo, r)
				}
			}
			if len(lo) == 0 || len(hi) == 0 {
				continue
			}
			b = math.Min(b, best(lo, k-1)+best(hi, k-1))
		}
		return b
	}
	rows := make([]int, d.Rows())
	for r := range rows {
		rows[r] = r
	}
	return best(rows, p.MaxDepth)
}

// solverOptions are the options of the MILP solves: in-process HiGHS;
// the test is skipped without it (CBC by command takes minutes on some
// of these MILPs: TestExportSolvedByCBC checks it on its own).
func solverOptions(t *testing.T) map[string]string {
	t.Helper()
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS is not built in (build with -tags highs)")
	}
	return map[string]string{}
}

func solve(t *testing.T, d *model.Dataset, p model.Problem, name string, opts map[string]string) *model.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	res, err := odtkit.Solve(ctx, d, p, odtkit.Settings{Backend: name, Options: opts, Threads: 1})
	if err != nil {
		t.Fatalf("%s on %s %+v: %v", name, d.Name, p, err)
	}
	if !res.Optimal {
		t.Fatalf("%s on %s %+v: not proven (%s, %v)", name, d.Name, p, res.Status, res.Objective)
	}
	return res
}

// TestAgreesWithBruteForceAndDL85: on generated data (numeric and
// categorical columns, two and three classes, weights, a minimum leaf
// size, a leaf cost) milp-oct's proven optimum is the brute-force
// optimum and dl85's.
func TestAgreesWithBruteForceAndDL85(t *testing.T) {
	opts := solverOptions(t)
	cases := []model.Problem{
		{Objective: model.MinError, MaxDepth: 0}, {MaxDepth: 1}, {MaxDepth: 2},
		{MaxDepth: 2, MinSupport: 3}, {MaxDepth: 2, LeafCost: 0.04}, {MaxDepth: 1, MinSupport: 4, LeafCost: 0.02},
	}
	for i, p := range cases {
		d := randomData(uint64(10+i), 9+i%3, 2, 2+i%2, i%2 == 1)
		want := brute(d, p)
		dl := solve(t, d, p, "dl85", nil)
		for _, form := range []string{"published", "aggregated"} {
			o := map[string]string{"formulation": form}
			for k, v := range opts {
				o[k] = v
			}
			got := solve(t, d, p, "milp-oct", o)
			if math.Abs(got.Objective-want) > 1e-9 || math.Abs(dl.Objective-want) > 1e-9 {
				t.Errorf("%s %+v %s: milp-oct %v, dl85 %v, brute force %v", d.Name, p, form, got.Objective, dl.Objective, want)
			}
		}
	}
}

// testdata reads a file of the repository's testdata folder.
func testdata(t *testing.T, name string) *model.Dataset {
	t.Helper()
	d, err := model.ReadFile(filepath.Join("..", "..", "testdata", name), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestTestdataAgreesWithDL85: on the repository's data milp-oct proves
// dl85's optimum, with a minimum leaf size and a leaf cost too.
func TestTestdataAgreesWithDL85(t *testing.T) {
	opts := solverOptions(t)
	cases := []struct {
		file string
		p    model.Problem
	}{
		{"soybean-small-s1.csv", model.Problem{MaxDepth: 2}},
		{"monk1.csv", model.Problem{MaxDepth: 1, MinSupport: 40}},
		{"iris.csv", model.Problem{MaxDepth: 1, LeafCost: 0.01}},
	}
	for _, c := range cases {
		d := testdata(t, c.file)
		got := solve(t, d, c.p, "milp-oct", opts)
		dl := solve(t, d, c.p, "dl85", nil)
		if math.Abs(got.Objective-dl.Objective) > 1e-9 {
			t.Errorf("%s %+v: milp-oct %v, dl85 %v", c.file, c.p, got.Objective, dl.Objective)
		}
	}
}

// TestConformance runs the backend conformance suite.
func TestConformance(t *testing.T) {
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS is not built in (build with -tags highs)")
	}
	c := backendtest.Config{Verify: odtkit.Verify, Brute: 6, Rows: 12}
	if testing.Short() {
		c.Brute = 3
	}
	b, _ := odtkit.DefaultRegistry().Get("milp-oct")
	backendtest.Run(t, b, c)
}

// TestExportSolvedByCBC: the exported MPS file, solved by CBC and
// decoded, gives the optimum dl85 proves; CBC's word that it is optimal
// is a claimed bound, not a proof, unless the solver is trusted.
func TestExportSolvedByCBC(t *testing.T) {
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc is not installed")
	}
	d := testdata(t, "monk1.csv")
	p := model.Problem{MaxDepth: 1}
	want := solve(t, d, p, "dl85", nil).Objective
	if want == 0 {
		t.Fatal("a zero optimum needs no claim: pick data with errors")
	}
	dir := t.TempDir()
	mps, sol := filepath.Join(dir, "oct.mps"), filepath.Join(dir, "oct.sol")
	f, err := os.Create(mps)
	if err != nil {
		t.Fatal(err)
	}
	s := odtkit.Settings{Backend: "milp-oct"}
	if _, err := odtkit.Export(context.Background(), f, d, p, s); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "cbc", mps, "solve", "solution", sol).CombinedOutput(); err != nil {
		t.Fatalf("cbc: %v\n%s", err, out)
	}
	for _, trust := range []bool{false, true} {
		r, err := os.Open(sol)
		if err != nil {
			t.Fatal(err)
		}
		st := s
		if trust {
			st.Options = map[string]string{"trust-solver": "true"}
		}
		res, err := odtkit.Decode(context.Background(), r, d, p, st)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		claimed := res.ClaimedBound != nil && *res.ClaimedBound == want
		if res.Objective != want || res.Optimal != trust || !trust && !claimed {
			t.Errorf("trust %v: decoded %s, objective %v, optimal %v, claimed %v; dl85's optimum %v", trust, res.Status, res.Objective, res.Optimal, res.ClaimedBound, want)
		}
	}
}
