package backendtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Pipeline runs the backend under test as the module's registry does:
// the request validated into a job, the answer verified and its status
// and optimality named by the registry's one rule. odtkit's conformance
// test passes the registry's; the trust-rule and certificate checks need
// it (without it they are skipped), and the export round trip runs
// through it when it is given.
type Pipeline struct {
	// Solve, Export and Decode are the registry's, for the backend under
	// test with the options given; Export writes its first format and
	// returns the format's name.
	Solve  func(ctx context.Context, d *model.Dataset, p model.Problem, opts map[string]string) (*model.Result, error)
	Export func(ctx context.Context, w *bytes.Buffer, d *model.Dataset, p model.Problem, opts map[string]string) (string, error)
	Decode func(ctx context.Context, answer []byte, d *model.Dataset, p model.Problem, opts map[string]string) (*model.Result, error)
	// Certify re-checks the certificate a solve wrote to dir, reading the
	// data from the CSV file data (odtkit.CertifyDir).
	Certify func(ctx context.Context, dir, data string) error
	// ReadCSV reads a CSV file as the command line does, so that a
	// certificate's data is the data the solve saw.
	ReadCSV func(path string) (*model.Dataset, error)
}

// exportData is the data and problem the export checks solve: small
// enough for every formulation (at most Config.Rows rows), with noise so
// that the error objectives' optimum is not 0 (an external claim then
// matters).
func exportData(info backend.Info, c Config) (*model.Dataset, model.Problem) {
	rng := rand.New(rand.NewPCG(13, 14))
	n := min(16, c.Rows)
	d := tinyData(rng, n, 3, 2, false)
	d.Name = fmt.Sprintf("export-%dx3", n)
	p := defaultProblem(info, c, 1)
	if p.Objective.Consistent() {
		d = consistent(d)
	}
	return d, p
}

// pin tightens p to the optimal model g, so that a formulation of one
// depth or node count (a SAT formula of the perfect-tree objectives) is
// that of the optimum: the formulation is feasible and every solution of
// it is optimal. lower asks for the limit one below instead (nothing
// satisfies it: an infeasibility to claim); ok is false when there is
// no such limit.
func pin(info backend.Info, p model.Problem, g *model.Graph, lower bool) (model.Problem, bool) {
	if !p.Objective.Consistent() {
		return p, !lower
	}
	o := 0
	if lower {
		o = 1
	}
	switch {
	case p.Objective == model.MinNodes && info.Caps.MaxNodes:
		p.MaxNodes = g.InternalNodes() - o
		return p, p.MaxNodes >= 1
	case info.Caps.DepthCap:
		p.MaxDepth = g.Depth() - o
		if p.Objective == model.MinSize && info.Caps.MaxNodes && !lower {
			p.MaxNodes = g.InternalNodes()
		}
		return p, p.MaxDepth >= 1
	}
	return p, false
}

// checkExport exports the formulation of a small problem, solves it with
// a reference solver (see answer), decodes the answer and compares it
// with the backend's own optimum; with a Pipeline it then checks the
// trust rule on the same answers.
func checkExport(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	d, p := exportData(info, c)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, _, err := solve(ctx, t, b, c, d, p, 1)
	if err != nil || res == nil || res.Model == nil {
		t.Fatalf("solving %s in process: %v, %v", d.Name, res, err)
	}
	if !res.Optimal {
		t.Skipf("the in-process solve proved no optimum (%s) to compare the decoded answer with", res.Status)
	}
	want := res.Objective
	q, _ := pin(info, p, res.Model, false)
	opts := maps.Clone(c.Options)
	if opts == nil {
		opts = map[string]string{}
	}
	_, trustable := info.Param(backend.OptTrustSolver)
	trusted := maps.Clone(opts)
	if trustable {
		trusted[backend.OptTrustSolver] = "true"
	}
	untrusted := maps.Clone(opts)
	delete(untrusted, backend.OptTrustSolver)

	a := exportAnswer(ctx, t, b, c, d, q)
	if a.infeasible {
		t.Fatalf("%s %+v: the reference solver finds the formulation of the optimum (%v) infeasible", d.Name, q, want)
	}
	got, err := decode(ctx, b, c, d, q, trusted, a.claim)
	if err != nil {
		t.Fatalf("%s %+v: decoding the reference solver's optimum: %v", d.Name, q, err)
	}
	if got.Model == nil || math.Abs(got.Objective-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s %+v: the decoded answer has objective %v (model %v), the in-process optimum is %v", d.Name, q, got.Objective, got.Model != nil, want)
	}
	if c.Pipeline == nil {
		t.Log("no Pipeline: the trust rule is not checked")
		return
	}
	if trustable && a.optimum && !got.Optimal {
		t.Errorf("%s %+v: the solver's optimum, trusted (trust-solver=true), gives a result that is not optimal (%s)", d.Name, q, got.Status)
	}
	// The trust rule: an answer's claim of an optimum makes the result
	// optimal only when trusted; untrusted, the result is optimal only if
	// the same answer without the claim is (odtkit's own bound proves it).
	claimed, err1 := decode(ctx, b, c, d, q, untrusted, a.claim)
	plain, err2 := decode(ctx, b, c, d, q, untrusted, a.plain)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatalf("%s %+v: decoding without trust-solver: %v", d.Name, q, err)
	}
	t.Logf("%s %+v, %s: optimum %v; the answer decoded: trusted %s, untrusted %s, without its claim %s",
		d.Name, q, a.format, want, got.Status, claimed.Status, plain.Status)
	if claimed.Optimal && !plain.Optimal {
		t.Errorf("%s %+v: an external solver's claim of an optimum made the result optimal without trust-solver=true (status %s)", d.Name, q, claimed.Status)
	}
	if claimed.Status == model.StatusOptimal && plain.Status != model.StatusOptimal {
		t.Errorf("%s %+v: an external claim gave status optimal without trust-solver=true", d.Name, q)
	}
	// An infeasibility claim, where the formulation has a limit below the
	// optimum's: infeasible only when trusted.
	low, ok := pin(info, p, res.Model, true)
	if !ok {
		return
	}
	a = exportAnswer(ctx, t, b, c, d, low)
	if !a.infeasible {
		t.Fatalf("%s %+v: the reference solver finds a solution below the optimum %v", d.Name, low, want)
	}
	inf, err := decode(ctx, b, c, d, low, untrusted, a.claim)
	if err != nil {
		t.Fatalf("%s %+v: decoding a refutation without trust-solver: %v", d.Name, low, err)
	}
	if inf.Status == model.StatusInfeasible || inf.Optimal {
		t.Errorf("%s %+v: an external solver's claim of infeasibility was taken without trust-solver=true (status %s)", d.Name, low, inf.Status)
	}
	if !trustable {
		return
	}
	if inf, err = decode(ctx, b, c, d, low, trusted, a.claim); err != nil || inf.Status != model.StatusInfeasible {
		t.Errorf("%s %+v: a refutation trusted (trust-solver=true): %+v, %v; want status infeasible", d.Name, low, inf, err)
	}
}

// exportAnswer exports the formulation of q and answers it with the
// reference solver of its format; with no reference solver here, it
// skips the test.
func exportAnswer(ctx context.Context, t *testing.T, b backend.Backend, c Config, d *model.Dataset, q model.Problem) *answers {
	var buf bytes.Buffer
	format, err := export(ctx, b, c, d, q, &buf)
	if errors.Is(err, backend.ErrInvalid) && len(c.Options) > 0 {
		t.Skipf("the export refuses the suite's options %v (they steer the solve only): %v", c.Options, err)
	}
	if err != nil {
		t.Fatalf("%s %+v: export: %v", d.Name, q, err)
	}
	a, err := answer(ctx, format, buf.Bytes(), t.TempDir())
	if a != nil {
		a.format = format
	}
	var no errNoSolver
	if errors.As(err, &no) {
		t.Skip(no.why)
	}
	if err != nil {
		t.Fatalf("%s %+v: solving the exported %s: %v", d.Name, q, format, err)
	}
	return a
}

// export writes the backend's first format: through the Pipeline when
// given, else straight from the job.
func export(ctx context.Context, b backend.Backend, c Config, d *model.Dataset, q model.Problem, w *bytes.Buffer) (string, error) {
	if c.Pipeline != nil {
		return c.Pipeline.Export(ctx, w, d, q, c.Options)
	}
	job, err := backend.NewJob(b.Info(), d, q, c.Options)
	if err != nil {
		return "", err
	}
	e := b.(backend.Exporter)
	return e.ExportFormat(), e.Export(ctx, w, job)
}

// decode reads an answer: through the Pipeline when given (verified,
// status named), else with the backend's Decode, the result re-evaluated
// on the data.
func decode(ctx context.Context, b backend.Backend, c Config, d *model.Dataset, q model.Problem, opts map[string]string, a []byte) (*model.Result, error) {
	if c.Pipeline != nil {
		return c.Pipeline.Decode(ctx, a, d, q, opts)
	}
	job, err := backend.NewJob(b.Info(), d, q, opts)
	if err != nil {
		return nil, err
	}
	res, err := b.(backend.Decoder).Decode(ctx, job, bytes.NewReader(a))
	if err != nil {
		return nil, err
	}
	if err := check(c, d, job.Problem, res); err != nil {
		return nil, err
	}
	return res, nil
}

// certifies reports whether the backend writes certificates: it
// declares the option sat.CertifyOption.
func certifies(info backend.Info) bool {
	_, ok := info.Param(sat.CertifyOption)
	return ok
}

// checkCertify solves a small problem through the Pipeline with a
// certificate written and has the certificate re-checked from the data
// file.
func checkCertify(t *testing.T, b backend.Backend, c Config) {
	info := b.Info()
	d, p := exportData(info, c)
	dir := t.TempDir()
	data := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(data, []byte(csv(d)), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := c.Pipeline.ReadCSV(data)
	if err != nil {
		t.Fatalf("reading the data back: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := maps.Clone(c.Options)
	if opts == nil {
		opts = map[string]string{}
	}
	cert := filepath.Join(dir, "cert")
	opts[sat.CertifyOption] = cert
	res, err := c.Pipeline.Solve(ctx, d, p, opts)
	if err != nil {
		t.Fatalf("%s %+v with %s=DIR: %v", d.Name, p, sat.CertifyOption, err)
	}
	if !res.Optimal {
		t.Fatalf("%s %+v with %s=DIR: status %s, not optimal", d.Name, p, sat.CertifyOption, res.Status)
	}
	if err := c.Pipeline.Certify(ctx, cert, data); err != nil {
		t.Errorf("%s %+v: the certificate of an optimal result does not re-check: %v", d.Name, p, err)
	}
}

// csv writes d as a CSV file, its class last.
func csv(d *model.Dataset) string {
	var b strings.Builder
	names := make([]string, 0, len(d.Features)+1)
	for _, f := range d.Features {
		names = append(names, f.Name)
	}
	b.WriteString(strings.Join(append(names, "class"), ",") + "\n")
	for r := range d.Rows() {
		row := make([]string, 0, len(d.Features)+1)
		for _, f := range d.Features {
			if f.Kind == model.Categorical {
				row = append(row, f.Levels[int(f.Values[r])])
			} else {
				row = append(row, fmt.Sprint(f.Values[r]))
			}
		}
		b.WriteString(strings.Join(append(row, d.Classes[d.Labels[r]]), ",") + "\n")
	}
	return b.String()
}

// exports reports whether the backend exports a formulation and decodes
// a solver's answer for it.
func exports(b backend.Backend) bool {
	_, ok := b.(backend.Decoder)
	return ok
}
