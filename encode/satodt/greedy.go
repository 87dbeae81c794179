package satodt

import (
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/sat"
)

// Assignment is a complete tree of the formula's shape: Test[node] a kept
// test per internal node (heap order), Class[leaf] a class per leaf.
type Assignment struct {
	Test, Class []int
}

// Greedy grows a complete tree of depth d ≥ 1 top-down: each node takes
// the test whose two sides' majority errors add up least (ties: lowest
// index) among the tests its ancestors do not use (unless o.Repeats),
// and each leaf predicts its rows' majority (its parent's when no row
// reaches it). It is a first assignment for the search to start from.
func Greedy(p *satjob.Prepared, d int, o Options) Assignment {
	nodes := 1<<d - 1
	a := Assignment{Test: make([]int, nodes), Class: make([]int, 1<<d)}
	errOf := func(cnt []int) (int, int) {
		k, best, tot := 0, -1, 0
		for c, x := range cnt {
			tot += x
			if x > best {
				k, best = c, x
			}
		}
		return k, tot - best
	}
	lo, hi := make([]int, p.Classes), make([]int, p.Classes)
	var grow func(n int, groups []int, used []int, parent int)
	grow = func(n int, groups []int, used []int, parent int) {
		cnt := make([]int, p.Classes)
		for _, g := range groups {
			for k, x := range p.Groups[g].Count {
				cnt[k] += x
			}
		}
		k, _ := errOf(cnt)
		if len(groups) == 0 {
			k = parent
		}
		if n >= nodes {
			a.Class[n-nodes] = k
			return
		}
		best, bestErr := -1, 0
		for t := range p.Tests {
			if !o.Repeats && len(p.Tests) >= d && contains(used, t) {
				continue
			}
			clear(lo)
			clear(hi)
			for _, g := range groups {
				side := lo
				if p.Value(g, t) {
					side = hi
				}
				for c, x := range p.Groups[g].Count {
					side[c] += x
				}
			}
			_, el := errOf(lo)
			_, eh := errOf(hi)
			if best < 0 || el+eh < bestErr {
				best, bestErr = t, el+eh
			}
		}
		a.Test[n] = best
		var gl, gh []int
		for _, g := range groups {
			if p.Value(g, best) {
				gh = append(gh, g)
			} else {
				gl = append(gl, g)
			}
		}
		used = append(used, best)
		grow(2*n+1, gl, used, k)
		grow(2*n+2, gh, used, k)
	}
	all := make([]int, len(p.Groups))
	for g := range all {
		all[g] = g
	}
	grow(0, all, nil, 0)
	if o.Dead && p.Classes == 2 {
		for m := 1<<(d-1) - 1; m < nodes; m++ {
			if a.Class[2*m+1-nodes] == a.Class[2*m+2-nodes] {
				a.Test[m] = 0
			}
		}
	}
	return a
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
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
