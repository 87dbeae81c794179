package satodt

import (
	"context"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/sat"
)

// Counter chooses how a search counts the error in the formula (the
// option counter; "" is CounterLeaves).
type Counter string

const (
	// CounterLeaves counts each leaf's errors apart and sums the counts
	// along the tree, node by node: the solver sees every subtree's
	// error as a number it can bound and learn about.
	CounterLeaves Counter = "leaves"
	// CounterRows counts the soft literals in one counter, in group order.
	CounterRows Counter = "rows"
)

// counter adds the clauses of the error counter capped at limit.
func (s Settings) counter(ctx context.Context, f *Encoding, p *satjob.Prepared, limit int) (*sat.Totalizer, error) {
	all := make([]int, len(p.Groups))
	for g := range all {
		all[g] = g
	}
	if s.Counter == CounterRows {
		return rowCount(f, limit).add(ctx, all)
	}
	return newLeafCount(f, p, limit, true).add(ctx, all)
}

// errorCount is a counter of a tree's weighted error that grows with the
// groups it is given; add returns the counter of all groups so far, and
// assume the literals a solve bounding that counter must assume beside
// the bound.
type errorCount interface {
	add(ctx context.Context, groups []int) (*sat.Totalizer, error)
	assume() []sat.Lit
}

// rowCounter counts the soft literals of the groups in one totalizer.
type rowCounter struct {
	f   *Encoding
	tot *sat.Totalizer
}

func rowCount(f *Encoding, limit int) *rowCounter {
	return &rowCounter{f: f, tot: &sat.Totalizer{Cap: limit}}
}

func (r *rowCounter) add(ctx context.Context, groups []int) (*sat.Totalizer, error) {
	var lits []sat.Lit
	var ws []int
	for _, g := range groups {
		for _, i := range r.f.GroupSoft(g) {
			lits = append(lits, r.f.Soft[i].Lit)
			ws = append(ws, r.f.Soft[i].Weight)
		}
	}
	if err := r.tot.Add(ctx, r.f.CNF, lits, ws); err != nil {
		return nil, err
	}
	return r.tot, nil
}

func (r *rowCounter) assume() []sat.Lit { return nil }

// leafCounter counts the error leaf by leaf. For each leaf and class, a
// totalizer adds up the weight outside the class of the groups reaching
// the leaf: that is the leaf's error when it predicts the class, and
// whatever it predicts, the error is at least the smallest of them, so
// a leaf's error is known from its rows before its class is chosen. The
// leaves' errors are summed along the tree, node by node: every
// subtree's error is a number the solver can bound and learn about
// ("the left subtree errs on at least 5 rows") whatever the other side
// of its parent does.
type leafCounter struct {
	f     *Encoding
	p     *satjob.Prepared
	limit int
	other [][]*sat.Totalizer // [leaf][class]
	// majority (two classes) makes each leaf predict its heavier class.
	majority bool
	// gated is set on a counter that grows after it is first solved:
	// the majority clauses of an add compare the weights of the groups
	// given so far, which later groups may overturn (a leaf heavier in
	// class 0 on the first groups may be heavier in class 1 on all).
	// Each add then guards its majority clauses by a fresh literal
	// (gate, assumed by the solves through assume) and turns the
	// previous add's off for good.
	gated bool
	gate  sat.Lit
}

// newLeafCount starts a leaf counter cut at limit; with majority (two
// classes) each leaf must predict its heavier class, which every
// minimum-error tree can do and which spares the solver the choice.
func newLeafCount(f *Encoding, p *satjob.Prepared, limit int, majority bool) *leafCounter {
	lc := &leafCounter{f: f, p: p, limit: limit, other: make([][]*sat.Totalizer, 1<<f.Depth), majority: majority}
	for l := range lc.other {
		lc.other[l] = make([]*sat.Totalizer, f.Classes)
		for k := range lc.other[l] {
			lc.other[l][k] = &sat.Totalizer{Cap: limit}
		}
	}
	return lc
}

func (lc *leafCounter) add(ctx context.Context, groups []int) (*sat.Totalizer, error) {
	f := lc.f
	if lc.gated && lc.majority && f.Classes == 2 {
		if lc.gate != 0 {
			f.CNF.Add(lc.gate.Not())
		}
		lc.gate = f.CNF.NewVar()
	}
	reach := f.Reach(groups)
	level := make([]*sat.Totalizer, 0, len(reach))
	for l, rl := range reach {
		for k, t := range lc.other[l] {
			var in []sat.Lit
			var w []int
			for i, g := range groups {
				if x := lc.p.Groups[g].Total() - lc.p.Groups[g].Count[k]; x > 0 {
					in = append(in, rl[i])
					w = append(w, x)
				}
			}
			if err := t.Add(ctx, f.CNF, in, w); err != nil {
				return nil, err
			}
		}
		level = append(level, lc.leafError(l))
	}
	for len(level) > 1 {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		next := level[:0]
		for i := 0; i < len(level); i += 2 {
			next = append(next, sat.Sum(f.CNF, level[i], level[i+1]))
		}
		level = next
	}
	return level[0], nil
}

// leafError adds leaf l's error as a unary number from its classes'
// counters: output a is forced true when the class the leaf predicts,
// or every class, leaves at least a outside it.
func (lc *leafCounter) leafError(l int) *sat.Totalizer {
	f := lc.f
	out := make([]sat.Lit, 0, lc.limit)
	every := make([]sat.Lit, 0, f.Classes+1)
	for a := 1; a <= lc.limit; a++ {
		o := f.CNF.NewVar()
		out = append(out, o)
		every = every[:0]
		for k := range f.Classes {
			x := lc.other[l][k].AtLeast(a)
			if x == 0 {
				continue // no prediction of k errs on a
			}
			// "The leaf predicts k": a literal, or with more than two
			// classes for class 0 when no class literal may be true
			// (read as 0), the absence of the others.
			cl := []sat.Lit{x.Not(), o}
			if f.Classes == 2 || k > 0 || f.sidesOnly {
				cl = append(cl, f.Predicts(l, k).Not())
			} else {
				for j := 1; j < f.Classes; j++ {
					cl = append(cl, f.Y.Lit(l, j))
				}
			}
			f.CNF.Add(cl...)
			every = append(every, x.Not())
		}
		if len(every) == f.Classes {
			f.CNF.Add(append(every, o)...)
		}
		if f.Classes == 2 && lc.majority {
			// The leaf predicts its heavier class: if class 1
			// outweighs class 0 by reaching a while class 0 does not,
			// it predicts 1, and the other way round. Some optimal
			// tree does so at every leaf.
			// A class with no output at a weighs less than a on the
			// groups given so far.
			n1, n0 := lc.other[l][0].AtLeast(a), lc.other[l][1].AtLeast(a)
			y := f.Y.Lit(l)
			switch {
			case n1 != 0 && n0 != 0:
				lc.addGated(n1.Not(), n0, y)
				lc.addGated(n0.Not(), n1, y.Not())
			case n1 != 0:
				lc.addGated(n1.Not(), y)
			case n0 != 0:
				lc.addGated(n0.Not(), y.Not())
			}
		}
	}
	return sat.Unary(lc.limit, out)
}

// addGated adds a majority clause, guarded by the current gate if any.
func (lc *leafCounter) addGated(lits ...sat.Lit) {
	if lc.gate != 0 {
		lits = append(lits, lc.gate.Not())
	}
	lc.f.CNF.Add(lits...)
}

func (lc *leafCounter) assume() []sat.Lit {
	if lc.gate == 0 {
		return nil
	}
	return []sat.Lit{lc.gate}
}
