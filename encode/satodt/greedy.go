package satodt

import (
	"context"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/sat"
)

// Assignment is a complete tree of the formula's shape: Test[node] a kept
// test per internal node (heap order), Class[leaf] a class per leaf.
type Assignment struct {
	Test, Class []int
}

// Greedy is cart's complete tree of depth d ≥ 1 (dp/cart: the test of
// least Gini impurity at each node) on the prepared rows and kept tests
// (at least one), with no test repeated on a path unless o.Repeats (or
// there are fewer tests than levels); a leaf no row reaches predicts its
// parent's class. With o.Dead, a node above two leaves of one class then
// tests 0, as the formula asks. It is a first assignment for the search
// to start from.
func Greedy(p *satjob.Prepared, d int, o Options) Assignment {
	nodes := 1<<d - 1
	a := Assignment{Test: make([]int, nodes), Class: make([]int, 1<<d)}
	tests := p.Tests
	if tests == nil {
		tests = []int{} // none (nil would be all the view's)
	}
	cfg := cart.Config{Complete: true, Tests: tests, NoRepeat: !o.Repeats && len(p.Tests) >= d}
	tree, _ := cart.GrowTree(context.Background(), p.View, d, cfg)
	index := make(map[int]int, len(p.Tests))
	for j, vt := range p.Tests {
		index[vt] = j
	}
	var put func(n int, nd *cart.Node)
	put = func(n int, nd *cart.Node) {
		if n >= nodes {
			a.Class[n-nodes] = nd.Class
			return
		}
		if nd.Test < 0 {
			// No test allowed (none kept): the leaves below take its class.
			put(2*n+1, nd)
			put(2*n+2, nd)
			return
		}
		a.Test[n] = index[nd.Test]
		put(2*n+1, nd.Low)
		put(2*n+2, nd.High)
	}
	put(0, tree)
	if o.Dead && p.Classes == 2 {
		for m := 1<<(d-1) - 1; m < nodes; m++ {
			if a.Class[2*m+1-nodes] == a.Class[2*m+2-nodes] {
				a.Test[m] = 0
			}
		}
	}
	return a
}

// Values is the assignment of the formula's variables (indexed by
// variable, entry 0 unused) that the tree a induces: its tests and
// classes, each group's side at each node and the soft literals of the
// rows it misclassifies. Variables beyond the formula's own (a counter's)
// are false.
func (f *Encoding) Values(p *satjob.Prepared, a Assignment) []bool {
	val := make([]bool, f.CNF.NumVars+1)
	set := func(l sat.Lit, b bool) {
		if l < 0 {
			l, b = -l, !b
		}
		val[l] = b
	}
	nodes := 1<<f.Depth - 1
	for n := range nodes {
		set(f.F.Lit(n, a.Test[n]), true)
		for g := range p.Groups {
			set(f.L.Lit(n, g), !p.Value(g, a.Test[n]))
		}
	}
	for l, k := range a.Class {
		set(f.Predicts(l, k), true)
	}
	for i := range f.S.Count {
		m := 1<<(f.Depth-1) - 1 + i
		set(f.S.Lit(i), a.Class[2*m+1-nodes] == a.Class[2*m+2-nodes])
	}
	for _, s := range f.Soft {
		n := 0
		for n < nodes {
			if p.Value(s.Group, a.Test[n]) {
				n = 2*n + 2
			} else {
				n = 2*n + 1
			}
		}
		set(s.Lit, a.Class[n-nodes] != s.Class)
	}
	return val
}
