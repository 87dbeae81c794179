package odtkit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// fakeBackend answers with whatever solve returns; it records the job.
type fakeBackend struct {
	info  Info
	solve func(ctx context.Context, job Job) (*model.Result, error)
	got   *Job
}

func (f *fakeBackend) Info() Info { return f.info }

func (f *fakeBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	f.got = &job
	return f.solve(ctx, job)
}

func fake(name string, solve func(ctx context.Context, job Job) (*model.Result, error), objectives ...model.Objective) *fakeBackend {
	if len(objectives) == 0 {
		objectives = []model.Objective{model.MinError}
	}
	return &fakeBackend{info: Info{Name: name, Objectives: objectives, Params: []Param{{Name: "k", Default: "1"}}}, solve: solve}
}

// tiny: x in {0,1,2,3}, label = x >= 2 except row 4 (x = 3, label 0).
func tiny() *model.Dataset {
	return &model.Dataset{Name: "tiny", Classes: []string{"0", "1"},
		Features: []model.Feature{{Name: "x", Values: []float64{0, 1, 2, 3, 3}}, {Name: "b", Values: []float64{0, 1, 0, 1, 0}}},
		Labels:   []int{0, 0, 1, 1, 0}}
}

// stump is x <= 1.5 → 0 else 1: one error (row 4), depth 1, 3 nodes.
func stump(d *model.Dataset) *model.Graph {
	b := model.NewBuilder(d, model.KindTree)
	return b.Graph(b.Threshold(0, 1.5, b.Leaf(0), b.Leaf(1)))
}

// deep is a depth-2 consistent tree: x <= 1.5 → 0; else b <= 0.5 → (x <= 2.5 → 1 else 0)... kept simple:
// x <= 1.5 → 0, else (x <= 2.5 → 1, else (b <= 0.5 → 0, else 1)): depth 3, no error.
func deep(d *model.Dataset) *model.Graph {
	b := model.NewBuilder(d, model.KindTree)
	inner := b.Threshold(1, 0.5, b.Leaf(0), b.Leaf(1))
	mid := b.Threshold(0, 2.5, b.Leaf(1), inner)
	return b.Graph(b.Threshold(0, 1.5, b.Leaf(0), mid))
}

func answer(res *model.Result) func(context.Context, Job) (*model.Result, error) {
	return func(context.Context, Job) (*model.Result, error) { return res, nil }
}

func TestSolveHonestBackend(t *testing.T) {
	d := tiny()
	g := stump(d)
	fb := fake("honest", func(_ context.Context, job Job) (*model.Result, error) {
		job.Report.Report(2, deep(d)) // an objective 2 first
		job.Report.Report(1, g)
		return &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 1, Optimal: true}, nil
	})
	var seen []float64
	res, err := NewRegistry(fb).Solve(context.Background(), d, model.Problem{MaxDepth: 2},
		Settings{Backend: "honest", Options: Options{"k": "5"}, Seed: 9, Threads: 2, MemoryLimitMB: 100,
			OnIncumbent: func(inc model.Incumbent) { seen = append(seen, inc.Objective) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "honest" || res.Rows != 5 || res.Status != model.StatusOptimal || res.Problem.Objective != model.MinError || res.Problem.MinSupport != 1 {
		t.Errorf("result %+v", res)
	}
	if len(res.Incumbents) != 2 || len(seen) != 2 || seen[0] != 2 || seen[1] != 1 {
		t.Errorf("incumbents %+v, callback saw %v", res.Incumbents, seen)
	}
	if j := fb.got; j.Options["k"] != "5" || j.Seed != 9 || j.Threads != 2 || j.MemoryLimitMB != 100 || j.Problem.MaxDepth != 2 {
		t.Errorf("job %+v", j)
	}
}

func TestSolveRejectsLiars(t *testing.T) {
	d := tiny()
	g, dg := stump(d), deep(d)
	cyclic := &model.Graph{Kind: model.KindDiagram, Features: []string{"x", "b"}, Classes: []string{"0", "1"},
		Nodes: []model.Node{{Feature: 0, Low: 0, High: 1}, {Leaf: true, Feature: -1}}}
	cases := []struct {
		name string
		p    model.Problem
		res  *model.Result
		obj  model.Objective
		msg  string
	}{
		{"errors", model.Problem{MaxDepth: 2}, &model.Result{Model: g, Errors: 0, Objective: 1}, model.MinError, "claims 0 errors"},
		{"objective", model.Problem{MaxDepth: 2}, &model.Result{Model: g, Errors: 1, Objective: 0}, model.MinError, "objective 0"},
		{"depth", model.Problem{MaxDepth: 2}, &model.Result{Model: dg, Errors: 0, Objective: 0}, model.MinError, "depth 3 exceeds"},
		{"lower bound", model.Problem{MaxDepth: 2}, &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 2}, model.MinError, "lower bound"},
		{"min support", model.Problem{MaxDepth: 2, MinSupport: 3}, &model.Result{Model: g, Errors: 1, Objective: 1}, model.MinError, "minimum support"},
		{"max nodes", model.Problem{MaxDepth: 2, MaxNodes: 2}, &model.Result{Model: g, Errors: 1, Objective: 1}, model.MinError, "nodes"},
		{"invalid model", model.Problem{MaxDepth: 2}, &model.Result{Model: cyclic, Errors: 0}, model.MinError, "invalid model"},
		{"min-depth errors", model.Problem{Objective: model.MinDepth}, &model.Result{Model: g, Errors: 1, Objective: 1}, model.MinDepth, "consistent"},
		{"min-depth depth", model.Problem{Objective: model.MinDepth}, &model.Result{Model: dg, Errors: 0, Objective: 2}, model.MinDepth, "depth 3"},
		{"min-size size", model.Problem{Objective: model.MinSize}, &model.Result{Model: dg, Errors: 0, Objective: 5}, model.MinSize, "has 7"},
		// Objective 18: alpha × (internal nodes − 1)/(skeleton nodes − 1),
		// not alpha × internal nodes (which would give 0.3).
		{"diagram objective", model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2, 2}, Alpha: 0.1},
			&model.Result{Model: dg, Errors: 0, Objective: 0.3}, model.DiagramError, "is 0.05"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRegistry(fake("liar", answer(c.res), c.obj))
			res, err := r.Solve(context.Background(), d, c.p, Settings{Backend: "liar"})
			if !errors.Is(err, ErrVerification) {
				t.Fatalf("Solve = %+v, %v; want ErrVerification", res, err)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "liar: ") {
				t.Errorf("error %q should name the backend and mention %q", err, c.msg)
			}
		})
	}
	// The honest counterparts pass.
	for _, ok := range []struct {
		p   model.Problem
		res *model.Result
		obj model.Objective
	}{
		{model.Problem{Objective: model.MinDepth}, &model.Result{Model: dg, Objective: 3}, model.MinDepth},
		{model.Problem{Objective: model.MinSize}, &model.Result{Model: dg, Objective: 7}, model.MinSize},
		{model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2, 2}, Alpha: 0.1}, &model.Result{Model: dg, Objective: 0.05}, model.DiagramError},
		{model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}, Alpha: 0.1}, &model.Result{Model: g, Errors: 1, Objective: 0.2}, model.DiagramError},
	} {
		if _, err := NewRegistry(fake("ok", answer(ok.res), ok.obj)).Solve(context.Background(), d, ok.p, Settings{Backend: "ok"}); err != nil {
			t.Errorf("%s: %v", ok.obj, err)
		}
	}
}

func TestSolveRejectsBadRequests(t *testing.T) {
	d := tiny()
	ok := fake("ok", answer(&model.Result{Model: stump(d), Errors: 1, Objective: 1}))
	r := NewRegistry(ok)
	cases := []struct {
		name string
		d    *model.Dataset
		p    model.Problem
		s    Settings
		msg  string
	}{
		{"unknown option", d, model.Problem{MaxDepth: 1}, Settings{Backend: "ok", Options: Options{"k": "1", "rule": "x"}}, "has no option rule (it knows: k)"},
		{"unknown backend", d, model.Problem{}, Settings{Backend: "nope"}, `unknown backend "nope"`},
		{"objective not solved", d, model.Problem{Objective: model.MinDepth}, Settings{Backend: "ok"}, "does not solve"},
		{"bad problem", d, model.Problem{MaxDepth: -1}, Settings{Backend: "ok"}, "max depth -1"},
		{"bad data", &model.Dataset{Name: "empty"}, model.Problem{}, Settings{Backend: "ok"}, "no rows"},
		{"auto finds none", d, model.Problem{Objective: model.MinSize}, Settings{}, "no registered backend"},
	}
	for _, c := range cases {
		_, err := r.Solve(context.Background(), c.d, c.p, c.s)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v; want ErrInvalid mentioning %q", c.name, err, c.msg)
		}
	}
	if _, err := r.Solve(context.Background(), d, model.Problem{}, Settings{Backend: "nope"}); !errors.Is(err, ErrUnknownBackend) {
		t.Errorf("unknown backend: %v", err)
	}
	// An option value the backend cannot parse is a bad request too.
	parse := fake("parse", func(_ context.Context, job Job) (*model.Result, error) {
		_, err := job.Options.Int("k", 1)
		return nil, err
	})
	_, err := NewRegistry(parse).Solve(context.Background(), d, model.Problem{}, Settings{Options: Options{"k": "many"}, Backend: "parse"})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("bad option value: %v, want ErrInvalid", err)
	}
	// A backend failure is not a bad request.
	broken := fake("broken", func(context.Context, Job) (*model.Result, error) { return nil, errors.New("out of cheese") })
	_, err = NewRegistry(broken).Solve(context.Background(), d, model.Problem{}, Settings{Backend: "broken"})
	if err == nil || errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "broken: out of cheese") {
		t.Errorf("backend failure: %v", err)
	}
	silent := fake("silent", answer(nil))
	if _, err = NewRegistry(silent).Solve(context.Background(), d, model.Problem{}, Settings{Backend: "silent"}); err == nil {
		t.Error("a nil result without error was accepted")
	}
}

func TestAuto(t *testing.T) {
	none := func(context.Context, Job) (*model.Result, error) { return nil, errors.New("unused") }
	r := NewRegistry(fake("cart", none), fake("dl85", none), fake("contree", none), fake("sat-depth", none, model.MinDepth))
	binary := tiny()
	binary.Features = binary.Features[1:]
	weighted := tiny()
	weighted.Weights = []float64{1, 2, 1, 1, 3}
	for _, c := range []struct {
		d    *model.Dataset
		p    model.Problem
		want string
	}{
		{binary, model.Problem{}, "dl85"},
		{tiny(), model.Problem{}, "contree"},
		{weighted, model.Problem{}, "dl85"}, // contree takes no weights
		{tiny(), model.Problem{Objective: model.MinDepth}, "sat-depth"},
	} {
		got, err := r.Auto(c.d, c.p)
		if err != nil || got != c.want {
			t.Errorf("Auto(%+v) = %q, %v; want %q", c.p, got, err, c.want)
		}
	}
	if got, err := NewRegistry(fake("cart", none)).Auto(tiny(), model.Problem{}); got != "cart" || err != nil {
		t.Errorf("only cart: %q %v", got, err)
	}
	if _, err := r.Auto(tiny(), model.Problem{Objective: model.DiagramError}); err == nil {
		t.Error("Auto found a diagram backend that is not registered")
	}
	// A backend named without an objective solves its main one.
	sat := fake("sat-depth", func(_ context.Context, job Job) (*model.Result, error) {
		return nil, errors.New(string(job.Problem.Objective))
	}, model.MinDepth)
	_, err := NewRegistry(sat).Solve(context.Background(), tiny(), model.Problem{}, Settings{Backend: "sat-depth"})
	if err == nil || !strings.Contains(err.Error(), "min-depth") {
		t.Errorf("backend's main objective: %v", err)
	}
}

// slowBackend reports an incumbent, then waits for its context and
// returns that model, not optimal, with the context's deadline seen.
func slowBackend(d *model.Dataset, deadline *time.Time) *fakeBackend {
	return fake("slow", func(ctx context.Context, job Job) (*model.Result, error) {
		if dl, ok := ctx.Deadline(); ok {
			*deadline = dl
		}
		g := stump(d)
		job.Report.Report(1, g)
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Second):
			return nil, errors.New("the context never ended")
		}
		return &model.Result{Model: g, Errors: 1, Objective: 1, LowerBound: 0}, nil
	})
}

func TestTimeLimitReachesBackend(t *testing.T) {
	d := tiny()
	var deadline time.Time
	start := time.Now()
	res, err := NewRegistry(slowBackend(d, &deadline)).Solve(context.Background(), d, model.Problem{MaxDepth: 1},
		Settings{Backend: "slow", TimeLimit: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if deadline.IsZero() || deadline.Sub(start) > 50*time.Millisecond+time.Second {
		t.Errorf("the backend's context deadline %v is not the time limit (start %v)", deadline, start)
	}
	if res.Status != model.StatusTimeLimit || res.Optimal || res.Model == nil || len(res.Incumbents) != 1 {
		t.Errorf("result after the time limit: %+v", res)
	}
	// Cancelling the caller's context: status cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	res, err = NewRegistry(slowBackend(d, &deadline)).Solve(ctx, d, model.Problem{MaxDepth: 1}, Settings{Backend: "slow"})
	if err != nil || res.Status != model.StatusCancelled {
		t.Errorf("cancelled: %+v, %v", res, err)
	}
}

func TestRegistry(t *testing.T) {
	none := answer(nil)
	r := NewRegistry(fake("a", none), fake("b", none))
	if err := r.Add(fake("a", none)); err == nil {
		t.Error("duplicate name accepted")
	}
	if err := r.Add(fake("auto", none)); err == nil {
		t.Error(`the name "auto" accepted`)
	}
	if err := r.Add(fake("", none)); err == nil {
		t.Error("empty name accepted")
	}
	if l := r.List(); len(l) != 2 || l[0].Name != "a" || l[1].Name != "b" {
		t.Errorf("List = %+v", l)
	}
	if _, ok := r.Get("b"); !ok {
		t.Error("Get(b)")
	}
	names := map[string]bool{}
	for _, in := range DefaultRegistry().List() {
		if names[in.Name] || in.Description == "" || len(in.Objectives) == 0 {
			t.Errorf("default registry entry %+v", in)
		}
		names[in.Name] = true
	}
	if !names["cart"] {
		t.Error("cart not in the default registry")
	}
}

func TestOptions(t *testing.T) {
	o := Options{"i": " 3", "f": "0.5", "b": "off", "d": "1m", "bad": "x"}
	if v, err := o.Int("i", 0); v != 3 || err != nil {
		t.Errorf("Int %v %v", v, err)
	}
	if v, err := o.Float("f", 0); v != 0.5 || err != nil {
		t.Errorf("Float %v %v", v, err)
	}
	if v, err := o.Bool("b", true); v || err != nil {
		t.Errorf("Bool %v %v", v, err)
	}
	if v, err := o.Duration("d", 0); v != time.Minute || err != nil {
		t.Errorf("Duration %v %v", v, err)
	}
	if v, _ := o.Int("missing", 7); v != 7 || o.String("missing", "z") != "z" || o.String("bad", "") != "x" {
		t.Error("defaults")
	}
	for _, f := range []func() error{
		func() error { _, err := o.Int("bad", 0); return err },
		func() error { _, err := o.Float("bad", 0); return err },
		func() error { _, err := o.Bool("bad", false); return err },
		func() error { _, err := o.Duration("bad", 0); return err },
	} {
		if err := f(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `bad="x"`) {
			t.Errorf("parse error %v", err)
		}
	}
}
