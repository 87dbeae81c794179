// Package formtest checks a MILP form solved whole (milpjob.Whole),
// as milp-oct and milp-binoct are: in every formulation, its proven
// optima against brute force and dl85 on generated data and on the
// repository's testdata, the witness it refuses false infeasibility
// claims with, and its formulation option; in the published one (the
// default), the conformance suite and its MPS export solved by CBC and
// decoded. A form's tests call Run with its Spec.
package formtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// Spec is the form under test.
type Spec struct {
	// Backend is its name in odtkit's registry.
	Backend string
	// Alternatives are its formulation option's values besides
	// published.
	Alternatives []string
	// Encode builds the form of d for the tree t in the formulation form
	// (published or one of the Alternatives).
	Encode Encoder
	// JobOptions reads a job's options: the tree and the formulation
	// asked for.
	JobOptions func(job *backend.Job) (milpjob.Tree, string, error)
}

// An Encoder builds the form of d for the tree t in the formulation
// form.
type Encoder func(ctx context.Context, d *model.Dataset, t milpjob.Tree, form string) (milpjob.Form, error)

// Run runs every check of the form, each as a subtest.
func Run(t *testing.T, s Spec) {
	t.Run("AgreesWithBruteForceAndDL85", func(t *testing.T) { agreesWithBruteForce(t, s) })
	t.Run("TestdataAgreesWithDL85", func(t *testing.T) { testdataAgrees(t, s) })
	t.Run("Conformance", func(t *testing.T) { conformance(t, s) })
	t.Run("ExportSolvedByCBC", func(t *testing.T) { exportSolvedByCBC(t, s) })
	t.Run("WitnessIsAPoint", func(t *testing.T) { witnessIsAPoint(t, s) })
	t.Run("WitnessIsTheFirstIncumbent", func(t *testing.T) { witnessFirst(t, s) })
	t.Run("DecodeRefusesFalseInfeasible", func(t *testing.T) { decodeRefusesFalseInfeasible(t, s) })
	t.Run("JobOptions", func(t *testing.T) { jobOptions(t, s) })
}

// RandomData is n rows: f numeric columns of few values, one categorical
// column of three levels, k classes from a noisy rule; weighted gives
// the rows random whole weights.
func RandomData(seed uint64, n, f, k int, weighted bool) *model.Dataset {
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

// Brute is the optimum of p on d by enumerating every tree on the
// binary view's tests: a leaf holds at least MinSupport rows, a split
// sends rows both ways.
func Brute(d *model.Dataset, p model.Problem) float64 {
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

// needHiGHS skips the test without in-process HiGHS (CBC by command
// takes minutes on some of these MILPs: ExportSolvedByCBC checks it on
// its own).
func needHiGHS(t *testing.T) {
	t.Helper()
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS is not built in (build with -tags highs)")
	}
}

// solve proves p on d with the backend name, or fails the test.
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

// agreesWithBruteForce: on generated data (numeric and categorical
// columns, two and three classes, weights, a minimum leaf size, a leaf
// cost) the form's proven optimum, in every formulation, is the
// brute-force optimum and dl85's.
func agreesWithBruteForce(t *testing.T, s Spec) {
	needHiGHS(t)
	cases := []model.Problem{
		{Objective: model.MinError, MaxDepth: 0}, {MaxDepth: 1}, {MaxDepth: 2},
		{MaxDepth: 2, MinSupport: 3}, {MaxDepth: 2, LeafCost: 0.04}, {MaxDepth: 1, MinSupport: 4, LeafCost: 0.02},
	}
	for i, p := range cases {
		d := RandomData(uint64(10+i), 9+i%3, 2, 2+i%2, i%2 == 1)
		want := Brute(d, p)
		dl := solve(t, d, p, "dl85", nil)
		for _, form := range append([]string{milpjob.FormulationPublished}, s.Alternatives...) {
			got := solve(t, d, p, s.Backend, map[string]string{milpjob.OptFormulation: form})
			if math.Abs(got.Objective-want) > 1e-9 || math.Abs(dl.Objective-want) > 1e-9 {
				t.Errorf("%s %+v %s: %s %v, dl85 %v, brute force %v", d.Name, p, form, s.Backend, got.Objective, dl.Objective, want)
			}
		}
	}
}

// Testdata reads a file of the repository's testdata folder (found
// above the test's directory, beside go.mod).
func Testdata(t *testing.T, name string) *model.Dataset {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	d, err := model.ReadFile(filepath.Join(dir, "testdata", name), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// forms are the form's formulations: published, then the Alternatives.
func (s Spec) forms() []string {
	return append([]string{milpjob.FormulationPublished}, s.Alternatives...)
}

// formOptions are the options that ask for formulation form.
func formOptions(form string) map[string]string {
	return map[string]string{milpjob.OptFormulation: form}
}

// testdataAgrees: on the repository's data the form proves dl85's
// optimum in every formulation, with a minimum leaf size and a leaf cost
// too.
func testdataAgrees(t *testing.T, s Spec) {
	needHiGHS(t)
	cases := []struct {
		file string
		p    model.Problem
	}{
		{"soybean-small-s1.csv", model.Problem{MaxDepth: 2}},
		{"monk1.csv", model.Problem{MaxDepth: 1, MinSupport: 40}},
		{"iris.csv", model.Problem{MaxDepth: 1, LeafCost: 0.01}},
	}
	for _, c := range cases {
		d := Testdata(t, c.file)
		dl := solve(t, d, c.p, "dl85", nil)
		for _, form := range s.forms() {
			got := solve(t, d, c.p, s.Backend, formOptions(form))
			if math.Abs(got.Objective-dl.Objective) > 1e-9 {
				t.Errorf("%s %+v %s: %s %v, dl85 %v", c.file, c.p, form, s.Backend, got.Objective, dl.Objective)
			}
		}
	}
}

// conformance runs the backend conformance suite on the published
// formulation, the backend's default. The suite checks the job steps
// (cancellation, incumbents, determinism, exports, certificates), which
// the formulations share through milpjob.Whole; each Alternative's
// MILP is checked for exactness on its own (agreesWithBruteForce,
// testdataAgrees, witnessIsAPoint), so the suite's minutes are spent
// once.
func conformance(t *testing.T, s Spec) {
	needHiGHS(t)
	b, ok := odtkit.DefaultRegistry().Get(s.Backend)
	if !ok {
		t.Fatalf("%s is not registered", s.Backend)
	}
	c := backendtest.Config{Verify: odtkit.Verify, Brute: 6, Rows: 12}
	if testing.Short() {
		c.Brute = 3
	}
	backendtest.Run(t, b, c)
}

// exportSolvedByCBC: the exported MPS file of the published formulation,
// solved by CBC and decoded, gives the optimum dl85 proves; CBC's word
// that it is optimal is a claimed bound, not a proof, unless the solver
// is trusted. The export and decode steps are the formulations' shared
// ones (milpjob.Whole), so one round trip checks them.
func exportSolvedByCBC(t *testing.T, s Spec) {
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc is not installed")
	}
	d := Testdata(t, "monk1.csv")
	p := model.Problem{MaxDepth: 1}
	want := solve(t, d, p, "dl85", nil).Objective
	if want == 0 {
		t.Fatal("a zero optimum needs no claim: pick data with errors")
	}
	cbcRoundTrip(t, s.Backend, milpjob.FormulationPublished, d, p, want)
}

// cbcRoundTrip exports the MILP of formulation form, solves it with CBC
// and decodes CBC's answer, which must be the optimum want.
func cbcRoundTrip(t *testing.T, name, form string, d *model.Dataset, p model.Problem, want float64) {
	dir := t.TempDir()
	mps, sol := filepath.Join(dir, "form.mps"), filepath.Join(dir, "form.sol")
	f, err := os.Create(mps)
	if err != nil {
		t.Fatal(err)
	}
	st := odtkit.Settings{Backend: name, Options: formOptions(form)}
	if _, err := odtkit.Export(context.Background(), f, d, p, st); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
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
		ts := st
		if trust {
			ts.Options = map[string]string{milpjob.OptFormulation: form, backend.OptTrustSolver: "true"}
		}
		res, err := odtkit.Decode(context.Background(), r, d, p, ts)
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

// witnessIsAPoint: the witness is a point of the MILP in every
// formulation (with weights, a minimum leaf size, a leaf cost and a cap
// on the splits) whose tree is one leaf making the majority class's
// errors; with a minimum leaf size above the rows there is none.
func witnessIsAPoint(t *testing.T, s Spec) {
	trees := []milpjob.Tree{
		{Depth: 0}, {Depth: 1}, {Depth: 2}, {Depth: 3},
		{Depth: 2, MinSupport: 4, LeafCost: 0.05, MaxSplits: 2}, {Depth: 2, MinSupport: 3},
	}
	for _, form := range s.forms() {
		for i, tree := range trees {
			d := RandomData(uint64(40+i), 10, 2, 2+i%2, i%2 == 1)
			e, err := s.Encode(context.Background(), d, tree, form)
			if err != nil {
				t.Fatal(err)
			}
			x := e.Witness()
			if x == nil {
				t.Fatalf("%s %+v: no witness", form, tree)
			}
			if err := e.MILP().CheckPoint(x, 1e-9); err != nil {
				t.Fatalf("%s %+v: the witness is not a point: %v", form, tree, err)
			}
			g, err := e.Decode(x)
			if err != nil {
				t.Fatalf("%s %+v: %v", form, tree, err)
			}
			_, want := model.Majority(d.ClassCounts())
			if g.InternalNodes() != 0 || math.Abs(g.WeightedErrors(d)-want) > 1e-9 {
				t.Errorf("%s %+v: the witness is a tree of %d splits and %v errors, want one leaf of %v", form, tree, g.InternalNodes(), g.WeightedErrors(d), want)
			}
		}
		e, err := s.Encode(context.Background(), RandomData(1, 5, 2, 2, false), milpjob.Tree{Depth: 1, MinSupport: 6}, form)
		if err != nil {
			t.Fatal(err)
		}
		if x := e.Witness(); x != nil {
			t.Errorf("%s: a witness with a minimum leaf size above the rows", form)
		}
	}
}

// witnessFirst: in every formulation, a solve starts from the witness
// (the majority leaf): it is the first incumbent reported, before the
// solver's first point, so that a run stopped while the solver searches
// still answers with a model; the optimum is unchanged.
func witnessFirst(t *testing.T, s Spec) {
	needHiGHS(t)
	d := RandomData(7, 24, 2, 2, false)
	p := model.Problem{MaxDepth: 2}
	_, leaf := model.Majority(d.ClassCounts())
	for _, form := range s.forms() {
		res := solve(t, d, p, s.Backend, formOptions(form))
		if len(res.Incumbents) == 0 || res.Incumbents[0].Objective != leaf || res.Stats["start_objective"] != leaf {
			t.Errorf("%s: incumbents %+v, start %v; want the majority leaf's %v first", form, res.Incumbents, res.Stats["start_objective"], leaf)
		}
		if want := Brute(d, p); res.Objective != want {
			t.Errorf("%s: optimum %v, brute force %v", form, res.Objective, want)
		}
	}
}

// decodeRefusesFalseInfeasible: in every formulation, a solution file
// that says "infeasible" without a point is refused when a tree of one
// leaf meets the minimum leaf size, and taken as the solver's claim (no
// solution, unless the solver is trusted) when none does.
func decodeRefusesFalseInfeasible(t *testing.T, s Spec) {
	d := RandomData(3, 8, 2, 2, false)
	answer := "Model status\nInfeasible\n"
	for _, form := range s.forms() {
		st := odtkit.Settings{Backend: s.Backend, Options: formOptions(form)}
		for _, p := range []model.Problem{{MaxDepth: 2, MinSupport: 3}, {MaxDepth: 2}} {
			_, err := odtkit.Decode(context.Background(), strings.NewReader(answer), d, p, st)
			if !errors.Is(err, milpjob.ErrRefutedInfeasible) {
				t.Errorf("%s %+v: a false infeasibility: got %v, want ErrRefutedInfeasible", form, p, err)
			}
		}
		res, err := odtkit.Decode(context.Background(), strings.NewReader(answer), d, model.Problem{MaxDepth: 2, MinSupport: 9}, st)
		if err != nil || res.Model != nil || res.ClaimedBy == "" {
			t.Fatalf("%s: an infeasibility no tree refutes: got %v, %v; want the solver's claim", form, res, err)
		}
		if res.Status != model.StatusNoSolution {
			t.Errorf("%s: an untrusted claim of infeasibility: status %s, want %s", form, res.Status, model.StatusNoSolution)
		}
	}
}

// jobOptions: the problem states the MILP's tree; the formulation is the
// paper's unless another is asked for, and one the form does not know is
// refused.
func jobOptions(t *testing.T, s Spec) {
	b, ok := odtkit.DefaultRegistry().Get(s.Backend)
	if !ok {
		t.Fatalf("%s is not registered", s.Backend)
	}
	d := RandomData(5, 8, 2, 2, false)
	p := model.Problem{MaxDepth: 2, MinSupport: 3, LeafCost: 0.01, MaxNodes: 2}
	cases := []struct {
		raw  map[string]string
		form string
	}{{nil, milpjob.FormulationPublished}}
	for _, form := range s.forms() {
		cases = append(cases, struct {
			raw  map[string]string
			form string
		}{formOptions(form), form})
	}
	for _, c := range cases {
		job, err := backend.NewJob(b.Info(), d, p, c.raw)
		if err != nil {
			t.Fatal(err)
		}
		tree, form, err := s.JobOptions(job)
		want := milpjob.Tree{Depth: job.Problem.MaxDepth, MinSupport: 3, LeafCost: 0.01, MaxSplits: 2}
		if err != nil || tree != want || form != c.form {
			t.Errorf("%v: got %+v, %v, %v; want %+v, %v", c.raw, tree, form, err, want, c.form)
		}
	}
	if _, err := backend.NewJob(b.Info(), d, p, map[string]string{milpjob.OptFormulation: "strong"}); err == nil {
		t.Errorf("formulation=strong accepted")
	}
}

// LPBoundAbove checks that the LP relaxation of formulation form is a
// valid bound at least the published MILP's: on generated data and on
// monk1 (error objective, depths 1 and 2) it is at least the published
// LP bound and at most the brute-force optimum, and on monk1 at depth 1,
// where the published bound is 0, it is above 0.
func LPBoundAbove(t *testing.T, encode Encoder, form string) {
	needHiGHS(t)
	lp := func(d *model.Dataset, tree milpjob.Tree, f string) float64 {
		t.Helper()
		e, err := encode(context.Background(), d, tree, f)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := milp.HiGHS().Solve(context.Background(), milp.Relaxation(e.MILP()), milp.Params{Threads: 1})
		if err != nil || sol.Status != milp.StatusOptimal {
			t.Fatalf("%s %+v: the LP relaxation: %v, %v", f, tree, sol, err)
		}
		return sol.Objective
	}
	cases := []struct {
		d     *model.Dataset
		depth int
	}{
		{RandomData(60, 14, 2, 2, false), 1}, {RandomData(61, 14, 3, 3, true), 2},
		{Testdata(t, "monk1.csv"), 1}, {Testdata(t, "monk1.csv"), 2},
	}
	for i, c := range cases {
		tree := milpjob.Tree{Depth: c.depth}
		pub, strong := lp(c.d, tree, milpjob.FormulationPublished), lp(c.d, tree, form)
		opt := Brute(c.d, model.Problem{MaxDepth: c.depth})
		t.Logf("%s depth %d: LP bound %v published, %v %s; optimum %v", c.d.Name, c.depth, pub, strong, form, opt)
		if strong < pub-1e-6 || strong > opt+1e-6 {
			t.Errorf("%s depth %d: LP bound %v (%s) against %v (published) and the optimum %v", c.d.Name, c.depth, strong, form, pub, opt)
		}
		if i == 2 && strong < 1e-6 {
			t.Errorf("%s depth %d: LP bound %v (%s), want above 0", c.d.Name, c.depth, strong, form)
		}
	}
}
