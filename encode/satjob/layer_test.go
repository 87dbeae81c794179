package satjob_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// repeated is rows × cols of few values (many identical rows), three
// classes and whole row weights from 1 to 3.
func repeated(rows, cols int, seed uint64) *model.Dataset {
	rng := rand.New(rand.NewPCG(seed, 11))
	d := modeltest.Binary(rows, cols, seed)
	d.Classes = []string{"a", "b", "c"}
	d.Weights = make([]float64, rows)
	for r := range rows {
		d.Labels[r] = rng.IntN(3)
		d.Weights[r] = float64(1 + rng.IntN(3))
	}
	return d
}

// TestPrepareGroups: every row is in one group, rows of a group agree on
// every kept test and rows of two groups differ on one, the groups'
// class weights add up to the rows', the floor is what each group's
// minority weighs, and the kept tests are neither constant nor equal or
// complementary to another.
func TestPrepareGroups(t *testing.T) {
	for seed := range uint64(30) {
		d := repeated(5+int(seed)*3, 1+int(seed%4), seed)
		v := model.Binarize(d)
		p, err := satjob.Prepare(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		key := func(r int) string {
			b := make([]byte, len(p.Tests))
			for i, tt := range p.Tests {
				if v.Value(tt, r) {
					b[i] = 1
				}
			}
			return string(b)
		}
		group := map[string]int{}
		for g, gr := range p.Groups {
			k := key(gr.Rep)
			if _, dup := group[k]; dup {
				t.Fatalf("seed %d: two groups share the tests of row %d", seed, gr.Rep)
			}
			group[k] = g
		}
		count := make([][]int, len(p.Groups))
		for g := range count {
			count[g] = make([]int, p.Classes)
		}
		total := 0
		for r := range d.Rows() {
			g, ok := group[key(r)]
			if !ok {
				t.Fatalf("seed %d: row %d is in no group", seed, r)
			}
			if r < p.Groups[g].Rep {
				t.Fatalf("seed %d: group %d's first row is %d, not %d", seed, g, p.Groups[g].Rep, r)
			}
			count[g][d.Labels[r]] += int(d.Weights[r])
			total += int(d.Weights[r])
		}
		floor := 0
		for g, gr := range p.Groups {
			if !slices.Equal(gr.Count, count[g]) {
				t.Fatalf("seed %d: group %d counts %v, want %v", seed, g, gr.Count, count[g])
			}
			if gr.Total() != sum(count[g]) {
				t.Fatalf("seed %d: group %d total %d", seed, g, gr.Total())
			}
			floor += sum(count[g]) - slices.Max(count[g])
		}
		if p.Total != total || p.Floor != floor {
			t.Fatalf("seed %d: total %d floor %d, want %d and %d", seed, p.Total, p.Floor, total, floor)
		}
		for i, a := range p.Tests {
			if v.True[a].Count() == 0 || v.True[a].Count() == v.N {
				t.Fatalf("seed %d: kept test %d is constant", seed, a)
			}
			for _, b := range p.Tests[i+1:] {
				same, comp := true, true
				for r := range v.N {
					same = same && v.Value(a, r) == v.Value(b, r)
					comp = comp && v.Value(a, r) != v.Value(b, r)
				}
				if same || comp {
					t.Fatalf("seed %d: kept tests %d and %d are equal or complements", seed, a, b)
				}
			}
		}
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// TestPrepareRefuses: a fractional weight is refused naming its row; the
// error of PrepareWithin's tooLarge stops the grouping as it is.
func TestPrepareRefuses(t *testing.T) {
	d := repeated(20, 3, 1)
	d.Weights[4] = 1.5
	if _, err := satjob.Prepare(context.Background(), model.Binarize(d)); err == nil || !strings.Contains(err.Error(), "row 5") {
		t.Fatalf("fractional weight: %v", err)
	}
	d = repeated(40, 4, 2)
	stop := errors.New("too large")
	calls := 0
	_, err := satjob.PrepareWithin(context.Background(), model.Binarize(d), func(groups, tests int) error {
		calls++
		if groups < 1 || tests < 1 {
			t.Errorf("tooLarge(%d, %d)", groups, tests)
		}
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("PrepareWithin: %v after %d calls, want the callback's error after one", err, calls)
	}
}

// TestRootOrder: the kept tests by the error of their stump (the
// majority class on either side, by weight), ties by index.
func TestRootOrder(t *testing.T) {
	for seed := range uint64(20) {
		d := repeated(30, 3, seed)
		v := model.Binarize(d)
		p, err := satjob.Prepare(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		stump := make([]float64, len(p.Tests))
		for i, tt := range p.Tests {
			var side [2][3]float64
			for r := range d.Rows() {
				s := 0
				if v.Value(tt, r) {
					s = 1
				}
				side[s][d.Labels[r]] += d.Weights[r]
			}
			for _, c := range side {
				stump[i] += c[0] + c[1] + c[2] - max(c[0], c[1], c[2])
			}
		}
		order := p.RootOrder()
		if len(order) != len(p.Tests) {
			t.Fatalf("seed %d: %d tests ordered of %d", seed, len(order), len(p.Tests))
		}
		for i := 1; i < len(order); i++ {
			a, b := order[i-1], order[i]
			if stump[a] > stump[b] || stump[a] == stump[b] && a > b {
				t.Fatalf("seed %d: test %d (stump %v) before test %d (stump %v)", seed, a, stump[a], b, stump[b])
			}
		}
	}
}

// choice is a formula of its own for a descent: n options, at least one
// chosen and some pairs excluded, each option with a cost; the least cost
// is found by trying every choice.
type choice struct {
	cnf   *sat.CNF
	x     []sat.Lit
	costs []int
	best  int
}

func newChoice(rng *rand.Rand) choice {
	n := 3 + rng.IntN(5)
	c := choice{cnf: &sat.CNF{}, costs: make([]int, n)}
	for i := range n {
		c.x = append(c.x, c.cnf.NewVar())
		c.costs[i] = 1 + rng.IntN(6)
	}
	c.cnf.Add(c.x...)
	for a := range n {
		for b := a + 1; b < n; b++ {
			if rng.IntN(3) == 0 {
				c.cnf.Add(c.x[a].Not(), c.x[b].Not())
			}
		}
	}
	// Some option holds and the exclusions leave its singleton: the
	// least cost is the cheapest option's.
	c.best = slices.Min(c.costs)
	return c
}

func (c choice) cost(val func(sat.Lit) bool) int {
	s := 0
	for i, l := range c.x {
		if val(l) {
			s += c.costs[i]
		}
	}
	return s
}

// TestDescentFindsTheLeastCost: from the cost of every option chosen
// that can be, a descent on the whole space, by parts, or bisecting,
// ends optimal at the least cost, one of its steps refuting the bound
// below it and none a bound its part meets; with
// a proof logged it keeps the refutation that proves the bound.
func TestDescentFindsTheLeastCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		c := newChoice(rng)
		incumbent := slices.Max(c.costs) // a single option is a model
		for _, mode := range []string{"whole", "parts", "bisect", "certify"} {
			cnf := &sat.CNF{}
			cnf.NumVars = c.cnf.NumVars
			for i := range c.cnf.NumClauses() {
				cnf.Add(c.cnf.Clause(i)...)
			}
			tot, err := sat.NewTotalizer(context.Background(), cnf, c.x, c.costs, incumbent)
			if err != nil {
				t.Fatal(err)
			}
			s := sat.NewCDCL()
			if mode == "certify" {
				if err := s.StartProof(t.TempDir() + "/p.log"); err != nil {
					t.Fatal(err)
				}
			}
			if err := satjob.Load(context.Background(), s, cnf); err != nil {
				t.Fatal(err)
			}
			d := satjob.Descent{Solver: s, AtLeast: tot.AtLeast, Cap: tot.Cap, Bisect: mode == "bisect", Certify: mode == "certify",
				Model: func(k int) (int, error) { return c.cost(s.Value), nil }}
			if mode != "whole" {
				d.Parts = c.x
			}
			r, err := d.Run(context.Background(), incumbent, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Optimal || r.Cost != c.best || r.LowerBound != c.best {
				t.Fatalf("trial %d %s: cost %d bound %d optimal %v, want %d", trial, mode, r.Cost, r.LowerBound, r.Optimal, c.best)
			}
			if r.Calls != len(r.Steps) {
				t.Fatalf("trial %d %s: %d calls, %d steps", trial, mode, r.Calls, len(r.Steps))
			}
			for _, st := range r.Steps {
				if st.Status == sat.Satisfiable && st.Cost > st.Bound {
					t.Fatalf("trial %d %s: a model of cost %d at bound %d", trial, mode, st.Cost, st.Bound)
				}
			}
			refuted := false
			for _, st := range r.Steps {
				if st.Status != sat.Unsatisfiable {
					continue
				}
				// The least cost of the models of a part (option i
				// chosen) is option i's.
				least := c.best
				if st.Part >= 0 {
					least = c.costs[st.Part]
				}
				if st.Bound >= least {
					t.Fatalf("trial %d %s: bound %d refuted on part %d, whose least cost is %d", trial, mode, st.Bound, st.Part, least)
				}
				refuted = refuted || st.Bound == c.best-1
			}
			if c.best > 1 && !refuted {
				t.Fatalf("trial %d %s: no step refutes bound %d: %+v", trial, mode, c.best-1, r.Steps)
			}
			if mode == "certify" && c.best > 1 && (r.Refutation == nil || r.Refutation.Bound != c.best-1) {
				t.Fatalf("trial %d: refutation %+v, want bound %d", trial, r.Refutation, c.best-1)
			}
		}
	}
}

// TestOrdered: one clause ¬out(k+1) ∨ out(k) per pair of consecutive
// outputs that exist and differ (a count that never reaches k has no
// output: 0).
func TestOrdered(t *testing.T) {
	out := func(k int) sat.Lit {
		switch k {
		case 3:
			return 0
		case 5:
			return 14
		}
		return sat.Lit(10 + k)
	}
	got := satjob.Ordered(out, 6)
	want := [][]sat.Lit{{-12, 11}, {-16, 14}}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}

// TestCounterBound: bound k is "the count stays below k", known for k in
// 1..cap only.
func TestCounterBound(t *testing.T) {
	out := func(k int) sat.Lit { return sat.Lit(10 + k) }
	b := satjob.CounterBound(out, 4)
	for k := range 7 {
		as, ok := b(k)
		if ok != (k >= 1 && k <= 4) {
			t.Fatalf("bound %d: ok %v", k, ok)
		}
		if ok && !slices.Equal(as, []sat.Lit{-sat.Lit(10 + k)}) {
			t.Fatalf("bound %d: %v", k, as)
		}
	}
	none := satjob.CounterBound(func(int) sat.Lit { return 0 }, 2)
	if as, ok := none(1); !ok || len(as) != 0 {
		t.Fatalf("a count that never reaches the bound: %v %v, want no assumption", as, ok)
	}
}

// TestCapEncoding: a descent proof's encoding round-trips its cap; a
// proof of another name, an encoding that is not JSON and a cap below 1
// are refused; DescentRefuted takes the largest bound of descent proofs
// only.
func TestCapEncoding(t *testing.T) {
	pr := lrat.Proof{Name: satjob.DescentProof, Encoding: satjob.CapEncoding(17)}
	if c, err := satjob.ReadCap(pr, "x"); err != nil || c != 17 {
		t.Fatalf("cap %d, %v", c, err)
	}
	for _, bad := range []lrat.Proof{
		{Name: "other", Encoding: satjob.CapEncoding(3)},
		{Name: satjob.DescentProof, Encoding: []byte("{")},
		{Name: satjob.DescentProof, Encoding: satjob.CapEncoding(0)},
	} {
		if _, err := satjob.ReadCap(bad, "x"); err == nil {
			t.Fatalf("%+v read", bad)
		}
	}
	proofs := []lrat.Proof{{Name: satjob.DescentProof, Refutations: []lrat.Refutation{{Bound: 4}, {Bound: 9}, {Bound: 6}}}}
	if k, ok, err := satjob.DescentRefuted(proofs, "x"); err != nil || !ok || k != 9 {
		t.Fatalf("refuted %d %v %v, want 9", k, ok, err)
	}
	if _, ok, err := satjob.DescentRefuted(nil, "x"); err != nil || ok {
		t.Fatalf("no proof: %v %v", ok, err)
	}
	proofs = append(proofs, lrat.Proof{Name: "nodes3", Refutations: []lrat.Refutation{{Bound: 5}}})
	if _, _, err := satjob.DescentRefuted(proofs, "x"); err == nil || !strings.Contains(err.Error(), "nodes3") {
		t.Fatalf("a proof of another name: %v", err)
	}
}

// TestLastRefuted: a logged refutation is recorded with its assumptions
// and bound; a solver that logs no proof is not certifiable.
func TestLastRefuted(t *testing.T) {
	s := sat.NewCDCL()
	if err := s.StartProof(t.TempDir() + "/p.log"); err != nil {
		t.Fatal(err)
	}
	s.AddClause(1, 2)
	s.AddClause(-1, 2)
	if st, _ := s.Solve(context.Background(), -2); st != sat.Unsatisfiable {
		t.Fatalf("%v", st)
	}
	r, err := satjob.LastRefuted(s, []sat.Lit{-2}, 7)
	if err != nil || r.Bound != 7 || !slices.Equal(r.Assumptions, []sat.Lit{-2}) || r.LogID <= 0 {
		t.Fatalf("%+v %v", r, err)
	}
	plain := sat.NewCDCL()
	plain.AddClause(1)
	plain.AddClause(-1)
	plain.Solve(context.Background())
	if _, err := satjob.LastRefuted(plain, nil, 1); !errors.Is(err, sat.ErrNotCertifiable) {
		t.Fatalf("no proof logged: %v", err)
	}
	var other sat.Solver = recorder{}
	if _, err := satjob.LastRefuted(other, nil, 1); !errors.Is(err, sat.ErrNotCertifiable) {
		t.Fatalf("a solver without proofs: %v", err)
	}
}

// recorder is a Solver that records the clauses it is given and logs no
// proof.
type recorder struct{ clauses *[][]sat.Lit }

func (r recorder) AddClause(lits ...sat.Lit) {
	if r.clauses != nil {
		*r.clauses = append(*r.clauses, slices.Clone(lits))
	}
}
func (recorder) Solve(context.Context, ...sat.Lit) (sat.Status, error) { return sat.Unknown, nil }
func (recorder) Value(sat.Lit) bool                                    { return false }

// TestLoadAndOpen: Load passes every clause in order, or stops at once
// with an ended context's cause; Open loads a formula into the solver
// made, refuses to log a proof of a solver that writes none, and makes
// odtkit's CDCL by default.
func TestLoadAndOpen(t *testing.T) {
	c := &sat.CNF{}
	for range 5 {
		c.Add(c.NewVar(), c.NewVar().Not())
	}
	var got [][]sat.Lit
	if err := satjob.Load(context.Background(), recorder{&got}, c); err != nil || len(got) != c.NumClauses() {
		t.Fatalf("%d clauses loaded of %d: %v", len(got), c.NumClauses(), err)
	}
	for i, cl := range got {
		if !slices.Equal(cl, c.Clause(i)) {
			t.Fatalf("clause %d: %v, want %v", i, cl, c.Clause(i))
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	cancel(stop)
	got = nil
	if err := satjob.Load(ctx, recorder{&got}, c); !errors.Is(err, stop) || len(got) != 0 {
		t.Fatalf("ended context: %v after %d clauses", err, len(got))
	}
	s, err := satjob.Open(context.Background(), nil, c, nil, "p")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*sat.CDCL); !ok {
		t.Fatalf("default solver %T", s)
	}
	if st, _ := s.Solve(context.Background()); st != sat.Satisfiable {
		t.Fatalf("%v", st)
	}
	cert, err := sat.NewCertifier(t.TempDir()+"/cert", false)
	if err != nil {
		t.Fatal(err)
	}
	defer cert.Discard()
	newRecorder := func() (sat.Solver, error) { return recorder{}, nil }
	if _, err := satjob.Open(context.Background(), newRecorder, c, cert, "p"); !errors.Is(err, sat.ErrNotCertifiable) {
		t.Fatalf("a certificate of a solver without proofs: %v", err)
	}
}

// TestSizes: CNFSize and GuardedSize count bytes from the counts, each
// with its own rates; a saturated count is the largest size, which
// Indexable refuses, as it refuses a formula of more than 2^31-1
// variables or clauses.
func TestSizes(t *testing.T) {
	var c backend.Counter
	a := satjob.CNFSize(&c, 10, 100, 250)
	b := satjob.GuardedSize(&c, 10, 100, 250)
	if a.Variables != 10 || a.Constraints != 100 || a.NonZeros != 250 || b.Variables != 10 {
		t.Fatalf("counts %v %v", a, b)
	}
	if a.Bytes <= 0 || b.Bytes <= a.Bytes {
		t.Fatalf("bytes %d (held) and %d (guarded): a guarded formula accounts more per literal and variable", a.Bytes, b.Bytes)
	}
	if d := satjob.CNFSize(&c, 10, 101, 252); d.Bytes-a.Bytes != satjob.BinaryClauseBytes {
		t.Fatalf("a binary clause adds %d bytes, want %d", d.Bytes-a.Bytes, satjob.BinaryClauseBytes)
	}
	if err := satjob.Indexable(a, "f", ""); err != nil {
		t.Fatal(err)
	}
	over := backend.Counter{Over: true}
	if s := satjob.CNFSize(&over, 1, 1, 1); s != satjob.TooLarge() {
		t.Fatalf("saturated: %v", s)
	}
	err := satjob.Indexable(satjob.TooLarge(), "the formula", "lower it")
	if !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "too large to be represented") || !strings.Contains(err.Error(), "(lower it)") {
		t.Fatalf("too large: %v", err)
	}
	wide := backend.Size{Variables: math.MaxInt32 + 1, Constraints: 1, Bytes: 1}
	if err := satjob.Indexable(wide, "the formula", ""); !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "more than a SAT solver can index") {
		t.Fatalf("2^31 variables: %v", err)
	}
}

// TestGuard: a guard accounts the clauses and variables of a growing
// formula in its budget, stops the building once the budget is
// exhausted (an error wrapping model.ErrMemoryLimit) or the context
// ends (its cause), and Release returns what it accounted.
func TestGuard(t *testing.T) {
	budget := backend.NewBudget(8 << 20)
	g := satjob.NewGuard(context.Background(), budget)
	c := &sat.CNF{}
	added := 0
	for range 1 << 20 {
		x, y := c.NewVar(), c.NewVar()
		if !g.Clause(c, 2) {
			break
		}
		c.Add(x, y)
		added++
	}
	if err := g.Err(c); !errors.Is(err, model.ErrMemoryLimit) {
		t.Fatalf("after %d clauses: %v, want the memory limit", added, err)
	}
	if added == 0 || budget.Used() == 0 || budget.Used() > budget.Limit() {
		t.Fatalf("%d clauses, %d bytes in use of %d", added, budget.Used(), budget.Limit())
	}
	if g.Clause(c, 2) {
		t.Fatal("a stopped guard admits a clause")
	}
	g.Release()
	if budget.Used() != 0 {
		t.Fatalf("%d bytes in use after Release", budget.Used())
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	g = satjob.NewGuard(ctx, nil)
	c = &sat.CNF{}
	c.Add(c.NewVar())
	if err := g.Err(c); err != nil {
		t.Fatal(err)
	}
	cancel(stop)
	if err := g.Err(c); !errors.Is(err, stop) {
		t.Fatalf("ended context: %v", err)
	}
}

// TestOptions: the shared options are read as declared, and a
// certificate is refused, as a bad request, of another SAT solver than
// odtkit's CDCL and of an external MaxSAT solver.
func TestOptions(t *testing.T) {
	d := modeltest.Binary(10, 2, 1)
	info := backend.Info{Name: "x", Objectives: []model.Objective{model.MinError}, Params: append([]backend.Param{satjob.SolverParam("once")}, satjob.CertifyParams("more")...)}
	if h := info.Params[1].Help; !strings.HasSuffix(h, "; more") {
		t.Fatalf("certify help %q", h)
	}
	j, err := backend.NewJob(info, d, model.Problem{MaxDepth: 1}, map[string]string{"sat-solver": "gini", sat.CertifyOption: "dir", sat.CertifyForceOption: "true"})
	if err != nil {
		t.Fatal(err)
	}
	o := satjob.JobOptions(j)
	if o != (satjob.Options{Solver: "gini", Certify: "dir", CertifyForce: true}) {
		t.Fatalf("%+v", o)
	}
	if err := o.Certifiable(nil); !errors.Is(err, backend.ErrInvalid) || !errors.Is(err, sat.ErrNotCertifiable) {
		t.Fatalf("gini: %v", err)
	}
	o.Solver = "cdcl"
	if err := o.Certifiable(nil); err != nil {
		t.Fatal(err)
	}
	if err := o.Certifiable([]string{"clasp", "{in}"}); !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "clasp") {
		t.Fatalf("MaxSAT solver: %v", err)
	}
	if _, err := o.NewSolver(); err != nil {
		t.Fatal(err)
	}
}

// TestOutcomeEnded: a failure after the context ended is the outcome so
// far, stopped; any other is the error.
func TestOutcomeEnded(t *testing.T) {
	boom := errors.New("boom")
	o := &satjob.Outcome{Cost: 3}
	if got, err := o.Ended(context.Background(), boom); got != nil || !errors.Is(err, boom) {
		t.Fatalf("%v %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := o.Ended(ctx, boom); got != o || err != nil || !o.Stopped || o.Cost != 3 {
		t.Fatalf("%+v %v", got, err)
	}
}
