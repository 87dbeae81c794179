//go:build highs

package odd

import (
	"bufio"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

func solve(t *testing.T, e *Encoding) *milp.Solution {
	t.Helper()
	sol, err := milp.HiGHS().Solve(context.Background(), e.Model, milp.Params{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != milp.StatusOptimal {
		t.Fatalf("status %s (%s)", sol.Status, sol.SolverStatus)
	}
	return sol
}

// solveDecode solves e and decodes its optimum, checking that the graph's
// objective recomputed on the data equals the MILP's.
func solveDecode(t *testing.T, e *Encoding, d *model.Dataset) (*model.Graph, float64) {
	t.Helper()
	sol := solve(t, e)
	g, err := e.Decode(sol.X)
	if err != nil {
		t.Fatal(err)
	}
	obj := float64(g.Errors(d))/float64(d.Rows()) + e.NodeCost()*float64(g.InternalNodes()-1)
	if e.Opts.RowCost != nil {
		obj = g.WeightedErrors(d)
	}
	if math.Abs(obj-sol.Objective) > 1e-6 {
		t.Fatalf("MILP objective %v, its decoded graph %v\n%s", sol.Objective, obj, g.Text())
	}
	return g, obj
}

// through counts the rows of d that pass through each node of g (numeric
// threshold and linear tests only).
func through(g *model.Graph, d *model.Dataset) []int {
	cnt := make([]int, len(g.Nodes))
	for r := range d.Rows() {
		v := g.Root
		for {
			cnt[v]++
			nd := g.Nodes[v]
			if nd.Leaf {
				break
			}
			var s float64
			if nd.Weights != nil {
				for f, w := range nd.Weights {
					s += w * d.Features[f].Values[r]
				}
			} else {
				s = d.Features[nd.Feature].Values[r]
			}
			if s <= nd.Threshold {
				v = nd.Low
			} else {
				v = nd.High
			}
		}
	}
	return cnt
}

func TestTreeSpecialCaseMatchesExhaustiveSearch(t *testing.T) {
	cases := []struct {
		seed           uint64
		n, f, k, depth int
	}{{0, 60, 5, 2, 1}, {1, 40, 4, 3, 1}, {2, 24, 4, 2, 2}, {3, 30, 3, 2, 2}, {4, 20, 4, 3, 2}}
	for _, c := range cases {
		d := randomBinary(c.seed, c.n, c.f, c.k)
		e, err := Encode(context.Background(), d, Options{Skeleton: TreeSkeleton(c.depth), Tree: true})
		if err != nil {
			t.Fatal(err)
		}
		g, _ := solveDecode(t, e, d)
		want := bestTreeErrors(d, allRows(d), c.depth)
		if got := g.Errors(d); got != want {
			t.Fatalf("seed %d depth %d: MILP tree makes %d errors, the optimum is %d\n%s", c.seed, c.depth, got, want, g.Text())
		}
		if g.Kind != model.KindTree || g.Depth() > c.depth {
			t.Fatalf("not a tree of depth ≤ %d: %s", c.depth, g.Text())
		}
	}
}

func TestDiagramNeverWorseThanTree(t *testing.T) {
	for seed := range uint64(3) {
		d := randomBinary(10+seed, 16, 3, 2)
		opts := Options{Skeleton: []int{1, 2}, Alpha: 0.05}
		ed, _ := Encode(context.Background(), d, opts)
		opts.Tree = true
		et, _ := Encode(context.Background(), d, opts)
		_, od := solveDecode(t, ed, d)
		_, ot := solveDecode(t, et, d)
		if od > ot+1e-9 {
			t.Fatalf("seed %d: diagram objective %v worse than the tree's %v", seed, od, ot)
		}
	}
}

func TestMultivariateNeverWorseThanUnivariate(t *testing.T) {
	d := randomBinary(21, 16, 3, 2)
	eu, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}})
	em, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}, Multivariate: true})
	_, ou := solveDecode(t, eu, d)
	gm, om := solveDecode(t, em, d)
	if om > ou+1e-9 {
		t.Fatalf("multivariate %v worse than univariate %v", om, ou)
	}
	if gm.Nodes[gm.Root].Weights == nil {
		t.Fatalf("multivariate root has no weight vector")
	}
}

func TestParsimonyCap(t *testing.T) {
	d := randomBinary(5, 24, 4, 2)
	e, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}, MaxActive: 1})
	g, _ := solveDecode(t, e, d)
	if g.InternalNodes() != 1 {
		t.Fatalf("cap 1: %d internal nodes", g.InternalNodes())
	}
	// With one node the best is the best stump.
	if want := bestTreeErrors(d, allRows(d), 1); g.Errors(d) != want {
		t.Fatalf("capped diagram makes %d errors, the best stump %d", g.Errors(d), want)
	}
}

func TestStabilityForbidsSmallNodes(t *testing.T) {
	d := randomBinary(6, 24, 4, 2)
	free, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}})
	g0, o0 := solveDecode(t, free, d)
	// The smallest flow through a non-root node of the free optimum.
	small := d.Rows()
	cnt := through(g0, d)
	for v, nd := range g0.Nodes {
		if !nd.Leaf && v != g0.Root {
			small = min(small, cnt[v])
		}
	}
	if small == d.Rows() {
		t.Skip("the free optimum uses only the root")
	}
	S := small + 1
	st, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}, MinFlow: S})
	g, o := solveDecode(t, st, d)
	cnt = through(g, d)
	for v, nd := range g.Nodes {
		if !nd.Leaf && v != g.Root && cnt[v] < S {
			t.Fatalf("node %d holds %d rows < S = %d", v, cnt[v], S)
		}
	}
	if o < o0-1e-9 {
		t.Fatalf("the constrained optimum %v beats the free one %v", o, o0)
	}
}

func TestFairnessRatio(t *testing.T) {
	// The label follows the group column f0 closely: the free optimum
	// predicts the positive class almost only in group 1.
	d := randomBinary(8, 24, 3, 2)
	for i := range d.Labels {
		d.Labels[i] = int(d.Features[0].Values[i])
		if i%7 == 0 {
			d.Labels[i] = 1 - d.Labels[i]
		}
	}
	rate := func(g *model.Graph) (r1, r0 float64) {
		g1, g0 := FairGroups(d, 0)
		for _, i := range g1 {
			if g.Predict(d, i) == 1 {
				r1++
			}
		}
		for _, i := range g0 {
			if g.Predict(d, i) == 1 {
				r0++
			}
		}
		return r1 / float64(len(g1)), r0 / float64(len(g0))
	}
	fair := &Fairness{Column: 0, Positive: 1, Xi: 0.8}
	e, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}, Fair: fair})
	g, _ := solveDecode(t, e, d)
	r1, r0 := rate(g)
	if r1 < 0.8*r0-1e-9 || r0 < 0.8*r1-1e-9 {
		t.Fatalf("positive rates %v and %v break the four-fifths rule", r1, r0)
	}
	if g.Errors(d) == 0 {
		t.Fatalf("a fair diagram cannot fit this data")
	}
}

func TestHeuristicCutoff(t *testing.T) {
	d := randomBinary(3, 16, 3, 2)
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2, 2}, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	inc := e.Heuristic(context.Background(), 20, 1)
	if inc == nil {
		t.Fatal("no heuristic diagram")
	}
	want := float64(inc.Graph.Errors(d))/float64(d.Rows()) + 0.01*float64(inc.Graph.InternalNodes()-1)/4
	if math.Abs(inc.Objective-want) > 1e-12 {
		t.Fatalf("heuristic objective %v, recomputed %v", inc.Objective, want)
	}
	_, opt := solveDecode(t, e, d)
	if opt > inc.Objective+1e-9 {
		t.Fatalf("MILP optimum %v worse than the heuristic %v", opt, inc.Objective)
	}
	cut, err := milp.HiGHS().Solve(context.Background(), e.Model, milp.Params{Cutoff: inc.Objective, HasCutoff: true})
	if err != nil {
		t.Fatal(err)
	}
	better := opt < inc.Objective-1e-6
	if better && (cut.X == nil || math.Abs(cut.Objective-opt) > 1e-6 && cut.Status == milp.StatusOptimal) {
		t.Fatalf("a better diagram exists (%v < %v) but the cutoff solve says %s %v", opt, inc.Objective, cut.Status, cut.Objective)
	}
	// HiGHS's objective bound admits solutions equal to it: with an optimal
	// heuristic the cutoff solve proves infeasibility or returns its value.
	if !better && cut.Status != milp.StatusInfeasible &&
		(cut.Status != milp.StatusOptimal || math.Abs(cut.Objective-inc.Objective) > 1e-6) {
		t.Fatalf("the heuristic is optimal (%v) but the cutoff solve says %s %v", inc.Objective, cut.Status, cut.Objective)
	}
}

func TestExportedMPSSolvedByHiGHSProgram(t *testing.T) {
	bin, err := exec.LookPath("highs")
	if err != nil {
		t.Skip("the highs command-line program is not installed (scripts/install-highs.sh installs it)")
	}
	d := randomBinary(9, 20, 3, 2)
	e, _ := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}, Alpha: 0.1})
	_, want := solveDecode(t, e, d)
	dir := t.TempDir()
	path := filepath.Join(dir, "odd.mps")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := milp.WriteMPS(f, e.Model); err != nil {
		t.Fatal(err)
	}
	f.Close()
	solFile := filepath.Join(dir, "odd.sol")
	cmd := exec.Command(bin, "--model_file", path, "--solution_file", solFile)
	cmd.Dir = dir // the program writes HiGHS.log into its working directory
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("highs: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Optimal") {
		t.Fatalf("highs did not prove optimality:\n%s", out)
	}
	// The solution file: "Objective <value>" after the primal values header.
	sf, err := os.Open(solFile)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	got := math.NaN()
	sc := bufio.NewScanner(sf)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "Objective" {
			got, _ = strconv.ParseFloat(f[1], 64)
			break
		}
	}
	if math.Abs(got-want) > 1e-6 {
		t.Fatalf("highs program: objective %v, in-process optimum %v", got, want)
	}
}

func TestCategoricalAndRawNumericDecoding(t *testing.T) {
	// A three-level categorical column (one-hot) and a numeric column on
	// a raw scale: decoded tests must route every row as the MILP did.
	d := &model.Dataset{Name: "mixed", Classes: []string{"n", "y"},
		Features: []model.Feature{
			{Name: "colour", Kind: model.Categorical, Levels: []string{"red", "green", "blue"}},
			{Name: "size", Kind: model.Numeric},
		}}
	for i := range 18 {
		c, s := i%3, float64(100+7*i)
		d.Features[0].Values = append(d.Features[0].Values, float64(c))
		d.Features[1].Values = append(d.Features[1].Values, s)
		l := 0
		if c == 1 || s > 190 {
			l = 1
		}
		d.Labels = append(d.Labels, l)
	}
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := solveDecode(t, e, d)
	if g.Errors(d) != 0 {
		t.Fatalf("the concept colour=green or size>190 fits with two nodes; got %d errors\n%s", g.Errors(d), g.Text())
	}
	cat := false
	for _, nd := range g.Nodes {
		cat = cat || nd.IsCategory
	}
	if !cat {
		t.Fatalf("no categorical test:\n%s", g.Text())
	}
}

// The strengthenings (error cuts, pair cut, the layer-1 in-degree order) never cut
// off an optimal diagram: on small random problems the optimum is the
// same with and without them, for diagrams, trees, weighted rows, several
// classes, duplicated rows (a positive floor) and a node cost that makes
// the single split optimal (the stump cut then holds with equality).
func TestStrengtheningsKeepTheOptimum(t *testing.T) {
	cases := []struct {
		seed     uint64
		n, f, k  int
		o        Options
		weighted bool
	}{
		{1, 12, 3, 2, Options{Skeleton: []int{1, 2, 2}, Alpha: 0.05}, false},
		{2, 16, 2, 2, Options{Skeleton: []int{1, 2, 2}}, false},
		{3, 12, 3, 3, Options{Skeleton: []int{1, 2, 3}, Alpha: 0.01}, false},
		{4, 20, 3, 2, Options{Skeleton: []int{1, 2}, Alpha: 1}, false},
		{5, 16, 3, 2, Options{Skeleton: TreeSkeleton(2), Tree: true}, true},
		{6, 14, 3, 2, Options{Skeleton: []int{1, 2, 2}, Multivariate: true, Alpha: 0.02}, false},
		{7, 18, 4, 3, Options{Skeleton: TreeSkeleton(2), Tree: true, Alpha: 0.1}, false},
	}
	for _, c := range cases {
		d := randomBinary(c.seed, c.n, c.f, c.k)
		if c.weighted {
			c.o.RowCost = make([]float64, c.n)
			for i := range c.o.RowCost {
				c.o.RowCost[i] = float64(1 + i%3)
			}
			d.Weights = c.o.RowCost
		}
		var objs [2]float64
		for s, on := range []bool{false, true} {
			o := c.o
			o.ErrorCuts, o.FirstLayerOrder, o.PairCut, o.CountCut, o.DiagramCut = on, on, on, on, on
			e, err := Encode(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, objs[s] = solveDecode(t, e, d)
			t.Logf("seed %d strengthened %v: %.2fs", c.seed, on, time.Since(start).Seconds())
		}
		if math.Abs(objs[0]-objs[1]) > 1e-6 {
			t.Fatalf("seed %d %+v: optimum %v without the strengthenings, %v with them", c.seed, c.o, objs[0], objs[1])
		}
	}
}

// The floors of diagrams of at most two and three internal nodes equal
// the optimum of the paper's MILP (no strengthening) capped at two and
// three active nodes, on skeletons that allow both three-node shapes,
// one, or the other.
func TestSmallFloorsMatchTheMILP(t *testing.T) {
	checked := 0
	for seed := range uint64(2) {
		d := randomBinary(seed, 10+2*int(seed), 3, 2+int(seed%2))
		for _, sk := range [][]int{{1, 2, 2}, {1, 2}, {1, 1, 2}} {
			e, err := Encode(context.Background(), d, Options{Skeleton: sk})
			if err != nil {
				t.Fatal(err)
			}
			two, three, ok := e.smallFloors(context.Background(), e.newGroupView())
			if !ok {
				t.Fatal("not computed")
			}
			for cap, want := range map[int]float64{2: two, 3: three} {
				if cap > e.InternalNodes() {
					continue
				}
				c, err := Encode(context.Background(), d, Options{Skeleton: sk, MaxActive: cap})
				if err != nil {
					t.Fatal(err)
				}
				_, got := solveDecode(t, c, d)
				if math.Abs(got-want) > 1e-9 {
					t.Fatalf("seed %d skeleton %v: at most %d nodes: MILP %v rows, floor %v", seed, sk, cap, got*float64(d.Rows()), want*float64(d.Rows()))
				}
				checked++
			}
		}
	}
	if checked < 12 {
		t.Fatalf("only %d cases checked", checked)
	}
}
