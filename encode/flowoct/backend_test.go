package flowoct_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// randomData is n rows of f features (0/1, or small integers when
// numeric) and k classes, the label a noisy function of the first two
// features; weighted gives every row a random positive weight.
func randomData(seed uint64, n, f, k int, numeric, weighted bool) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 31))
	d := &model.Dataset{Name: fmt.Sprint("rnd", seed)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprint("f", j), Kind: model.Numeric, Values: make([]float64, n)})
	}
	levels := 2
	if numeric {
		levels = 4
	}
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(levels))
		}
		l := (int(d.Features[0].Values[i]) + 2*int(d.Features[1].Values[i])) % k
		if r.IntN(4) == 0 {
			l = r.IntN(k)
		}
		d.Labels = append(d.Labels, l)
		if weighted {
			d.Weights = append(d.Weights, float64(1+r.IntN(5))/2)
		}
	}
	return d
}

func needHiGHS(t *testing.T) {
	t.Helper()
	if !milp.HiGHSEnabled {
		t.Skip("HiGHS is not built in: build with -tags highs to run the MILP agreement tests")
	}
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

// TestErrorsAgreeWithDL85AndODT: on generated data (binary and numeric
// features, two and three classes, with and without weights) the
// proven optimum of milp-flowoct equals dl85's and milp-odt's.
func TestErrorsAgreeWithDL85AndODT(t *testing.T) {
	needHiGHS(t)
	cases := []struct {
		n, f, k          int
		numeric, weights bool
		depth            int
	}{
		{24, 4, 2, false, false, 1},
		{24, 4, 2, false, false, 2},
		{20, 3, 3, true, false, 2},
		{22, 4, 2, false, true, 2},
		{18, 3, 3, true, true, 1},
		{16, 3, 2, true, false, 3},
	}
	for i, c := range cases {
		d := randomData(uint64(i+1), c.n, c.f, c.k, c.numeric, c.weights)
		p := model.Problem{MaxDepth: c.depth}
		flow := solve(t, d, p, "milp-flowoct", nil)
		dl := solve(t, d, p, "dl85", nil)
		if math.Abs(flow.Objective-dl.Objective) > 1e-9 {
			t.Errorf("%s depth %d: milp-flowoct %v, dl85 %v", d.Name, c.depth, flow.Objective, dl.Objective)
		}
		if c.depth <= 2 && !c.numeric {
			// milp-odt is slow on numeric columns and deeper trees.
			odt := solve(t, d, p, "milp-odt", nil)
			if math.Abs(flow.Objective-odt.Objective) > 1e-9 {
				t.Errorf("%s depth %d: milp-flowoct %v, milp-odt %v", d.Name, c.depth, flow.Objective, odt.Objective)
			}
		}
		// The LP bound is that of the one MILP (no decomposition).
		pub := solve(t, d, p, "milp-flowoct", map[string]string{"decompose": "0"})
		if _, ok := pub.Stats["lp_bound"]; !ok {
			t.Errorf("%s: no lp_bound in the stats %v", d.Name, pub.Stats)
		}
	}
}

// TestSparseAndNodeLimitAgreeWithDL85: the leaf cost and the node limit
// (the general form, internal nodes that predict) give dl85's optima.
func TestSparseAndNodeLimitAgreeWithDL85(t *testing.T) {
	needHiGHS(t)
	for i, p := range []model.Problem{
		{MaxDepth: 2, MaxNodes: 1},
		{MaxDepth: 3, MaxNodes: 2},
		{MaxDepth: 2, LeafCost: 0.05},
		{MaxDepth: 3, LeafCost: 0.02, MaxNodes: 3},
	} {
		d := randomData(uint64(40+i), 20, 3, 2, i%2 == 1, false)
		flow := solve(t, d, p, "milp-flowoct", nil)
		dl := solve(t, d, p, "dl85", nil)
		if math.Abs(flow.Objective-dl.Objective) > 1e-9 {
			t.Errorf("%s %+v: milp-flowoct %v, dl85 %v", d.Name, p, flow.Objective, dl.Objective)
		}
	}
}

// consistentData is random data with no two identical rows of
// different labels (later duplicates take the first one's label).
func consistentData(seed uint64, n, f, k int) *model.Dataset {
	d := randomData(seed, n, f, k, false, false)
	seen := map[string]int{}
	for i := range n {
		key := ""
		for j := range f {
			key += fmt.Sprint(d.Features[j].Values[i], ",")
		}
		if l, ok := seen[key]; ok {
			d.Labels[i] = l
		} else {
			seen[key] = d.Labels[i]
		}
	}
	return d
}

// TestPerfectTreesAgreeWithSAT: the minimum depth and the minimum size
// of a tree with no training error equal sat-depth's and sat-size's.
func TestPerfectTreesAgreeWithSAT(t *testing.T) {
	needHiGHS(t)
	for i := range 5 {
		d := consistentData(uint64(60+i), 12+2*i, 5, 2+i%2)
		for _, obj := range []model.Objective{model.MinDepth, model.MinSize} {
			p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
			flow := solve(t, d, p, "milp-flowoct", nil)
			sat := "sat-depth"
			if obj == model.MinSize {
				sat = "sat-size"
			}
			s := solve(t, d, p, sat, nil)
			if flow.Objective != s.Objective || flow.Errors != 0 {
				t.Errorf("%s %s: milp-flowoct %v (%d errors), %s %v", d.Name, obj, flow.Objective, flow.Errors, sat, s.Objective)
			}
		}
	}
}

// TestPerfectTreesDepthCap: a depth cap below the minimum depth is
// infeasible; at the minimum it gives the same answer.
func TestPerfectTreesDepthCap(t *testing.T) {
	needHiGHS(t)
	d := consistentData(71, 16, 5, 3)
	free := solve(t, d, model.Problem{Objective: model.MinSize, MaxDepth: model.NoDepthLimit}, "milp-flowoct", nil)
	k := free.Model.Depth()
	if k < 2 {
		t.Skipf("minimum depth %d: no cap below it to test", k)
	}
	capped := solve(t, d, model.Problem{Objective: model.MinSize, MaxDepth: k}, "milp-flowoct", nil)
	if capped.Objective != free.Objective {
		t.Errorf("cap %d: size %v, uncapped %v", k, capped.Objective, free.Objective)
	}
	res, err := odtkit.Solve(context.Background(), d, model.Problem{Objective: model.MinDepth, MaxDepth: k - 1}, odtkit.Settings{Backend: "milp-flowoct"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != model.StatusInfeasible || res.Model != nil {
		t.Errorf("cap %d below the minimum depth %d: %s, model %v", k-1, k, res.Status, res.Model != nil)
	}
}

// TestConflictingRowsAsSATDepth: identical rows with different labels
// fail with sat-depth's message, and drop-conflicts gives sat-depth's
// answer.
func TestConflictingRowsAsSATDepth(t *testing.T) {
	d := consistentData(80, 16, 5, 2)
	for j := range d.Features {
		d.Features[j].Values[1] = d.Features[j].Values[0]
	}
	d.Labels[1] = 1 - d.Labels[0]
	p := model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}
	_, errF := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "milp-flowoct"})
	_, errS := odtkit.Solve(context.Background(), d, p, odtkit.Settings{Backend: "sat-depth"})
	if errF == nil || errS == nil || !errors.Is(errF, backend.ErrInvalid) {
		t.Fatalf("conflicting rows: milp-flowoct %v, sat-depth %v", errF, errS)
	}
	// The registry prefixes the backend's name.
	mf, _ := strings.CutPrefix(errF.Error(), "milp-flowoct: ")
	ms, _ := strings.CutPrefix(errS.Error(), "sat-depth: ")
	if mf != ms || !strings.Contains(mf, "drop-conflicts") {
		t.Errorf("messages differ:\nmilp-flowoct: %v\nsat-depth:    %v", errF, errS)
	}
	needHiGHS(t)
	opts := map[string]string{"drop-conflicts": "true"}
	f := solve(t, d, p, "milp-flowoct", opts)
	s := solve(t, d, p, "sat-depth", opts)
	if f.Objective != s.Objective || f.DroppedRows != s.DroppedRows {
		t.Errorf("drop-conflicts: milp-flowoct depth %v (%d dropped), sat-depth %v (%d dropped)", f.Objective, f.DroppedRows, s.Objective, s.DroppedRows)
	}
}
