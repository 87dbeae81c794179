package satodt

import (
	"context"

	"github.com/odtkit/odtkit/sat"
)

// errorCount is a counter of a tree's weighted error that grows with the
// groups it is given; add returns the counter of all groups so far.
type errorCount interface {
	add(ctx context.Context, groups []int) (*sat.Totalizer, error)
}

// rowCounter counts the soft literals of the groups in one totalizer.
type rowCounter struct {
	f   *Formula
	tot *sat.Totalizer
}

func rowCount(f *Formula, limit int) *rowCounter {
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
	f     *Formula
	p     *Prepared
	limit int
	other [][]*sat.Totalizer // [leaf][class]
}

func newLeafCount(f *Formula, p *Prepared, limit int) *leafCounter {
	lc := &leafCounter{f: f, p: p, limit: limit, other: make([][]*sat.Totalizer, 1<<f.Depth)}
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
			// classes for class 0 (read when no class literal is
			// true), the absence of the others.
			cl := []sat.Lit{x.Not(), o}
			if f.Classes == 2 || k > 0 {
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
	}
	return sat.Unary(lc.limit, out)
}
