package race_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/dp/blossom"
	"github.com/odtkit/odtkit/dp/contree"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/race"
)

// fake is a scripted member.
type fake struct {
	name string
	run  func(ctx context.Context, job *backend.Job) (*model.Result, error)
}

func (f fake) Info() backend.Info {
	return backend.Info{Name: f.name, Description: "scripted test member", Objectives: []model.Objective{model.MinError},
		Input: "binary view", Exact: true, Anytime: true, Caps: backend.Caps{Weights: backend.AnyWeights}}
}

func (f fake) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	return f.run(ctx, job)
}

// data has 10 rows: 6 of class a (x = 0) and 4 of class b (x = 1).
func data() *model.Dataset {
	d := &model.Dataset{Name: "ten", Classes: []string{"a", "b"}, Labels: make([]int, 10)}
	ft := model.Feature{Name: "x", Values: make([]float64, 10)}
	for r := 6; r < 10; r++ {
		d.Labels[r], ft.Values[r] = 1, 1
	}
	d.Features = []model.Feature{ft}
	return d
}

// leaf predicts class c everywhere (errors: 4 for a, 6 for b); split is
// the perfect tree (0 errors).
func leaf(d *model.Dataset, c int) *model.Graph {
	b := model.NewBuilder(d, model.KindTree)
	return b.Graph(b.Leaf(c))
}

func split(d *model.Dataset) *model.Graph {
	b := model.NewBuilder(d, model.KindTree)
	lo, hi := b.Leaf(0), b.Leaf(1)
	return b.Graph(b.Threshold(0, 0.5, lo, hi))
}

// result is a member's answer with model g.
func result(d *model.Dataset, g *model.Graph, lb float64, optimal bool) *model.Result {
	e := g.Errors(d)
	return &model.Result{Model: g, Errors: e, Objective: float64(e), LowerBound: lb, Optimal: optimal}
}

// blocker reports g, then waits for its context and returns g unproved.
func blocker(name string, g func(*model.Dataset) *model.Graph, returned *atomic.Bool) fake {
	return fake{name, func(ctx context.Context, job *backend.Job) (*model.Result, error) {
		m := g(job.Data)
		job.Report.Report(float64(m.Errors(job.Data)), m)
		<-ctx.Done()
		if returned != nil {
			returned.Store(true)
		}
		return result(job.Data, m, 0, false), nil
	}}
}

// prover answers the perfect tree, proved, after a delay.
func prover(name string, delay time.Duration) fake {
	return fake{name, func(ctx context.Context, job *backend.Job) (*model.Result, error) {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return result(job.Data, leaf(job.Data, 0), 0, false), nil
		}
		return result(job.Data, split(job.Data), 0, true), nil
	}}
}

func failing(name string, err error) fake {
	return fake{name, func(context.Context, *backend.Job) (*model.Result, error) { return nil, err }}
}

// solve runs b like the registry does, collecting the incumbents.
func solve(ctx context.Context, t *testing.T, b backend.Backend, d *model.Dataset, p model.Problem, opts map[string]string) (*model.Result, []float64, error) {
	t.Helper()
	job, err := backend.NewJob(b.Info(), d, p, opts)
	if err != nil {
		t.Fatalf("job: %v", err)
	}
	var mu sync.Mutex
	var incs []float64
	job.Report = func(obj float64, g *model.Graph) {
		mu.Lock()
		incs = append(incs, obj)
		mu.Unlock()
	}
	res, err := b.Solve(ctx, job)
	mu.Lock()
	defer mu.Unlock()
	return res, incs, err
}

// memberStatus returns each member's status from Stats["members"].
func memberStatus(t *testing.T, res *model.Result) map[string]string {
	t.Helper()
	ms, ok := res.Stats["members"].([]race.MemberStat)
	if !ok {
		t.Fatalf("Stats[members] is %T", res.Stats["members"])
	}
	out := map[string]string{}
	for _, m := range ms {
		out[m.Name] = m.Status
	}
	return out
}

// settle waits (up to 2 s) for the goroutine count to fall back to n.
func settle(t *testing.T, n int) {
	t.Helper()
	for range 200 {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("goroutines: %d before the race, %d after it", n, runtime.NumGoroutine())
}

func TestAgreesWithMembers(t *testing.T) {
	members := []backend.Backend{dl85.Backend{}, blossom.Backend{}, contree.Backend{}}
	r := race.New("race", members...)
	before := runtime.NumGoroutine()
	defer settle(t, before)
	rng := rand.New(rand.NewPCG(16, 3))
	for i := range 12 {
		n, f, k := 30+rng.IntN(60), 2+rng.IntN(4), 2+rng.IntN(2)
		d := &model.Dataset{Name: fmt.Sprint("gen-", i), Labels: make([]int, n)}
		for c := range k {
			d.Classes = append(d.Classes, fmt.Sprint("c", c))
		}
		for j := range f {
			ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
			for row := range n {
				ft.Values[row] = float64(rng.IntN(3 + j))
			}
			d.Features = append(d.Features, ft)
		}
		for row := range n {
			d.Labels[row] = (int(d.Features[0].Values[row]) + rng.IntN(2)) % k
		}
		p := model.Problem{Objective: model.MinError, MaxDepth: 1 + i%3}
		res, incs, err := solve(context.Background(), t, r, d, p, nil)
		if err != nil || res.Model == nil || !res.Optimal {
			t.Fatalf("%s depth %d: race %+v, %v", d.Name, p.MaxDepth, res, err)
		}
		if e := res.Model.Errors(d); float64(e) != res.Objective || res.LowerBound != res.Objective {
			t.Errorf("%s: race claims %v (bound %v), its model makes %d errors", d.Name, res.Objective, res.LowerBound, e)
		}
		for j := 1; j < len(incs); j++ {
			if incs[j] >= incs[j-1] {
				t.Errorf("%s: incumbents %v do not improve strictly", d.Name, incs)
			}
		}
		if w, _ := res.Stats["winner"].(string); w == "none" || w == "" {
			t.Errorf("%s: optimal, but no winner in %v", d.Name, res.Stats)
		}
		for _, m := range members {
			mr, _, err := solve(context.Background(), t, m, d, p, nil)
			if err != nil || !mr.Optimal {
				t.Fatalf("%s: %s: %+v, %v", d.Name, m.Info().Name, mr, err)
			}
			if mr.Objective != res.Objective {
				t.Errorf("%s depth %d: race %v, %s %v", d.Name, p.MaxDepth, res.Objective, m.Info().Name, mr.Objective)
			}
		}
	}
}

func TestFailingMembersDoNotStopTheRace(t *testing.T) {
	before := runtime.NumGoroutine()
	panicky := fake{"panicky", func(context.Context, *backend.Job) (*model.Result, error) { panic("member bug") }}
	liar := fake{"liar", func(_ context.Context, job *backend.Job) (*model.Result, error) {
		r := result(job.Data, leaf(job.Data, 1), 0, true)
		r.Objective = 0 // its model makes 6 errors
		return r, nil
	}}
	r := race.New("race", failing("broken", errors.New("solver exploded")), panicky, liar, prover("good", 20*time.Millisecond))
	d := data()
	res, incs, err := solve(context.Background(), t, r, d, model.Problem{MaxDepth: 1}, nil)
	if err != nil {
		t.Fatalf("a race with one good member failed: %v", err)
	}
	if !res.Optimal || res.Objective != 0 || res.Model.Errors(d) != 0 || res.Stats["winner"] != "good" {
		t.Errorf("want the good member's proof, got %+v", res)
	}
	if len(incs) != 1 || incs[0] != 0 {
		t.Errorf("incumbents %v, want [0] (the liar's claim is not forwarded)", incs)
	}
	st := memberStatus(t, res)
	for _, n := range []string{"broken", "panicky", "liar"} {
		if st[n] != "error" {
			t.Errorf("member %s: status %q, want error (all: %v)", n, st[n], st)
		}
	}
	settle(t, before)
}

func TestEveryMemberFails(t *testing.T) {
	r := race.New("race", failing("a", errors.New("first failure")), failing("b", fmt.Errorf("cache: %w", model.ErrMemoryLimit)))
	_, _, err := solve(context.Background(), t, r, data(), model.Problem{MaxDepth: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "first failure") || !errors.Is(err, model.ErrMemoryLimit) {
		t.Errorf("err = %v, want both members' errors (memory limit kept for errors.Is)", err)
	}
}

func TestFirstProofStopsTheOthers(t *testing.T) {
	before := runtime.NumGoroutine()
	var returned atomic.Bool
	r := race.New("race", blocker("slow", func(d *model.Dataset) *model.Graph { return leaf(d, 0) }, &returned),
		prover("fast", 50*time.Millisecond))
	start := time.Now()
	res, incs, err := solve(context.Background(), t, r, data(), model.Problem{MaxDepth: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the race took %v after a proof at 50ms", took)
	}
	if !returned.Load() {
		t.Error("the race returned before its stopped member did")
	}
	if !res.Optimal || res.Objective != 0 || res.Stats["winner"] != "fast" {
		t.Errorf("want fast's proof, got %+v", res)
	}
	if st := memberStatus(t, res); st["slow"] != "stopped" || st["fast"] != "optimal" {
		t.Errorf("member statuses %v", st)
	}
	if want := []float64{4, 0}; fmt.Sprint(incs) != fmt.Sprint(want) {
		t.Errorf("incumbents %v, want %v", incs, want)
	}
	settle(t, before)
}

func TestCancelReturnsTheBestIncumbent(t *testing.T) {
	before := runtime.NumGoroutine()
	r := race.New("race", blocker("worse", func(d *model.Dataset) *model.Graph { return leaf(d, 1) }, nil),
		blocker("better", func(d *model.Dataset) *model.Graph { return leaf(d, 0) }, nil))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res, incs, err := solve(ctx, t, r, data(), model.Problem{MaxDepth: 1}, nil)
	if over := time.Since(start) - 200*time.Millisecond; over > time.Second {
		t.Errorf("returned %v after the cancel", over)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Optimal || res.Objective != 4 || res.Model == nil || res.Model.Errors(data()) != 4 || res.Stats["winner"] != "none" {
		t.Errorf("want the best incumbent (4 errors) unproved, got %+v", res)
	}
	for j := 1; j < len(incs); j++ {
		if incs[j] >= incs[j-1] {
			t.Errorf("incumbents %v do not improve strictly", incs)
		}
	}
	if st := memberStatus(t, res); st["worse"] != "cancelled" || st["better"] != "cancelled" {
		t.Errorf("member statuses %v", st)
	}
	settle(t, before)
}

func TestBoundsCombine(t *testing.T) {
	// One member has the perfect tree without a proof; the other has
	// proved nothing but a bound of 0 on a tree of 4 errors: together
	// the best tree meets the best bound.
	d := data()
	a := fake{"tree", func(_ context.Context, job *backend.Job) (*model.Result, error) {
		return result(job.Data, split(job.Data), -1, false), nil
	}}
	b := fake{"bound", func(_ context.Context, job *backend.Job) (*model.Result, error) {
		return result(job.Data, leaf(job.Data, 0), 0, false), nil
	}}
	res, _, err := solve(context.Background(), t, race.New("race", a, b), d, model.Problem{MaxDepth: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Optimal || res.Objective != 0 || res.LowerBound != 0 || res.Stats["winner"] != "bound" {
		t.Errorf("want an optimum closed by the bounds, got %+v", res)
	}
	// Bounds 2 and 3 below a best tree of 4: the larger one is reported.
	lb := func(name string, v float64) fake {
		return fake{name, func(_ context.Context, job *backend.Job) (*model.Result, error) {
			return result(job.Data, leaf(job.Data, 0), v, false), nil
		}}
	}
	res, _, err = solve(context.Background(), t, race.New("race", lb("two", 2), lb("three", 3)), d, model.Problem{MaxDepth: 1}, nil)
	if err != nil || res.Optimal || res.LowerBound != 3 || res.Objective != 4 {
		t.Errorf("want objective 4, bound 3, not optimal; got %+v, %v", res, err)
	}
}

func TestMembersOption(t *testing.T) {
	r := race.New("race", dl85.Backend{}, blossom.Backend{}, contree.Backend{})
	d := data()
	p := model.Problem{MaxDepth: 1}
	for _, bad := range []string{"dl85,nope", "dl85,dl85", "cart"} {
		_, err := backend.NewJob(r.Info(), d, p, map[string]string{"members": bad})
		if !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "members") {
			t.Errorf("members=%s: %v, want an invalid-option error naming members", bad, err)
		}
	}
	// Minimum support: only dl85 takes it; a race of blossom alone cannot.
	ms := model.Problem{MaxDepth: 1, MinSupport: 3}
	job, err := backend.NewJob(r.Info(), d, ms, map[string]string{"members": "blossom"})
	if err != nil {
		t.Fatalf("the race declares minimum support: %v", err)
	}
	if _, err := r.Solve(context.Background(), job); !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "minimum leaf support") {
		t.Errorf("blossom alone under a minimum support: %v, want an invalid request saying why", err)
	}
	res, _, err := solve(context.Background(), t, r, d, ms, nil)
	if err != nil || !res.Optimal || res.Stats["winner"] != "dl85" {
		t.Errorf("minimum support with every member: %+v, %v (want dl85's proof)", res, err)
	}
	if st := memberStatus(t, res); len(st) != 1 {
		t.Errorf("members run: %v, want dl85 only", st)
	}
}

func TestNewPanicsOnABadList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []backend.Backend
	}{{"", []backend.Backend{dl85.Backend{}}}, {"race", nil}, {"race", []backend.Backend{dl85.Backend{}, dl85.Backend{}}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%q, %d members) did not panic", tc.name, len(tc.members))
				}
			}()
			race.New(tc.name, tc.members...)
		}()
	}
}

// TestConformance runs the backend contract suite on a race of the real
// error members, so that `go test -race` exercises them running at once.
func TestConformance(t *testing.T) {
	c := backendtest.Config{VaryingModel: true}
	if testing.Short() {
		c.Brute = 3
	}
	backendtest.Run(t, race.New("race", dl85.Backend{}, blossom.Backend{}, contree.Backend{}), c)
}
