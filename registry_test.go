package odtkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// fakeBackend answers with whatever solve returns; it records the job.
type fakeBackend struct {
	info  backend.Info
	solve func(ctx context.Context, job *backend.Job) (*model.Result, error)
	got   *backend.Job
}

func (f *fakeBackend) Info() backend.Info { return f.info }

func (f *fakeBackend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	f.got = job
	return f.solve(ctx, job)
}

func fake(name string, solve func(ctx context.Context, job *backend.Job) (*model.Result, error), objectives ...model.Objective) *fakeBackend {
	if len(objectives) == 0 {
		objectives = []model.Objective{model.MinError}
	}
	return &fakeBackend{info: backend.Info{Name: name, Objectives: objectives,
		Caps:   backend.Caps{MaxNodes: true, LeafCost: true, MinSupport: true, Weights: backend.AnyWeights},
		Params: []backend.Param{backend.IntParam("k", 1, "a number").AtLeast(0)}}, solve: solve}
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

func answer(res *model.Result) func(context.Context, *backend.Job) (*model.Result, error) {
	return func(context.Context, *backend.Job) (*model.Result, error) { return res, nil }
}

func TestSolveHonestBackend(t *testing.T) {
	d := tiny()
	g := stump(d)
	fb := fake("honest", func(_ context.Context, job *backend.Job) (*model.Result, error) {
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
	if j := fb.got; j.Options.Int("k") != 5 || j.Seed != 9 || j.Threads != 2 || j.Budget.Limit() != 100<<20 || j.Problem.MaxDepth != 2 {
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
		// MaxNodes counts internal nodes: the stump (1 test) fits a limit
		// of 1, the depth-3 tree does not fit 2.
		{"max nodes", model.Problem{MaxDepth: 3, MaxNodes: 2}, &model.Result{Model: dg, Errors: 0, Objective: 0}, model.MinError, "internal nodes"},
		// The sparse objective is errors/rows + λ·leaves: 1/5 + 0.1×2.
		{"leaf cost", model.Problem{MaxDepth: 2, LeafCost: 0.1}, &model.Result{Model: g, Errors: 1, Objective: 1}, model.MinError, "objective is 0.4"},
		{"invalid model", model.Problem{MaxDepth: 2}, &model.Result{Model: cyclic, Errors: 0}, model.MinError, "invalid model"},
		{"min-depth errors", model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}, &model.Result{Model: g, Errors: 1, Objective: 1}, model.MinDepth, "consistent"},
		{"min-depth depth", model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}, &model.Result{Model: dg, Errors: 0, Objective: 2}, model.MinDepth, "objective is 3"},
		{"min-size size", model.Problem{Objective: model.MinSize, MaxDepth: model.NoDepthLimit}, &model.Result{Model: dg, Errors: 0, Objective: 5}, model.MinSize, "objective is 7"},
		// Objective 18: alpha × (internal nodes − 1)/(skeleton nodes − 1),
		// not alpha × internal nodes (which would give 0.3).
		{"diagram objective", model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2, 2}, Alpha: 0.1},
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
		{model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}, &model.Result{Model: dg, Objective: 3}, model.MinDepth},
		{model.Problem{Objective: model.MinSize, MaxDepth: model.NoDepthLimit}, &model.Result{Model: dg, Objective: 7}, model.MinSize},
		{model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2, 2}, Alpha: 0.1}, &model.Result{Model: dg, Objective: 0.05}, model.DiagramError},
		{model.Problem{Objective: model.DiagramError, MaxDepth: model.NoDepthLimit, Skeleton: []int{1, 2}, Alpha: 0.1}, &model.Result{Model: g, Errors: 1, Objective: 0.2}, model.DiagramError},
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
		{"bad problem", d, model.Problem{MaxDepth: -2}, Settings{Backend: "ok"}, "max depth -2"},
		{"error objective without a depth", d, model.Problem{MaxDepth: model.NoDepthLimit}, Settings{Backend: "ok"}, "needs a maximum depth"},
		{"zero problem", d, model.Problem{}, Settings{Backend: "ok"}, "states no objective"},
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
	// An option value of the wrong kind or out of range is refused before
	// the backend runs.
	for _, v := range []string{"many", "-1", "1.5"} {
		parse := fake("parse", func(_ context.Context, job *backend.Job) (*model.Result, error) {
			t.Errorf("k=%s: the backend ran", v)
			return nil, errors.New("ran")
		})
		_, err := NewRegistry(parse).Solve(context.Background(), d, model.Problem{MaxDepth: 1}, Settings{Options: Options{"k": v}, Backend: "parse"})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "option k=") {
			t.Errorf("bad option value %s: %v, want ErrInvalid naming the option", v, err)
		}
	}
	var err error
	// A backend failure is not a bad request.
	broken := fake("broken", func(context.Context, *backend.Job) (*model.Result, error) { return nil, errors.New("out of cheese") })
	_, err = NewRegistry(broken).Solve(context.Background(), d, model.Problem{MaxDepth: 1}, Settings{Backend: "broken"})
	if err == nil || errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "broken: out of cheese") {
		t.Errorf("backend failure: %v", err)
	}
	silent := fake("silent", answer(nil))
	if _, err = NewRegistry(silent).Solve(context.Background(), d, model.Problem{MaxDepth: 1}, Settings{Backend: "silent"}); err == nil {
		t.Error("a nil result without error was accepted")
	}
}

func TestAuto(t *testing.T) {
	none := func(context.Context, *backend.Job) (*model.Result, error) { return nil, errors.New("unused") }
	contree := fake("contree", none)
	contree.info.Caps.Weights = backend.WholeWeights
	contree.info.Caps.MaxRepeatedRows = 1000
	r := NewRegistry(fake("cart", none), fake("dl85", none), contree, fake("sat-depth", none, model.MinDepth))
	binary := tiny()
	binary.Features = binary.Features[1:]
	weighted := tiny()
	weighted.Weights = []float64{1, 2, 1, 1, 3}
	fractional := tiny()
	fractional.Weights = []float64{1, 2.5, 1, 1, 3}
	heavy := tiny()
	heavy.Weights = []float64{1, 2, 1e9, 1, 3}
	for _, c := range []struct {
		d    *model.Dataset
		p    model.Problem
		want string
	}{
		{binary, model.Problem{}, "dl85"},
		{tiny(), model.Problem{}, "contree"},
		{weighted, model.Problem{}, "contree"},
		{fractional, model.Problem{}, "dl85"}, // contree takes whole weights only
		{heavy, model.Problem{}, "dl85"},      // too many rows once repeated
		{tiny(), model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}, "sat-depth"},
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
	sat := fake("sat-depth", func(_ context.Context, job *backend.Job) (*model.Result, error) {
		return nil, errors.New(string(job.Problem.Objective))
	}, model.MinDepth)
	_, err := NewRegistry(sat).Solve(context.Background(), tiny(), model.Problem{MaxDepth: model.NoDepthLimit}, Settings{Backend: "sat-depth"})
	if err == nil || !strings.Contains(err.Error(), "min-depth") {
		t.Errorf("backend's main objective: %v", err)
	}
}

// slowBackend reports an incumbent, then waits for its context and
// returns that model, not optimal, with the context's deadline seen.
func slowBackend(d *model.Dataset, deadline *time.Time) *fakeBackend {
	return fake("slow", func(ctx context.Context, job *backend.Job) (*model.Result, error) {
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
	if err := r.Alias("first", "a"); err != nil {
		t.Error(err)
	}
	if b, ok := r.Get("first"); !ok || b.Info().Name != "a" {
		t.Error("Get(alias)")
	}
	if r.Alias("x", "missing") == nil || r.Alias("b", "a") == nil {
		t.Error("alias of an unknown backend, or over a backend's name, accepted")
	}
}

func TestSolveNilDataAndPanics(t *testing.T) {
	r := NewRegistry(fake("boom", func(context.Context, *backend.Job) (*model.Result, error) { panic("index out of range") }))
	if _, err := r.Solve(context.Background(), nil, model.Problem{}, Settings{Backend: "boom"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil data: %v, want ErrInvalid", err)
	}
	_, err := r.Solve(context.Background(), tiny(), model.Problem{MaxDepth: 1}, Settings{Backend: "boom"})
	if err == nil || errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("a panicking backend: %v", err)
	}
}

func TestUnsupportedProblemFieldsRefused(t *testing.T) {
	d := tiny()
	plain := fake("plain", func(context.Context, *backend.Job) (*model.Result, error) {
		t.Error("the backend ran")
		return nil, errors.New("ran")
	})
	plain.info.Caps = backend.Caps{}
	weighted := tiny()
	weighted.Weights = []float64{1, 1, 2, 1, 1}
	for _, c := range []struct {
		d   *model.Dataset
		p   model.Problem
		msg string
	}{
		{d, model.Problem{MaxDepth: 2, MaxNodes: 3}, "node limit"},
		{d, model.Problem{MaxDepth: 2, LeafCost: 0.1}, "leaf cost"},
		{d, model.Problem{MaxDepth: 2, MinSupport: 2}, "minimum leaf support"},
		{weighted, model.Problem{MaxDepth: 2}, "row weights"},
		{d, model.Problem{MaxDepth: 2, Alpha: 0.5}, "alpha"},
	} {
		_, err := NewRegistry(plain).Solve(context.Background(), c.d, c.p, Settings{Backend: "plain"})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want ErrInvalid mentioning %q", c.p, err, c.msg)
		}
	}
	depth := fake("depth", answer(nil), model.MinDepth)
	if _, err := NewRegistry(depth).Solve(context.Background(), d, model.Problem{Objective: model.MinDepth, MaxDepth: 3}, Settings{Backend: "depth"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "does not apply") {
		t.Errorf("a depth limit for min-depth: %v", err)
	}
}

// TestMemoryLimit: a backend that keeps allocating past the cap is
// stopped through its context, and the solve ends with status
// memory-limit and the backend's best model; a backend whose accounting
// refuses an allocation ends the same way with its last incumbent.
func TestMemoryLimit(t *testing.T) {
	d := tiny()
	hog := fake("hog", func(ctx context.Context, job *backend.Job) (*model.Result, error) {
		g := stump(d)
		job.Report.Report(1, g)
		var keep [][]byte
		for ctx.Err() == nil && len(keep) < 4096 {
			keep = append(keep, make([]byte, 1<<20))
			time.Sleep(time.Millisecond)
		}
		if ctx.Err() == nil {
			return nil, errors.New("4 GiB allocated and never stopped")
		}
		return &model.Result{Model: g, Errors: 1, Objective: 1, Stats: map[string]any{"held_mb": len(keep)}}, nil
	})
	res, err := NewRegistry(hog).Solve(context.Background(), d, model.Problem{MaxDepth: 1}, Settings{Backend: "hog", MemoryLimitMB: 64})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != model.StatusMemory || res.Model == nil || res.Optimal {
		t.Errorf("hog: status %s, optimal %v, model %v", res.Status, res.Optimal, res.Model != nil)
	}
	if held := res.Stats["held_mb"].(int); held > 1024 {
		t.Errorf("stopped only after %d MiB under a 64 MiB cap", held)
	}
	refuse := fake("refuse", func(ctx context.Context, job *backend.Job) (*model.Result, error) {
		job.Report.Report(2, deep(d))
		job.Report.Report(1, stump(d))
		if err := job.Budget.Reserve(1<<40, "a table"); err != nil {
			return nil, fmt.Errorf("depth-2 step: %w", err)
		}
		return nil, errors.New("a 1 TiB reservation was granted under a 64 MiB cap")
	})
	res, err = NewRegistry(refuse).Solve(context.Background(), d, model.Problem{MaxDepth: 3}, Settings{Backend: "refuse", MemoryLimitMB: 64})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != model.StatusMemory || res.Model == nil || res.Errors != 1 || res.Objective != 1 || res.Optimal {
		t.Errorf("refused reservation: %+v", res)
	}
}

// exporter is a fake backend with a formulation: it writes the rows'
// count and decodes a solution naming the stump's errors.
type exporter struct{ *fakeBackend }

func (exporter) ExportFormat() string { return "text" }

func (exporter) Export(_ context.Context, w io.Writer, job *backend.Job) error {
	_, err := fmt.Fprintf(w, "rows %d depth %d\n", job.Data.Rows(), job.Problem.MaxDepth)
	return err
}

func (exporter) Decode(_ context.Context, job *backend.Job, r io.Reader) (*model.Result, error) {
	var errs int
	if _, err := fmt.Fscan(r, &errs); err != nil {
		return nil, fmt.Errorf("solution: %w", err)
	}
	return &model.Result{Model: stump(job.Data), Errors: errs, Objective: float64(errs)}, nil
}

func TestExportDecode(t *testing.T) {
	d := tiny()
	e := exporter{fake("formula", answer(nil))}
	r := NewRegistry(e, fake("plain", answer(nil)))
	if err := r.Alias("f", "formula"); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	format, err := r.Export(context.Background(), &buf, d, model.Problem{MaxDepth: 2}, Settings{Backend: "f"})
	if err != nil || format != "text" || buf.String() != "rows 5 depth 2\n" {
		t.Errorf("Export = %q, %q, %v", format, buf.String(), err)
	}
	if _, err := r.Export(context.Background(), &buf, d, model.Problem{MaxDepth: 2}, Settings{Backend: "plain"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "[formula]") {
		t.Errorf("export from a backend without a formulation: %v", err)
	}
	if _, err := r.Export(context.Background(), &buf, d, model.Problem{MaxDepth: 2}, Settings{Backend: "f", Options: Options{"zz": "1"}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("export with an unknown option: %v", err)
	}
	res, err := r.Decode(context.Background(), strings.NewReader("1"), d, model.Problem{MaxDepth: 2}, Settings{Backend: "formula"})
	if err != nil || res.Errors != 1 || res.Backend != "formula" || res.Status != model.StatusFeasible {
		t.Errorf("Decode = %+v, %v", res, err)
	}
	if _, err := r.Decode(context.Background(), strings.NewReader("0"), d, model.Problem{MaxDepth: 2}, Settings{Backend: "formula"}); !errors.Is(err, ErrVerification) {
		t.Errorf("a decoded model that lies: %v", err)
	}
}

// Auto picks only a backend that takes the data: with more classes than
// contree handles (numeric data, where contree comes first), it picks
// another, and the solve is optimal; contree itself refuses up front.
func TestAutoSkipsABackendRefusingTheClasses(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("x,y\n")
	for i := range 600 {
		fmt.Fprintf(&sb, "%d.5,c%d\n", i%7, i%300)
	}
	d, err := model.ReadCSV(strings.NewReader(sb.String()), "classes.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := model.Problem{Objective: model.MinError, MaxDepth: 2}
	if err := DefaultRegistry().Check(d, p, Settings{Backend: "contree"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("contree on 300 classes: %v, want ErrInvalid", err)
	}
	name, err := DefaultRegistry().Auto(d, p)
	if err != nil || name == "contree" {
		t.Fatalf("auto picked %q (%v)", name, err)
	}
	res, err := Solve(context.Background(), d, p, Settings{})
	if err != nil || !res.Optimal {
		t.Fatalf("auto solve: %v %v", res, err)
	}
}

// TestUncheckedBoundNotOptimal: a result whose bound meets its objective
// but whose certificate check was stopped (Unchecked) is not made
// optimal by the status rule; the same result checked is.
func TestUncheckedBoundNotOptimal(t *testing.T) {
	d := tiny()
	for _, unchecked := range []bool{true, false} {
		status := model.StatusCancelled
		if !unchecked {
			status = model.StatusTimeLimit
		}
		r := NewRegistry(fake("f", answer(&model.Result{Model: stump(d), Errors: 1, Objective: 1, LowerBound: 1, Status: status, Unchecked: unchecked})))
		res, err := r.Solve(context.Background(), d, model.Problem{MaxDepth: 1}, Settings{Backend: "f"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Optimal == unchecked || (unchecked && res.Status != model.StatusCancelled) || (!unchecked && res.Status != model.StatusOptimal) {
			t.Errorf("unchecked %v: status %s, optimal %v", unchecked, res.Status, res.Optimal)
		}
	}
}
