// Package satodt learns a decision tree of bounded depth with the fewest
// (weighted) training errors from a propositional model: the complete
// tree of depth d as Boolean variables (one test per internal node, one
// class per leaf), one soft literal per group of identical rows and
// class, and unary counters whose outputs, assumed false, bound the
// error. The solve counts the error leaf by leaf (for each leaf and
// class, the weight outside the class of the rows reaching the leaf)
// and sums the leaves' counts along the tree, so the solver can bound a
// subtree's error before the leaves' classes are chosen and learn
// clauses about one side of a node whatever the other does; the
// exported formula counts the soft literals. The search descends from an
// incumbent (cart's greedy tree) through ever tighter bounds on one
// incremental solver until the bound is refuted, which proves the last
// tree optimal. It refutes each bound one root test at a time: with the
// root's test fixed the two subtrees are independent, which the solver
// cannot see on the whole tree, and a refuted root test is kept as a
// clause. A bound k refuted on every root test is a lower bound k+1, so
// a stopped search returns its best tree and a true bound.
//
// The formula is in the line of the MaxSAT models of Hu, Siala, Hebrard
// and Huguet (IJCAI 2020), on a fixed complete tree as in Narodytska et
// al.'s and Avellaneda's depth encodings: rows with the same tests are
// one group whose classes are soft literals weighted by their counts.
// The same hard clauses and soft literals are written as weighted
// MaxSAT (WCNF) and pseudo-Boolean (OPB) files for any external solver.
package satodt

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/sat"
)

// Soft is one soft literal of the objective: Lit true costs Weight
// (group Group's rows of class Class are misclassified).
type Soft struct {
	Lit    sat.Lit
	Weight int
	Group  int
	Class  int
}

// Encoding is the complete tree of depth Depth as clauses in CNF, with
// the soft literals of its error. Internal nodes are numbered 0..2^d-2
// in heap order (children of n: 2n+1 low, 2n+2 high), leaves 0..2^d-1
// from the left.
type Encoding struct {
	CNF   *sat.CNF
	Depth int
	// F[node][test]: the node tests kept test `test` (at least one per
	// node; the first true one is the node's test).
	F sat.Group
	// L[node][group]: the group goes low (its test is false) at the node.
	L sat.Group
	// Y is the leaves' classes: with two classes Y[leaf] is "class 1";
	// with more, Y[leaf][class] one-hot (at most one; none reads as 0).
	Y sat.Group
	// S[m] (Options.Dead, two classes): the leaves under the m-th node
	// of the last internal level predict the same class.
	S       sat.Group
	Classes int
	Soft    []Soft
	// groupSoft[g] lists the indices in Soft of group g's literals.
	groupSoft [][]int
	sidesOnly bool
}

// Encode writes the formula of depth d ≥ 1 for the prepared data: the
// tree's clauses (NewEncoding) and every group's (AddGroup). ctx is
// polled while it grows.
func Encode(ctx context.Context, p *satjob.Prepared, d int, o Options) (*Encoding, error) {
	f, err := NewEncoding(p, d, o)
	if err != nil {
		return nil, err
	}
	for g := range p.Groups {
		if g%64 == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		f.AddGroup(p, g)
	}
	return f, nil
}

// NewEncoding starts the formula of depth d ≥ 1, an encoding that grows
// (Encode builds one whole): it allocates every variable and adds the
// clauses of the tree alone, a test per node (none repeating an
// ancestor's unless o.Repeats) and at most one class per leaf. The
// groups' clauses come with AddGroup.
func NewEncoding(p *satjob.Prepared, d int, o Options) (*Encoding, error) {
	if d < 1 {
		return nil, fmt.Errorf("satodt: depth %d: the formula needs at least one test", d)
	}
	if d > MaxDepth {
		return nil, fmt.Errorf("satodt: depth %d exceeds the deepest complete tree the formula states (%d)", d, MaxDepth)
	}
	if len(p.Tests) == 0 {
		return nil, fmt.Errorf("satodt: no test splits the data")
	}
	nodes, leaves, ng, nt := 1<<d-1, 1<<d, len(p.Groups), len(p.Tests)
	c := &sat.CNF{}
	f := &Encoding{CNF: c, Depth: d, Classes: p.Classes, groupSoft: make([][]int, ng), sidesOnly: o.sidesOnly}
	f.F = c.NewGroup("F", "F[node][test]: internal node (heap order) tests kept test", nodes, nt)
	f.L = c.NewGroup("L", "L[node][group]: the group of identical rows goes low (test false) at the node", nodes, ng)
	if p.Classes == 2 {
		f.Y = c.NewGroup("Y", "Y[leaf]: the leaf predicts class 1 (else class 0)", leaves)
	} else {
		f.Y = c.NewGroup("Y", "Y[leaf][class]: the leaf predicts the class (at most one; none reads as class 0)", leaves, p.Classes)
	}
	// One soft literal per group and class present in it.
	first := c.NumVars + 1
	for g, gr := range p.Groups {
		for k, w := range gr.Count {
			if w > 0 {
				f.groupSoft[g] = append(f.groupSoft[g], len(f.Soft))
				f.Soft = append(f.Soft, Soft{Lit: c.NewVar(), Weight: w, Group: g, Class: k})
			}
		}
	}
	c.Groups = append(c.Groups, sat.Group{Name: "E", Meaning: "E[i]: soft literal i (a group's rows of one class are misclassified), in group then class order", First: first, Count: len(f.Soft), Shape: []int{len(f.Soft)}})

	lits := make([]sat.Lit, 0, nt)
	for n := range nodes {
		lits = lits[:0]
		for t := range nt {
			lits = append(lits, f.F.Lit(n, t))
		}
		c.Add(lits...)
	}
	// S[m], for a node m above two leaves (two classes, o.Dead): both
	// leaves predict the same class. Such a node's test changes nothing:
	// it takes test 0, which it may share with an ancestor.
	var same func(m int) sat.Lit
	if o.Dead && p.Classes == 2 {
		lastFirst := 1<<(d-1) - 1
		f.S = c.NewGroup("S", "S[m]: the two leaves under internal node lastFirst+m (heap order) predict the same class; the node then tests kept test 0", 1<<(d-1))
		same = func(m int) sat.Lit {
			if m < lastFirst {
				return 0
			}
			return f.S.Lit(m - lastFirst)
		}
		for m := lastFirst; m < nodes; m++ {
			sm := same(m)
			yl, yh := f.Y.Lit(2*m+1-nodes), f.Y.Lit(2*m+2-nodes)
			c.Add(sm.Not(), yl.Not(), yh)
			c.Add(sm.Not(), yl, yh.Not())
			c.Add(sm, yl, yh)
			c.Add(sm, yl.Not(), yh.Not())
			c.Add(sm.Not(), f.F.Lit(m, 0))
		}
	}
	if !o.Repeats && nt >= d {
		// No node repeats a test of its ancestors (one side of it would
		// receive no row): any tree of depth d is a tree without repeats
		// when there are at least d tests (a repeating node's rows all go
		// one way; any other test there, with that side's subtree on both
		// sides, computes the same). A dead node (S) may repeat test 0.
		for n := range nodes {
			// n's descendants, level by level: first .. first+width-1.
			for first, width := 2*n+1, 2; first < nodes; first, width = 2*first+1, 2*width {
				for desc := first; desc < first+width; desc++ {
					for t := range nt {
						if t == 0 && same != nil && same(desc) != 0 {
							c.Add(f.F.Lit(n, t).Not(), f.F.Lit(desc, t).Not(), same(desc))
							continue
						}
						c.Add(f.F.Lit(n, t).Not(), f.F.Lit(desc, t).Not())
					}
				}
			}
		}
	}
	if p.Classes > 2 {
		if o.sidesOnly {
			// Exactly one class per leaf: class 0 is then a literal
			// of its own for the per-leaf counters.
			for l := range leaves {
				lits = lits[:0]
				for k := range p.Classes {
					lits = append(lits, f.Y.Lit(l, k))
				}
				c.Add(lits...)
			}
		}
		for l := range leaves {
			for a := range p.Classes {
				for b := a + 1; b < p.Classes; b++ {
					c.Add(f.Y.Lit(l, a).Not(), f.Y.Lit(l, b).Not())
				}
			}
		}
	}
	return f, nil
}

// AddGroup adds the clauses of group g: its side at every node, given
// the node's test, and at every leaf, for each class present in it,
// reaching the leaf without the leaf predicting the class makes its soft
// literal true.
func (f *Encoding) AddGroup(p *satjob.Prepared, g int) {
	c, d := f.CNF, f.Depth
	nodes, leaves := 1<<d-1, 1<<d
	for n := range nodes {
		lo := f.L.Lit(n, g)
		for t := range p.Tests {
			if p.Value(g, t) {
				c.Add(f.F.Lit(n, t).Not(), lo.Not())
			} else {
				c.Add(f.F.Lit(n, t).Not(), lo)
			}
		}
	}
	if f.sidesOnly {
		return
	}
	lits := make([]sat.Lit, 0, d+2)
	for _, i := range f.groupSoft[g] {
		s := f.Soft[i]
		for l := range leaves {
			lits = f.path(lits[:0], g, l)
			lits = append(lits, f.Predicts(l, s.Class), s.Lit)
			c.Add(lits...)
		}
	}
}

// Reach adds one literal per leaf and given group, forced true when
// the group's tests lead it to the leaf: reach[l][i] for groups[i].
func (f *Encoding) Reach(groups []int) [][]sat.Lit {
	c, d := f.CNF, f.Depth
	leaves := 1 << d
	out := make([][]sat.Lit, leaves)
	lits := make([]sat.Lit, 0, d+1)
	for l := range leaves {
		out[l] = make([]sat.Lit, len(groups))
		for i, g := range groups {
			r := c.NewVar()
			lits = f.path(lits[:0], g, l)
			lits = append(lits, r)
			c.Add(lits...)
			out[l][i] = r
		}
	}
	return out
}

// path appends to lits the literals of which one is true unless group g
// reaches leaf l (the negated conditions of its way down).
func (f *Encoding) path(lits []sat.Lit, g, l int) []sat.Lit {
	d, n := f.Depth, 0
	for depth := range d {
		lo := f.L.Lit(n, g)
		if l>>(d-1-depth)&1 == 1 {
			lits = append(lits, lo) // reaching the leaf needs lo false
			n = 2*n + 2
		} else {
			lits = append(lits, lo.Not())
			n = 2*n + 1
		}
	}
	return lits
}

// GroupSoft lists the indices (in Soft) of group g's soft literals.
func (f *Encoding) GroupSoft(g int) []int { return f.groupSoft[g] }

// Predicts is the literal "leaf l predicts class k".
func (f *Encoding) Predicts(l, k int) sat.Lit {
	if f.Classes == 2 {
		if k == 1 {
			return f.Y.Lit(l)
		}
		return f.Y.Lit(l).Not()
	}
	return f.Y.Lit(l, k)
}

// Cost is the weight of the soft literals true under val.
func (f *Encoding) Cost(val func(sat.Lit) bool) int {
	cost := 0
	for _, s := range f.Soft {
		if val(s.Lit) {
			cost += s.Weight
		}
	}
	return cost
}
