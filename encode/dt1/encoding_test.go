package dt1

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// treeAssumptions states tree g in the formula's variables, numbered
// breadth first (the m-th internal node's children are 2m and 2m+1): each
// node's leaf flag, an internal node's left child and feature (a feature
// that routes the examples as its test does, children swapped for a
// complement), a leaf's class. ok is false when a test has no such
// feature.
func treeAssumptions(e *Encoding, g *model.Graph) (as []sat.Lit, ok bool) {
	d := e.View.Data
	high := func(n model.Node, r int) bool {
		x := d.Features[n.Feature].Values[r]
		if n.IsCategory {
			return d.Features[n.Feature].Levels[int(x)] == n.Category
		}
		return x > n.Threshold
	}
	queue := []int{g.Root}
	internal := 0
	for i := 1; i <= len(queue); i++ {
		n := g.Nodes[queue[i-1]]
		if n.Leaf {
			as = append(as, e.v[i])
			switch {
			case e.nc > 2:
				as = append(as, e.c[i][n.Class])
			case n.Class == 1:
				as = append(as, e.c[i][0])
			default:
				as = append(as, -e.c[i][0])
			}
			continue
		}
		internal++
		as = append(as, -e.v[i])
		lo, hi, f := n.Low, n.High, -1
		for k, t := range e.Tests {
			same, comp := true, true
			for _, r := range e.Rows {
				h := high(n, r)
				same = same && e.View.True[t].Has(r) == h
				comp = comp && e.View.True[t].Has(r) != h
			}
			if same || comp {
				f = k
				if comp {
					lo, hi = hi, lo
				}
				break
			}
		}
		if f < 0 || 2*internal >= len(e.l[i]) || e.l[i][2*internal] == 0 {
			return nil, false
		}
		as = append(as, e.a[i][f], e.l[i][2*internal])
		queue = append(queue, lo, hi)
	}
	return as, true
}

// TestAdmitsTree: the formula of N nodes holds dl85's min-nodes tree of N
// nodes (numbered breadth first, which the leaf counting demands), on
// random data and on monk3 (33 nodes), with and without leaf counting: the
// encoding cuts no optimal tree off.
func TestAdmitsTree(t *testing.T) {
	var data []*model.Dataset
	rng := rand.New(rand.NewPCG(11, 12))
	for range 8 {
		d := &model.Dataset{Name: "random", Classes: []string{"a", "b", "c"}}
		n := 20 + rng.IntN(20)
		for j := range 4 {
			f := model.Feature{Name: string(rune('w' + j)), Values: make([]float64, n)}
			for r := range n {
				f.Values[r] = float64(rng.IntN(3))
			}
			d.Features = append(d.Features, f)
		}
		d.Labels = make([]int, n)
		for r := range n {
			d.Labels[r] = (int(d.Features[0].Values[r]) + int(d.Features[1].Values[r])*rng.IntN(2)) % 3
		}
		keep, _, _ := d.ConsistentRows(true)
		var rows []int
		for r := range n {
			if keep.Has(r) {
				rows = append(rows, r)
			}
		}
		data = append(data, d.Subset(rows))
	}
	dir := shared.Dir(t, "data/inferdt/monk3.csv")
	monk3, err := model.ReadFile(filepath.Join(dir, "data", "inferdt", "monk3.csv"), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, monk3)
	for _, d := range data {
		job, err := backend.NewJob(dl85.Backend{}.Info(), d, model.Problem{Objective: model.MinNodes, MaxDepth: model.NoDepthLimit}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := dl85.Backend{}.Solve(context.Background(), job)
		if err != nil || !res.Optimal {
			t.Fatalf("dl85: %v %+v", err, res)
		}
		g := res.Model
		p, err := satjob.PrepareExamples(context.Background(), d, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{}, {NoCounting: true, AMO: AMOPairwise}, {NonEmptyLeaves: true, ImpureSplits: true}} {
			e, err := Encode(context.Background(), nil, p.View, p.Tests, p.Reps, g.Size(), opt)
			if err != nil {
				t.Fatal(err)
			}
			as, ok := treeAssumptions(e, g)
			if !ok {
				t.Fatalf("%s: a test of dl85's tree routes the examples as no feature does", d.Name)
			}
			s := sat.NewCDCL()
			sat.AddCNF(s, e.CNF, 0)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			st, err := s.Solve(ctx, as...)
			cancel()
			if err != nil || st != sat.Satisfiable {
				t.Fatalf("%s, %d nodes, %+v: dl85's tree is not a model (%s, %v)", d.Name, g.Size(), opt, st, err)
			}
			h, err := e.Decode(s.Value)
			if err != nil || h.Size() != g.Size() || h.Errors(d) != 0 {
				t.Fatalf("%s: decoded %d nodes, %d errors (%v)", d.Name, h.Size(), h.Errors(d), err)
			}
		}
	}
}
