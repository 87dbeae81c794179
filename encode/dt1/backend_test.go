package dt1_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"github.com/odtkit/odtkit/encode/dt1"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// TestConformance runs the backend conformance suite (brute force
// included) on the default options; TestBruteForceAndDP compares the
// other searches and encodings.
func TestConformance(t *testing.T) {
	backendtest.Run(t, dt1.Backend{}, backendtest.Config{Brute: 20})
}

// randomData is a small dataset of binary and three-level columns whose
// label follows a random formula of a few columns, with some noise.
func randomData(rng *rand.Rand, n, f, k int) *model.Dataset {
	d := &model.Dataset{Name: fmt.Sprintf("random-%dx%d-%d", n, f, k)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		levels := 2 + j%2
		for r := range n {
			ft.Values[r] = float64(rng.IntN(levels))
		}
		d.Features = append(d.Features, ft)
	}
	d.Labels = make([]int, n)
	for r := range n {
		a, b, c := d.Features[0].Values[r], d.Features[1].Values[r], d.Features[f-1].Values[r]
		y := 0
		if a > 0 && (b > 0 || c > 1) {
			y = 1
		}
		if rng.IntN(5) == 0 {
			y = rng.IntN(k)
		}
		d.Labels[r] = y % k
	}
	for c := range k {
		d.Labels[c%n] = c
	}
	return d
}

// consistent keeps, in every group of identical rows, the rows of the
// group's first label.
func consistent(d *model.Dataset) *model.Dataset {
	var keep []int
	for _, g := range d.IdenticalGroups() {
		for _, r := range g {
			if d.Labels[r] == d.Labels[g[0]] {
				keep = append(keep, r)
			}
		}
	}
	return d.Subset(keep)
}

// bruteNodes is the fewest nodes of a tree with no error on d, by
// exhaustive search over the binary view's tests (memoised on row sets):
// the tree of a row set is a leaf when it holds one class, else the best
// split into two non-empty sides. At most 64 rows.
func bruteNodes(d *model.Dataset) int {
	v := model.Binarize(d)
	n := d.Rows()
	var tests []uint64
	for _, t := range v.Tests {
		var m uint64
		for r := range n {
			if t.Eval(d, r) {
				m |= 1 << r
			}
		}
		tests = append(tests, m)
	}
	memo := map[uint64]int{}
	var best func(rows uint64) int
	best = func(rows uint64) int {
		if b, ok := memo[rows]; ok {
			return b
		}
		pure, first := true, -1
		for r := range n {
			if rows&(1<<r) != 0 {
				if first < 0 {
					first = d.Labels[r]
				} else if d.Labels[r] != first {
					pure = false
				}
			}
		}
		b := 1
		if !pure {
			b = 1 << 30
			for _, t := range tests {
				hi, lo := rows&t, rows&^t
				if hi == 0 || lo == 0 {
					continue
				}
				if s := 1 + best(lo) + best(hi); s < b {
					b = s
				}
			}
		}
		memo[rows] = b
		return b
	}
	return best(1<<n - 1)
}

// TestBruteForceAndDP: on random consistent data the node count sat-dt1
// proves equals brute force and dl85's min-nodes, is at most sat-size's,
// and some instance has a deeper tree smaller than the least depth's
// smallest (so min-nodes is told apart from min-size).
func TestBruteForceAndDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	below := 0
	for i := range 30 {
		d := consistent(randomData(rng, 10+rng.IntN(20), 3+rng.IntN(3), 2+i%2))
		want := bruteNodes(d)
		got := solve(t, d, "sat-dt1", model.MinNodes, nil)
		for _, opts := range []map[string]string{
			{"search": "bisect"}, {"search": "down"}, {"leaf-counting": "false"},
			{"nonempty-leaves": "true"}, {"nonempty-leaves": "true", "search": "down"},
			{"impure-splits": "true"}, {"impure-splits": "true", "nonempty-leaves": "true"},
			{"sat-solver": "cdcl-glue"}, {"sat-solver": "cdcl-glue", "search": "down"},
		} {
			if o := solve(t, d, "sat-dt1", model.MinNodes, opts); o != got {
				t.Errorf("%s: sat-dt1 %v proves %d nodes, the default %d", d.Name, opts, o, got)
			}
		}
		dp := solve(t, d, "dl85", model.MinNodes, nil)
		size := solve(t, d, "sat-size", model.MinSize, nil)
		if got != want || dp != want || got > size {
			t.Errorf("%s (%d rows): sat-dt1 %d, dl85 min-nodes %d, brute force %d, sat-size %d", d.Name, d.Rows(), got, dp, want, size)
		}
		if got < size {
			below++
		}
	}
	if below == 0 {
		t.Errorf("no instance had fewer nodes at any depth than at the least depth: the data do not tell the objectives apart")
	}
}

// solve runs a backend through the registry (which verifies the model)
// and returns the proven objective.
func solve(t *testing.T, d *model.Dataset, name string, obj model.Objective, opts map[string]string) int {
	t.Helper()
	res, err := odtkit.Solve(context.Background(), d, model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit},
		odtkit.Settings{Backend: name, Options: opts, TimeLimit: time.Minute})
	if err != nil {
		t.Fatalf("%s on %s: %v", name, d.Name, err)
	}
	if !res.Optimal || res.Errors != 0 {
		t.Fatalf("%s on %s: status %s, errors %d", name, d.Name, res.Status, res.Errors)
	}
	return int(res.Objective)
}

// monk1 reads testdata/monk1.csv.
func monk1(t *testing.T) (string, *model.Dataset) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "monk1.csv")
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return path, d
}

// TestMonk1 proves monk1 (testdata) at the fewest nodes dl85's min-nodes
// proves, at most sat-size's.
func TestMonk1(t *testing.T) {
	_, d := monk1(t)
	got := solve(t, d, "sat-dt1", model.MinNodes, nil)
	if dp, size := solve(t, d, "dl85", model.MinNodes, nil), solve(t, d, "sat-size", model.MinSize, nil); got != dp || got > size {
		t.Fatalf("monk1: sat-dt1 %d nodes, dl85 min-nodes %d, sat-size %d", got, dp, size)
	}
}

// sharedData reads a file of ../shared/data/inferdt, or skips.
func sharedData(t *testing.T, file string) *model.Dataset {
	t.Helper()
	path := filepath.Join(shared.Dir(t, "data/inferdt/"+file), "data", "inferdt", file)
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSharedFiles proves the inferdt files mouse (15 nodes, the DT1 row of
// Avellaneda's table) and lung cancer (7, ../shared/reference) with
// sat-dt1, as dl85's min-nodes does.
func TestSharedFiles(t *testing.T) {
	for _, c := range []struct {
		file string
		want int
	}{{"mouse.csv", 15}, {"lung_cancer_examples.csv", 7}} {
		d := sharedData(t, c.file)
		got := solve(t, d, "sat-dt1", model.MinNodes, nil)
		dp := solve(t, d, "dl85", model.MinNodes, nil)
		if got != c.want || dp != c.want {
			t.Errorf("%s: sat-dt1 %d nodes, dl85 min-nodes %d, want %d", c.file, got, dp, c.want)
		}
	}
}

// TestMonk3: on monk3 the fewest nodes at any depth (33, dl85's
// min-nodes) are below the least depth's (39, sat-size). (sat-dt1's
// refutation of 31 nodes takes longer than a test may; TestAdmitsTree
// checks that the formula of 33 nodes holds dl85's tree.)
func TestMonk3(t *testing.T) {
	d := sharedData(t, "monk3.csv")
	if dp, size := solve(t, d, "dl85", model.MinNodes, nil), solve(t, d, "sat-size", model.MinSize, nil); dp != 33 || size != 39 {
		t.Fatalf("monk3: dl85 min-nodes %d, sat-size %d, want 33 and 39", dp, size)
	}
}

// TestCertify: a proven optimum's refutations (every node count below
// it) are written and checked as LRAT, and odt certify's re-derivation
// (the formulas built again from the data file, the bound from the
// refuted counts) proves the same bound.
func TestCertify(t *testing.T) {
	path, d := monk1(t)
	dir := filepath.Join(t.TempDir(), "cert")
	p := model.Problem{Objective: model.MinNodes, MaxDepth: model.NoDepthLimit}
	res, err := odtkit.Solve(context.Background(), d, p,
		odtkit.Settings{Backend: "sat-dt1", Options: map[string]string{"certify": dir}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Optimal || !res.Certified || res.Certificate == nil {
		t.Fatalf("status %s certified %v", res.Status, res.Certified)
	}
	if n := int(res.Objective); n > 3 && len(res.Certificate.Bounds) != (n-3)/2 {
		t.Errorf("%d nodes proven with %d refutations %v, want one per count from 3", n, len(res.Certificate.Bounds), res.Certificate.Bounds)
	}
	sum, err := odtkit.CertifyDir(context.Background(), dir, path, 0)
	if err != nil {
		t.Fatalf("odt certify: %v", err)
	}
	if sum.Claim.Bound != res.Objective || sum.Claim.Objective != model.MinNodes {
		t.Errorf("re-derived claim %+v, want min-nodes %v", sum.Claim, res.Objective)
	}
	// The glue mode of odtkit's CDCL writes proofs too: the same optimum,
	// certified, the certificate checked again.
	glueDir := filepath.Join(t.TempDir(), "cert-glue")
	glue, err := odtkit.Solve(context.Background(), d, p,
		odtkit.Settings{Backend: "sat-dt1", Options: map[string]string{"certify": glueDir, "sat-solver": "cdcl-glue"}})
	if err != nil {
		t.Fatal(err)
	}
	if !glue.Optimal || !glue.Certified || glue.Objective != res.Objective {
		t.Fatalf("cdcl-glue: status %s certified %v objective %v, want %v certified", glue.Status, glue.Certified, glue.Objective, res.Objective)
	}
	if sum, err := odtkit.CertifyDir(context.Background(), glueDir, path, 0); err != nil || sum.Claim.Bound != res.Objective {
		t.Fatalf("odt certify of the cdcl-glue certificate: %v", err)
	}
	for _, o := range []map[string]string{
		{"certify": t.TempDir(), "sat-solver": "gini"},
		{"certify": t.TempDir(), "sat-solver": "external:minisat {in} {out}"}, // writes no proof
		{"certify": t.TempDir(), "search": "bisect"},
		{"certify": t.TempDir(), "search": "down"},
	} {
		if _, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "sat-dt1", Options: o}); err == nil {
			t.Errorf("certify with %v: no error", o)
		}
	}
}

// TestExportDecode: the exported DIMACS of a node count, solved by
// odtkit's CDCL solver and decoded, gives a tree of at most that count;
// the count below the optimum is unsatisfiable, which decodes as a claim.
func TestExportDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	d := consistent(randomData(rng, 20, 4, 2))
	opt := solve(t, d, "sat-dt1", model.MinNodes, nil)
	if opt < 5 {
		t.Skipf("optimum %d: no smaller count to refute", opt)
	}
	for _, n := range []int{opt, opt - 2} {
		p := model.Problem{Objective: model.MinNodes, MaxDepth: model.NoDepthLimit, MaxNodes: (n - 1) / 2}
		var buf bytes.Buffer
		if _, err := odtkit.Export(context.Background(), &buf, d, p, odtkit.Settings{Backend: "sat-dt1"}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "odt decode --backend sat-dt1 --max-nodes") {
			t.Errorf("the header lacks the decode command")
		}
		cnf, err := sat.ReadDIMACS(&buf)
		if err != nil {
			t.Fatal(err)
		}
		s := sat.NewCDCL()
		sat.AddCNF(s, cnf, 0)
		st, err := s.Solve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var answer strings.Builder
		switch st {
		case sat.Satisfiable:
			answer.WriteString("s SATISFIABLE\nv")
			for v := 1; v <= cnf.NumVars; v++ {
				l := sat.Lit(v)
				if !s.Value(l) {
					l = -l
				}
				fmt.Fprintf(&answer, " %d", l)
			}
			answer.WriteString(" 0\n")
		case sat.Unsatisfiable:
			answer.WriteString("s UNSATISFIABLE\n")
		}
		res, err := odtkit.Decode(context.Background(), strings.NewReader(answer.String()), d, p, odtkit.Settings{Backend: "sat-dt1"})
		if err != nil {
			t.Fatalf("%d nodes: %v", n, err)
		}
		switch {
		case n == opt && (st != sat.Satisfiable || res.Model == nil || int(res.Objective) != opt):
			t.Errorf("%d nodes: %s, objective %v", n, st, res.Objective)
		case n < opt && (st != sat.Unsatisfiable || res.ClaimedBound == nil || *res.ClaimedBound != float64(opt)):
			t.Errorf("%d nodes: %s, claimed %v", n, st, res.ClaimedBound)
		}
	}
}

// TestRefusals: a depth limit, weights and export without a node count are
// refused as bad requests.
func TestRefusals(t *testing.T) {
	d := consistent(randomData(rand.New(rand.NewPCG(1, 2)), 12, 3, 2))
	if _, err := odtkit.Solve(context.Background(), d, model.Problem{Objective: model.MinNodes, MaxDepth: 3}, odtkit.Settings{Backend: "sat-dt1"}); err == nil || !strings.Contains(err.Error(), "depth limit") {
		t.Errorf("depth limit: %v", err)
	}
	var buf bytes.Buffer
	if _, err := odtkit.Export(context.Background(), &buf, d, model.Problem{Objective: model.MinNodes, MaxDepth: model.NoDepthLimit}, odtkit.Settings{Backend: "sat-dt1"}); err == nil || !strings.Contains(err.Error(), "--max-nodes") {
		t.Errorf("export without a node count: %v", err)
	}
}

// TestEncodingRanges: the child ranges are the paper's, and the formula of
// 3 nodes on one test separating two classes has exactly the tree of that
// test (its two leaves in either class order are models only when the
// classes follow the test).
func TestEncodingRanges(t *testing.T) {
	if got := fmt.Sprint(dt1.LR(1, 7), dt1.RR(1, 7), dt1.LR(3, 7), dt1.RR(3, 7), dt1.LR(4, 7)); got != "[2] [3] [4 6] [5 7] [6]" {
		t.Errorf("LR, RR: %s", got)
	}
	d := &model.Dataset{Name: "xor", Classes: []string{"a", "b"}, Features: []model.Feature{{Name: "x", Values: []float64{0, 1, 0, 1}}, {Name: "y", Values: []float64{0, 0, 1, 1}}}, Labels: []int{0, 1, 1, 0}}
	p, err := satjob.PrepareExamples(context.Background(), d, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]sat.Status{3: sat.Unsatisfiable, 5: sat.Unsatisfiable, 7: sat.Satisfiable} {
		e, err := dt1.Encode(context.Background(), nil, p.View, p.Tests, p.Reps, n, dt1.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := sat.NewCDCL()
		sat.AddCNF(s, e.CNF, 0)
		st, err := s.Solve(context.Background())
		if err != nil || st != want {
			t.Errorf("xor, %d nodes: %s (%v), want %s", n, st, err, want)
		}
	}
}

var _ backend.Backend = dt1.Backend{}

// TestDescentLemma: on random consistent data the formula of every odd
// count from the optimum to 2E−1 (E examples) is satisfiable with and
// without nonempty-leaves — the lemma a refutation of the descent and
// the bisection rests on — while impure-splits refutes some count above
// the optimum on some instance (so it is rightly kept to the upward
// search); the descent from a node limit alone (no incumbent) proves
// the optimum at a limit of the optimum and infeasibility below it.
func TestDescentLemma(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	impureGap := false
	for i := range 12 {
		d := consistent(randomData(rng, 8+rng.IntN(8), 3, 2+i%2))
		want := bruteNodes(d)
		p, err := satjob.PrepareExamples(context.Background(), d, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		for n := want; n <= 2*len(p.Reps)-1; n += 2 {
			for _, o := range []dt1.Options{{}, {NonEmptyLeaves: true}, {ImpureSplits: true}} {
				e, err := dt1.Encode(context.Background(), nil, p.View, p.Tests, p.Reps, n, o)
				if err != nil {
					t.Fatal(err)
				}
				s := sat.NewCDCL()
				sat.AddCNF(s, e.CNF, 0)
				st, err := s.Solve(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case o.ImpureSplits:
					impureGap = impureGap || st == sat.Unsatisfiable
					if n == want && st != sat.Satisfiable {
						t.Errorf("%s: impure-splits refutes the optimum %d", d.Name, want)
					}
				case st != sat.Satisfiable:
					t.Errorf("%s, %+v: %d nodes %s, optimum %d, %d examples", d.Name, o, n, st, want, len(p.Reps))
				}
			}
		}
		if want < 3 {
			continue
		}
		for _, o := range []dt1.Options{{}, {NonEmptyLeaves: true}} {
			for _, limit := range []int{want, want - 2} {
				out, err := dt1.MinNodes(context.Background(), p, dt1.Settings{Options: o, Down: true, MaxNodes: limit})
				if err != nil {
					t.Fatal(err)
				}
				if limit == want && (!out.Optimal || out.Nodes != want) || limit < want && !out.Infeasible {
					t.Errorf("%s, %+v, node limit %d: %+v, optimum %d", d.Name, o, limit, out, want)
				}
			}
		}
	}
	if !impureGap {
		t.Errorf("impure-splits refuted no count above an optimum: the data do not show why it needs the upward search")
	}
}

// TestImpureSplitsSearch: impure-splits with a search other than up is a
// bad request.
func TestImpureSplitsSearch(t *testing.T) {
	d := consistent(randomData(rand.New(rand.NewPCG(1, 2)), 12, 3, 2))
	for _, search := range []string{"bisect", "down"} {
		_, err := odtkit.Solve(context.Background(), d, model.Problem{Objective: model.MinNodes, MaxDepth: model.NoDepthLimit},
			odtkit.Settings{Backend: "sat-dt1", Options: map[string]string{"impure-splits": "true", "search": search}})
		if err == nil || !errors.Is(err, backend.ErrInvalid) {
			t.Errorf("impure-splits, search=%s: %v", search, err)
		}
	}
}

// TestCheckedExternal: with CaDiCaL writing DRAT proofs ({drat}) its
// refutations are checked, so that sat-dt1 proves monk1's optimum
// without trust-solver (the same as odtkit's CDCL), and the stats count
// them; without a proof the same answers are only claimed. Skipped
// without cadical.
func TestCheckedExternal(t *testing.T) {
	if _, err := exec.LookPath("cadical"); err != nil {
		t.Skip("cadical is not installed (Debian: apt-get install cadical)")
	}
	_, d := monk1(t)
	own := solve(t, d, "sat-dt1", model.MinNodes, nil)
	run := func(cmd string) *model.Result {
		res, err := odtkit.Solve(context.Background(), d, model.Problem{Objective: model.MinNodes, MaxDepth: model.NoDepthLimit},
			odtkit.Settings{Backend: "sat-dt1", Options: map[string]string{satjob.OptSolver: "external:" + cmd}, TimeLimit: time.Minute})
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return res
	}
	res := run("cadical -q {in} {drat}")
	if !res.Optimal || res.Objective != float64(own) || res.Stats["checked_refutations"] == nil || res.Stats["unchecked_refutations"] != nil || res.ClaimedBound != nil {
		t.Errorf("with DRAT proofs: status %s, objective %v (own CDCL %d), claimed %v, stats %v", res.Status, res.Objective, own, res.ClaimedBound, res.Stats)
	}
	res = run("cadical -q {in}")
	if res.Optimal || res.ClaimedBound == nil || res.Stats["unchecked_refutations"] == nil || res.Stats["checked_refutations"] != nil {
		t.Errorf("without proofs: status %s, claimed %v, stats %v; want the optimum claimed", res.Status, res.ClaimedBound, res.Stats)
	}
}

// TestCertifyExternal: with CaDiCaL writing DRAT proofs ({drat}), the
// certificate holds each refuted formula and the LRAT proof its DRAT
// proof was elaborated into; odt certify's re-derivation from the data
// file proves the same bound as with odtkit's CDCL, and a tampered
// proof is refused. Skipped without cadical.
func TestCertifyExternal(t *testing.T) {
	if _, err := exec.LookPath("cadical"); err != nil {
		t.Skip("cadical is not installed (Debian: apt-get install cadical)")
	}
	path, d := monk1(t)
	dir := filepath.Join(t.TempDir(), "cert")
	p := model.Problem{Objective: model.MinNodes, MaxDepth: model.NoDepthLimit}
	res, err := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "sat-dt1",
		Options: map[string]string{"certify": dir, satjob.OptSolver: "external:cadical -q {in} {drat}"}})
	if err != nil {
		t.Fatal(err)
	}
	own := solve(t, d, "sat-dt1", model.MinNodes, nil)
	if !res.Optimal || !res.Certified || res.Objective != float64(own) || len(res.Certificate.Bounds) != (own-3)/2 {
		t.Fatalf("status %s certified %v objective %v (own CDCL %d), bounds %v", res.Status, res.Certified, res.Objective, own, res.Certificate)
	}
	sum, err := odtkit.CertifyDir(context.Background(), dir, path, 0)
	if err != nil {
		t.Fatalf("odt certify: %v", err)
	}
	if sum.Claim.Bound != res.Objective || sum.Claim.Objective != model.MinNodes {
		t.Errorf("re-derived claim %+v, want min-nodes %v", sum.Claim, res.Objective)
	}
	// Drop the empty clause's hints from the last proof: refused.
	proofs, _ := filepath.Glob(filepath.Join(dir, "*.lrat"))
	last := proofs[len(proofs)-1]
	b, err := os.ReadFile(last)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := strings.Fields(lines[len(lines)-1])
	lines[len(lines)-1] = strings.Join([]string{f[0], "0", "0"}, " ")
	if err := os.WriteFile(last, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := odtkit.CertifyDir(context.Background(), dir, path, 0); err == nil {
		t.Errorf("a tampered proof %s was accepted", filepath.Base(last))
	}
}
