package satodd_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/encode/satodd"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// withWeights gives d whole row weights in 1..3.
func withWeights(rng *rand.Rand, d *model.Dataset) *model.Dataset {
	d.Weights = make([]float64, d.Rows())
	for r := range d.Weights {
		d.Weights[r] = float64(1 + rng.IntN(3))
	}
	d.Name += "-weighted"
	return d
}

// repeated is d without weights, each row repeated as often as its
// weight.
func repeated(d *model.Dataset) *model.Dataset {
	var rows []int
	for r := range d.Rows() {
		for range int(d.Weight(r)) {
			rows = append(rows, r)
		}
	}
	out := d.Subset(rows)
	out.Weights = nil
	out.Name = d.Name + "-repeated"
	return out
}

// bruteDiagram is the least objective of a diagram on the skeleton over
// 0/1 features, by trying every node's state (inactive, or a feature and
// the targets of its two sides: a node of the next layer or a class),
// routing every row and counting its weight when misclassified; the
// internal nodes are those reachable from the root. It shares nothing
// with the formula but the meaning of the objective.
func bruteDiagram(d *model.Dataset, skeleton []int, alpha float64) float64 {
	var layers [][]state // per layer, the node states enumerated
	k := len(d.Classes)
	for l := range skeleton {
		next := 0
		if l+1 < len(skeleton) {
			next = skeleton[l+1]
		}
		var states []state
		if l > 0 {
			states = append(states, state{feature: -1}) // inactive
		}
		for f := range d.Features {
			for lo := -k; lo < next; lo++ {
				for hi := -k; hi < next; hi++ {
					states = append(states, state{f, lo, hi})
				}
			}
		}
		layers = append(layers, states)
	}
	total := 0
	for _, w := range skeleton {
		total += w
	}
	var nodes [][]state // the diagram being built, per layer
	for _, w := range skeleton {
		nodes = append(nodes, make([]state, w))
	}
	best := math.Inf(1)
	var try func(l, i int)
	try = func(l, i int) {
		if l == len(skeleton) {
			best = min(best, diagramObjective(d, nodes, total, alpha))
			return
		}
		if i == skeleton[l] {
			try(l+1, 0)
			return
		}
		for _, s := range layers[l] {
			nodes[l][i] = s
			try(l, i+1)
		}
	}
	try(0, 0)
	return best
}

// state is a node of a brute-force diagram: inactive (feature −1), or
// testing feature with the targets lo and hi of its two sides (≥ 0: a
// node of the next layer; < 0: the class −1−target).
type state struct{ feature, lo, hi int }

// diagramObjective routes every row through the nodes (infinite when an
// arc leads to an inactive node).
func diagramObjective(d *model.Dataset, nodes [][]state, total int, alpha float64) float64 {
	// Every arc must lead to an active node.
	for l, layer := range nodes {
		for _, s := range layer {
			if s.feature < 0 {
				continue
			}
			for _, t := range []int{s.lo, s.hi} {
				if t >= 0 && nodes[l+1][t].feature < 0 {
					return math.Inf(1)
				}
			}
		}
	}
	reached := map[[2]int]bool{{0, 0}: true}
	for l, layer := range nodes {
		for i, s := range layer {
			if !reached[[2]int{l, i}] {
				continue
			}
			for _, t := range []int{s.lo, s.hi} {
				if t >= 0 {
					reached[[2]int{l + 1, t}] = true
				}
			}
		}
	}
	wrong, all := 0.0, 0.0
	for r := range d.Rows() {
		l, i := 0, 0
		for {
			s := nodes[l][i]
			t := s.lo
			if d.Features[s.feature].Values[r] > 0.5 {
				t = s.hi
			}
			if t < 0 {
				if -1-t != d.Labels[r] {
					wrong += d.Weight(r)
				}
				break
			}
			l, i = l+1, t
		}
		all += d.Weight(r)
	}
	obj := wrong / all
	if len(reached) > 1 {
		obj += alpha * float64(len(reached)-1) / float64(total-1)
	}
	return obj
}

// TestWeightsBrute: on tiny weighted 0/1 data, sat-odd's optimum equals
// the least objective over every diagram on the skeleton, whether the
// bounds are refuted root test by root test or on the whole diagram.
func TestWeightsBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	skeletons := [][]int{{1, 2}, {1, 1, 1}, {1, 2}}
	alphas := []float64{0, 0.1, 0.5, 0.02}
	for i := range 8 {
		k := 2 + i%2
		sk := skeletons[i%len(skeletons)]
		if k == 3 {
			sk = []int{1, 2}
		}
		d := withWeights(rng, binaryData(rng, 8+rng.IntN(6), 2+i%2, k))
		p := model.Problem{Objective: model.DiagramError, Skeleton: sk, Alpha: alphas[i%len(alphas)]}
		want := bruteDiagram(d, sk, p.Alpha)
		// Bounds refuted root test by root test, and on the whole diagram.
		opts := map[string]string{"per-root": fmt.Sprint(i%2 == 0)}
		res := run(t, satodd.Backend{}, d, p, opts)
		if !res.Optimal {
			t.Errorf("%s %v α=%v %v: not proven (%v)", d.Name, sk, p.Alpha, opts, res.Status)
			continue
		}
		if math.Abs(res.Objective-want) > 1e-9 {
			t.Errorf("%s %v α=%v: sat-odd %v (weighted errors %v, %d nodes), brute force %v", d.Name, sk, p.Alpha,
				res.Objective, res.Model.WeightedErrors(d), res.Model.InternalNodes(), want)
		}
		if math.Abs(res.LowerBound-res.Objective) > 1e-9 {
			t.Errorf("%s: optimal with the lower bound %v below %v", d.Name, res.LowerBound, res.Objective)
		}
	}
}

// TestWeightsRepeatedRows: a row of weight w counts as w rows: sat-odd
// on weighted data equals sat-odd and milp-odd (with HiGHS) on the data
// with each row repeated.
func TestWeightsRepeatedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	skeletons := [][]int{{1, 2}, {1, 2, 2}, {1, 2, 3}}
	alphas := []float64{0.01, 0.1, 0, 0.5}
	both := 0
	for i := range 6 {
		d := withWeights(rng, binaryData(rng, 8+rng.IntN(5), 3, 2+i%2))
		e := repeated(d)
		p := model.Problem{Objective: model.DiagramError, Skeleton: skeletons[i%len(skeletons)], Alpha: alphas[i%len(alphas)]}
		w := run(t, satodd.Backend{}, d, p)
		r := run(t, satodd.Backend{}, e, p)
		if !w.Optimal || !r.Optimal {
			t.Errorf("%s %v: weighted optimal %v, repeated optimal %v", d.Name, p.Skeleton, w.Optimal, r.Optimal)
			continue
		}
		if math.Abs(w.Objective-r.Objective) > 1e-9 {
			t.Errorf("%s %v α=%v: weighted %v, rows repeated %v", d.Name, p.Skeleton, p.Alpha, w.Objective, r.Objective)
		}
		if !milp.HiGHSEnabled {
			continue
		}
		m := run(t, odd.DiagramBackend{}, e, p)
		if !m.Optimal {
			t.Logf("%s %v: milp-odd not proven", d.Name, p.Skeleton)
			continue
		}
		both++
		if math.Abs(w.Objective-m.Objective) > 1e-9 {
			t.Errorf("%s %v α=%v: sat-odd weighted %v, milp-odd on repeated rows %v", d.Name, p.Skeleton, p.Alpha, w.Objective, m.Objective)
		}
	}
	if milp.HiGHSEnabled && both < 4 {
		t.Errorf("milp-odd proved only %d of 6", both)
	} else if !milp.HiGHSEnabled {
		t.Log("HiGHS is not built in (build with -tags highs): milp-odd not compared")
	}
}

// TestWeightsFractional: a fractional row weight is refused, naming the
// row, by NewJob and by Solve given a job made without that check.
func TestWeightsFractional(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	d := withWeights(rng, binaryData(rng, 12, 3, 2))
	d.Weights[4] = 1.5
	p := model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}, Alpha: 0.1}
	_, err := backend.NewJob(satodd.Backend{}.Info(), d, p, nil)
	if !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "row 5") {
		t.Errorf("NewJob: %v", err)
	}
	info := satodd.Backend{}.Info()
	info.Caps.Weights = backend.AnyWeights // a job made without that check
	job, err := backend.NewJob(info, d, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := satodd.Backend{}.Solve(context.Background(), job)
	if !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "row 5") {
		t.Errorf("Solve: %+v, %v", res, err)
	}
}

// TestSearchClauseBudget: a formula with its counter above the clause
// budget ends the search at once with the incumbent, unproven; with the
// budget lifted the same search proves a better diagram.
func TestSearchClauseBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	d := withWeights(rng, binaryData(rng, 30, 4, 2))
	skeleton := []int{1, 2}
	p, err := satjob.Prepare(context.Background(), model.Binarize(d))
	if err != nil {
		t.Fatal(err)
	}
	costs, err := satodd.ScaledCosts(int(d.TotalWeight()), skeleton, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	b := model.NewBuilder(d, model.KindDiagram)
	k, _ := model.Majority(d.ClassCounts())
	inc := b.Graph(b.Leaf(k))
	newSolver := func() (sat.Solver, error) { return sat.NewSolver("cdcl") }
	out, err := satodd.Search(context.Background(), p, skeleton, costs, inc, costs.Cost(d, inc), satodd.Settings{MaxClauses: 500, NewSolver: newSolver})
	if err != nil {
		t.Fatal(err)
	}
	if !out.TooLarge || out.Optimal || out.Model != inc {
		t.Errorf("budget of 500 clauses: %+v", out)
	}
	out, err = satodd.Search(context.Background(), p, skeleton, costs, inc, costs.Cost(d, inc), satodd.Settings{NewSolver: newSolver})
	if err != nil {
		t.Fatal(err)
	}
	if out.TooLarge || !out.Optimal || out.Cost >= costs.Cost(d, inc) {
		t.Errorf("no budget: %+v", out)
	}
}
