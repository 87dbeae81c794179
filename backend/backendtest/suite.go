// Package backendtest is the conformance suite every odtkit backend must
// pass, in the manner of gonum's graph/testgraph: one Run that checks a
// backend against the contract of package backend on small generated
// data, so that a new backend is tested the same way as the others and a
// fresh clone (no benchmark data) still exercises every backend.
//
// Run checks that:
//   - its Info is well formed and its declared defaults parse;
//   - a bad option value of each declared parameter, an unknown option,
//     and a problem field it does not declare are refused with
//     backend.ErrInvalid before any work (by backend.NewJob, the only
//     maker of a job); a problem field it declares is honoured, never
//     ignored;
//   - a solve stops within a second of its context's cancellation and of
//     its deadline, and returns a valid model or none;
//   - reported incumbents are valid, strictly improving, and end at the
//     result, whose claims hold when re-evaluated on the data;
//   - the same job and seed give the same answer (the same objective
//     only, for a backend declared Config.VaryingModel);
//   - a backend that estimates its formulation (backend.Sizer) refuses,
//     before building it, one beyond a memory cap of an eighth of its
//     estimate, in Size as in Solve;
//   - an exact backend's optimum equals the brute-force optimum on tiny
//     random data (error at depths 0–2, with weights and minimum support
//     where declared; minimum depth and size of a consistent tree);
//   - a backend that exports its formulation and decodes a solver's
//     answer (backend.Decoder): the exported formulation, solved by a
//     reference solver (odtkit's CDCL solver for DIMACS, a MaxSAT search
//     over it for WCNF, HiGHS in process for MPS in a build with -tags
//     highs, MiniZinc with Gecode when installed; otherwise skipped,
//     saying so), decodes to the backend's own optimum; with a Pipeline
//     (the registry), an external solver's claim of an optimum or of
//     infeasibility never makes a result optimal or infeasible without
//     the option trust-solver=true, and does with it;
//   - a backend that writes certificates (the option certify), given a
//     Pipeline: the certificate of an optimal result re-checks from the
//     data file.
package backendtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Config adapts the suite to a backend. The zero value suits most.
type Config struct {
	// Options are passed on every solve (e.g. to pick a solver).
	Options map[string]string
	// Hard returns a problem on which the backend runs for several
	// seconds, for the cancellation checks. By default: random numeric
	// data at depth 6 (error), random labels (min-depth, min-size) or a
	// 1,2,4,8 skeleton (diagram).
	Hard func() (*model.Dataset, model.Problem)
	// Verify re-evaluates a result (odtkit.Verify); by default the suite
	// checks errors, objective, depth and bound itself.
	Verify func(d *model.Dataset, p model.Problem, res *model.Result) error
	// Brute caps the tiny random datasets the exact optimum is compared
	// on (default 12; 0 keeps the default, -1 skips the comparison).
	Brute int
	// Latency is how long after a cancellation or deadline a solve may
	// take to return (default 1 s, as the contract says, plus Slack).
	Latency time.Duration
	// Slack is added to Latency for a loaded test machine (default 1 s).
	Slack time.Duration
	// Rows is the number of rows of the random data the incumbent and
	// determinism checks solve to the end (default 40): fewer for a
	// backend whose proofs grow fast with the rows (a MILP).
	Rows int
	// VaryingModel says that the same job and seed may give different
	// trees of the same objective (a racing portfolio returns the tree of
	// whichever member proves first): the determinism check then compares
	// the objective and the optimality claim only.
	VaryingModel bool
	// Threads lists the worker counts a backend that declares
	// Caps.Threads is checked at: the incumbent, determinism, cancel and
	// brute-force checks run again at each (default 1, 2 and 4).
	Threads []int

	// Pipeline, when set, is the module registry's way to run the
	// backend: the trust-rule and certificate checks run through it.
	Pipeline *Pipeline

	// Objective, when set, is the objective (one of the backend's) that
	// the checks solve and the brute-force comparison covers; by default
	// the backend's main objective, and every objective it declares for
	// the brute-force comparison. Run the suite once per objective to
	// check each.
	Objective model.Objective

	threads int // Job.Threads of every solve (0: the backend's default)
}

// objective is the objective the checks solve.
func (c Config) objective(info backend.Info) model.Objective {
	if c.Objective != "" {
		return c.Objective
	}
	return info.Objectives[0]
}

// Run runs the conformance suite on b.
func Run(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	if c.Objective != "" && !info.Accepts(c.Objective) {
		t.Fatalf("backend %s does not declare objective %q", info.Name, c.Objective)
	}
	if c.Latency == 0 {
		c.Latency = time.Second
	}
	if c.Slack == 0 {
		c.Slack = time.Second
	}
	if c.Brute == 0 {
		c.Brute = 12
	}
	if c.Rows == 0 {
		c.Rows = 40
	}
	t.Run("Info", func(t *testing.T) { checkInfo(t, info) })
	t.Run("BadOptions", func(t *testing.T) { checkBadOptions(t, b, c) })
	t.Run("UnsupportedFields", func(t *testing.T) { checkUnsupported(t, b, c) })
	t.Run("Incumbents", func(t *testing.T) { checkIncumbents(t, b, c) })
	t.Run("Deterministic", func(t *testing.T) { checkDeterministic(t, b, c) })
	t.Run("Cancel", func(t *testing.T) { checkCancel(t, b, c) })
	t.Run("Size", func(t *testing.T) { checkSize(t, b, c) })
	if info.Exact && c.Brute > 0 {
		t.Run("BruteForce", func(t *testing.T) { checkBrute(t, b, c) })
	}
	if exports(b) {
		t.Run("ExportDecode", func(t *testing.T) { checkExport(t, b, c) })
	}
	if certifies(info) {
		t.Run("Certify", func(t *testing.T) {
			if c.Pipeline == nil {
				t.Skip("no Pipeline: the certificate is checked by odtkit's conformance test")
			}
			checkCertify(t, b, c)
		})
	}
	if !info.Caps.Threads {
		return
	}
	if len(c.Threads) == 0 {
		c.Threads = []int{1, 2, 4}
	}
	for _, n := range c.Threads {
		ct := c
		ct.threads = n
		t.Run(fmt.Sprintf("Threads=%d", n), func(t *testing.T) {
			t.Run("Incumbents", func(t *testing.T) { checkIncumbents(t, b, ct) })
			t.Run("Deterministic", func(t *testing.T) { checkDeterministic(t, b, ct) })
			t.Run("Cancel", func(t *testing.T) { checkCancel(t, b, ct) })
			if info.Exact && ct.Brute > 0 {
				t.Run("BruteForce", func(t *testing.T) { checkBrute(t, b, ct) })
			}
		})
	}
}

func checkInfo(t *testing.T, info backend.Info) {
	if info.Name == "" || info.Description == "" || len(info.Objectives) == 0 || info.Input == "" {
		t.Errorf("incomplete Info: %+v", info)
	}
	if !slices.Contains(backend.Families(), info.Family) {
		t.Errorf("backend %s: family %q is not one of %v", info.Name, info.Family, backend.Families())
	}
	seen := map[string]bool{}
	for _, p := range info.Params {
		if p.Name == "" || p.Help == "" || p.Kind == 0 || seen[p.Name] {
			t.Errorf("parameter %+v: needs a unique name, a kind and a help text", p)
		}
		seen[p.Name] = true
		if p.Kind == backend.Enum && len(p.Values) < 2 {
			t.Errorf("enum parameter %s has values %v", p.Name, p.Values)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("declared defaults do not parse: %v", r)
		}
	}()
	info.Defaults()
}

// badValues are values of p that its declaration must refuse.
func badValues(p backend.Param) []string {
	num := func(v float64) string { return fmt.Sprint(v) }
	var out []string
	switch p.Kind {
	case backend.Bool:
		out = []string{"perhaps", "2"}
	case backend.Int:
		out = []string{"x", "1.5", "9999999999999999999999"}
	case backend.Float:
		out = []string{"x", "NaN", "Inf"}
	case backend.Enum:
		out = []string{"no-such-" + p.Name, strings.ToUpper(p.Values[0]) + "?"}
	case backend.Duration:
		out = []string{"ten", "-1s"}
	}
	if p.Kind == backend.Int || p.Kind == backend.Float {
		if p.HasMin {
			lo := p.Min - 1
			if p.MinOpen {
				lo = p.Min
			}
			out = append(out, num(lo))
		}
		if p.HasMax {
			out = append(out, num(p.Max+1))
		}
	}
	return out
}

func checkBadOptions(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	d, p := tinyData(rand.New(rand.NewPCG(1, 2)), 10, 3, 2, false), defaultProblem(info, c, 1)
	try := func(opts map[string]string) {
		raw := merge(c.Options, opts)
		_, err := backend.NewJob(info, d, p, raw)
		if !errors.Is(err, backend.ErrInvalid) {
			t.Errorf("options %v: %v, want backend.ErrInvalid", opts, err)
			return
		}
		msg := err.Error()
		for k := range opts {
			if !strings.Contains(msg, k) {
				t.Errorf("options %v: message %q does not name the option", opts, msg)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("options %v: message %q is not one line", opts, msg)
		}
	}
	try(map[string]string{"no-such-option": "1"})
	for _, prm := range info.Params {
		for _, v := range badValues(prm) {
			try(map[string]string{prm.Name: v})
		}
	}
}

func checkUnsupported(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	rng := rand.New(rand.NewPCG(3, 4))
	type field struct {
		name      string
		supported bool
		d         *model.Dataset
		p         model.Problem
		honoured  func(d *model.Dataset, p model.Problem, res *model.Result) error
	}
	p := defaultProblem(info, c, 2)
	if p.Objective != model.MinError {
		p.MaxDepth = model.NoDepthLimit
	}
	var fields []field
	{
		q := p
		q.MaxNodes = 1 // internal nodes: a stump
		fields = append(fields, field{"node limit", info.Caps.MaxNodes, tinyData(rng, 12, 3, 2, false), q,
			func(d *model.Dataset, p model.Problem, res *model.Result) error {
				if res.Model != nil && res.Model.InternalNodes() > p.MaxNodes {
					return fmt.Errorf("%d internal nodes above the limit %d", res.Model.InternalNodes(), p.MaxNodes)
				}
				return nil
			}})
	}
	if p.Objective == model.MinError {
		q := p
		q.LeafCost = 0.3
		fields = append(fields, field{"leaf cost", info.Caps.LeafCost, tinyData(rng, 12, 3, 2, false), q,
			func(d *model.Dataset, p model.Problem, res *model.Result) error {
				if res.Model != nil && math.Abs(res.Objective-p.Evaluate(d, res.Model)) > 1e-9 {
					return fmt.Errorf("objective %v is not errors/rows + λ·leaves %v", res.Objective, p.Evaluate(d, res.Model))
				}
				return nil
			}})
	}
	{
		q := p
		q.MinSupport = 4
		fields = append(fields, field{"minimum support", info.Caps.MinSupport, tinyData(rng, 12, 3, 2, false), q,
			func(d *model.Dataset, p model.Problem, res *model.Result) error {
				if res.Model == nil {
					return nil
				}
				count := map[int]int{}
				for r := range d.Rows() {
					count[res.Model.Leaf(d, r)]++
				}
				for leaf, n := range count {
					if n < p.MinSupport {
						return fmt.Errorf("leaf %d holds %d rows, below the minimum support %d", leaf, n, p.MinSupport)
					}
				}
				return nil
			}})
	}
	{
		d := tinyData(rng, 12, 3, 2, false)
		d.Weights = make([]float64, d.Rows())
		for i := range d.Weights {
			d.Weights[i] = 0.5 + float64(rng.IntN(4))
		}
		fields = append(fields, field{"fractional row weights", info.Caps.Weights == backend.AnyWeights, d, p,
			func(d *model.Dataset, p model.Problem, res *model.Result) error {
				if res.Model != nil && p.Objective == model.MinError && math.Abs(res.Objective-res.Model.WeightedErrors(d)) > 1e-9 {
					return fmt.Errorf("objective %v is not the weighted error %v", res.Objective, res.Model.WeightedErrors(d))
				}
				return nil
			}})
	}
	for _, f := range fields {
		job, err := backend.NewJob(info, f.d, f.p, c.Options)
		if !f.supported {
			if !errors.Is(err, backend.ErrInvalid) {
				t.Errorf("%s is not declared, but the job is accepted (%v)", f.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s is declared supported, but the job is refused: %v", f.name, err)
			continue
		}
		// Declared, it is honoured: Solve trusts the job NewJob built.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := b.Solve(ctx, job)
		cancel()
		if err == nil && res != nil {
			if herr := f.honoured(f.d, job.Problem, res); herr != nil {
				t.Errorf("%s is declared supported, but silently ignored: %v", f.name, herr)
			}
		}
	}
}

// solve runs one job like the registry does, collecting the incumbents.
func solve(ctx context.Context, t *testing.T, b backend.Backend, c Config, d *model.Dataset, p model.Problem, seed int64) (*model.Result, []model.Incumbent, error) {
	job, err := backend.NewJob(b.Info(), d, p, c.Options)
	if err != nil {
		t.Fatalf("job on %s: %v", d.Name, err)
	}
	job.Seed = seed
	job.Threads = c.threads
	var mu sync.Mutex
	var incs []model.Incumbent
	job.Report = func(obj float64, g *model.Graph) {
		mu.Lock()
		incs = append(incs, model.Incumbent{Objective: obj, Model: g})
		mu.Unlock()
	}
	res, err := b.Solve(ctx, job)
	mu.Lock()
	defer mu.Unlock()
	return res, incs, err
}

// check re-evaluates a result on the data.
func check(c Config, d *model.Dataset, p model.Problem, res *model.Result) error {
	p = p.Normalized()
	if res.Model == nil {
		return nil
	}
	if c.Verify != nil {
		return c.Verify(d, p, res)
	}
	g := res.Model
	if err := g.Validate(); err != nil {
		return err
	}
	if e := g.Errors(d); e != res.Errors {
		return fmt.Errorf("claims %d errors, its model makes %d", res.Errors, e)
	}
	if o := p.Evaluate(d, g); math.Abs(o-res.Objective) > 1e-9*math.Max(1, math.Abs(o)) {
		return fmt.Errorf("claims objective %v, its model's is %v", res.Objective, o)
	}
	if p.Objective == model.MinError && g.Depth() > p.MaxDepth {
		return fmt.Errorf("depth %d above %d", g.Depth(), p.MaxDepth)
	}
	if res.LowerBound > res.Objective+1e-9 {
		return fmt.Errorf("lower bound %v above the objective %v", res.LowerBound, res.Objective)
	}
	return nil
}

func checkIncumbents(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 4 {
		d := tinyData(rng, c.Rows, 4, 2+i%2, true)
		p := defaultProblem(info, c, 2+i%2)
		if p.Objective.Consistent() {
			d = consistent(d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, incs, err := solve(ctx, t, b, c, d, p, 1)
		cancel()
		if err != nil {
			t.Errorf("%s: %v", d.Name, err)
			continue
		}
		if res == nil {
			t.Errorf("%s: no result and no error", d.Name)
			continue
		}
		if err := check(c, d, p, res); err != nil {
			t.Errorf("%s: result: %v", d.Name, err)
		}
		for j, inc := range incs {
			if inc.Model == nil {
				t.Errorf("%s: incumbent %d has no model", d.Name, j)
				continue
			}
			if o := p.Normalized().Evaluate(d, inc.Model); math.Abs(o-inc.Objective) > 1e-9*math.Max(1, o) {
				t.Errorf("%s: incumbent %d claims %v, its model's objective is %v", d.Name, j, inc.Objective, o)
			}
			if j > 0 && inc.Objective >= incs[j-1].Objective {
				t.Errorf("%s: incumbent %d (%v) does not improve on %v", d.Name, j, inc.Objective, incs[j-1].Objective)
			}
		}
		if n := len(incs); n > 0 && res.Model != nil && res.Objective > incs[n-1].Objective+1e-9 {
			t.Errorf("%s: the result (%v) is worse than the last incumbent (%v)", d.Name, res.Objective, incs[n-1].Objective)
		}
		if res.Optimal && res.Model == nil {
			t.Errorf("%s: optimal without a model", d.Name)
		}
	}
}

func checkDeterministic(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	d := tinyData(rand.New(rand.NewPCG(7, 8)), c.Rows, 4, 3, true)
	p := defaultProblem(info, c, 2)
	if p.Objective.Consistent() {
		d = consistent(d)
	}
	var first []byte
	for i := range 2 {
		// A generous bound, so that a backend too slow for this check
		// fails it instead of hanging the suite.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		res, _, err := solve(ctx, t, b, c, d, p, 42)
		late := ctx.Err() != nil
		cancel()
		if late {
			t.Fatalf("run %d did not finish within 2 minutes (lower Config.Rows for this backend)", i)
		}
		if err != nil || res == nil || res.Model == nil {
			t.Fatalf("run %d: %v, %v", i, res, err)
		}
		m := res.Model
		if c.VaryingModel {
			m = nil
		}
		js, _ := json.Marshal(struct {
			O       float64
			Optimal bool
			M       *model.Graph
		}{res.Objective, res.Optimal, m})
		if i == 0 {
			first = js
		} else if string(js) != string(first) {
			t.Errorf("same job and seed, different answers:\n%s\n%s", first, js)
		}
	}
}

func checkCancel(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	d, p := hard(info, c)
	for _, how := range []string{"cancel", "deadline"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			after := 300 * time.Millisecond
			if how == "deadline" {
				ctx, cancel = context.WithTimeout(ctx, after)
				defer cancel()
			} else {
				time.AfterFunc(after, cancel)
			}
			start := time.Now()
			res, _, err := solve(ctx, t, b, c, d, p, 1)
			took := time.Since(start)
			if over := took - after; over > c.Latency+c.Slack {
				t.Errorf("returned %v after the %s (limit %v + %v slack)", over.Round(time.Millisecond), how, c.Latency, c.Slack)
			}
			if err != nil {
				t.Fatalf("a stopped solve is not an error: %v", err)
			}
			if res == nil {
				t.Fatal("no result")
			}
			if err := check(c, d, p, res); err != nil {
				t.Errorf("stopped result: %v", err)
			}
			if res.Optimal && took < after {
				return // it finished before the stop: nothing more to see
			}
		})
	}
	// A context already done: an answer (or none) at once, no panic.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	res, _, err := solve(ctx, t, b, c, d, p, 1)
	if time.Since(start) > c.Latency+c.Slack {
		t.Errorf("a cancelled context took %v", time.Since(start))
	}
	if err == nil && res != nil {
		if err := check(c, d, p, res); err != nil {
			t.Errorf("result under a cancelled context: %v", err)
		}
	}
}

func checkBrute(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range c.Brute {
		n := 6 + rng.IntN(10)
		d := tinyData(rng, n, 2+rng.IntN(2), 2+rng.IntN(2), i%2 == 0)
		d.Name = fmt.Sprintf("tiny-%d", i)
		for _, obj := range info.Objectives {
			if c.Objective != "" && obj != c.Objective {
				continue
			}
			switch obj {
			case model.MinError:
				depth := i % 3
				p := model.Problem{Objective: obj, MaxDepth: depth}
				if info.Caps.MinSupport && i%4 == 3 {
					p.MinSupport = 2
				}
				data := d
				if info.Caps.Weights != backend.NoWeights && i%3 == 1 {
					data = weighted(rng, d, info.Caps.Weights == backend.WholeWeights)
				}
				br := newBrute(data, p.MinSupport)
				want := br.minError(br.all, depth)
				compare(t, b, c, data, p, want)
				checkSparse(t, b, c, data, p, i)
			case model.MinDepth, model.MinSize:
				data := consistent(d)
				br := newBrute(data, 1)
				k := br.minDepth()
				want := float64(k)
				if obj == model.MinSize {
					want = float64(br.minSize(br.all, k))
				}
				compare(t, b, c, data, model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}, want)
			case model.MinNodes:
				data := consistent(d)
				br := newBrute(data, 1)
				compare(t, b, c, data, model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}, float64(br.minNodes()))
			}
		}
	}
}

// checkSparse compares the optima of the sparse error objective (a leaf
// cost) and of a node limit (internal nodes), each alone and both
// together, with brute force, for the caps the backend declares.
func checkSparse(t *testing.T, b backend.Backend, c Config, d *model.Dataset, p model.Problem, i int) {
	caps := b.Info().Caps
	if !caps.LeafCost && !caps.MaxNodes {
		return
	}
	p.MaxDepth = 2 + i%2
	lambdas := []float64{0}
	if caps.LeafCost {
		lambdas = append(lambdas, []float64{0.02, 0.07, 0.15, 0.6}[i%4])
	}
	limits := []int{0}
	if caps.MaxNodes {
		limits = append(limits, 1+i%3)
	}
	total := d.TotalWeight()
	for _, lambda := range lambdas {
		for _, k := range limits {
			if lambda == 0 && k == 0 {
				continue
			}
			q := p
			q.LeafCost, q.MaxNodes = lambda, k
			br := newBrute(d, q.MinSupport)
			nodes := k
			if k == 0 {
				nodes = -1
			}
			want := br.minSparse(br.all, q.MaxDepth, nodes, lambda, total)
			if lambda == 0 && !math.IsInf(want, 1) {
				want *= total // the plain error objective: weighted errors
			}
			compare(t, b, c, d, q, want)
		}
	}
}

func compare(t *testing.T, b backend.Backend, c Config, d *model.Dataset, p model.Problem, want float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, _, err := solve(ctx, t, b, c, d, p, 1)
	if math.IsInf(want, 1) {
		if err == nil && res != nil && res.Model != nil {
			t.Errorf("%s %+v: no tree satisfies the problem, the backend returned one (%v)", d.Name, p, res.Objective)
		}
		return
	}
	if err != nil || res == nil || res.Model == nil {
		t.Errorf("%s %+v: %v, %v", d.Name, p, res, err)
		return
	}
	if err := check(c, d, p, res); err != nil {
		t.Errorf("%s %+v: %v", d.Name, p, err)
	}
	if !res.Optimal || math.Abs(res.Objective-want) > 1e-9*math.Max(1, want) {
		t.Errorf("%s %+v: objective %v (optimal %v), brute force %v", d.Name, p, res.Objective, res.Optimal, want)
	}
}
