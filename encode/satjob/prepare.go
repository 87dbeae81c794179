package satjob

import (
	"context"
	"fmt"
	"slices"

	"github.com/odtkit/odtkit/model"
)

// Group is a set of rows with equal values on every kept test: any tree
// or diagram over the tests sends them to the same leaf.
type Group struct {
	// Rep is the group's first row.
	Rep int
	// Count is the total row weight of each class in the group.
	Count []int
}

// Prepared is the data as an error-counting formula sees it (sat-odt,
// sat-odd): the binary view's tests without duplicates, complements and
// constants, and the rows grouped by their values on those tests, each
// group with its weight per class.
type Prepared struct {
	View    *model.BinaryView
	Tests   []int // kept tests (indices into View.Tests)
	Groups  []Group
	Classes int
	// Floor is the error no tree avoids: in each group, the weight
	// outside its heaviest class.
	Floor int
	// Total is the total row weight.
	Total int
}

// Prepare builds the formula's view of the binary view v. Row weights
// must be whole numbers (the counter is unary).
func Prepare(ctx context.Context, v *model.BinaryView) (*Prepared, error) {
	return PrepareWithin(ctx, v, nil)
}

// PrepareWithin is Prepare that gives up early: the rows are told apart
// one kept test at a time, and after each test that splits a group,
// tooLarge (when not nil) is called with the groups found so far (a lower
// bound on the final number) and the kept tests; an error from it stops
// the preparation and is returned as it is. A formula that grows with
// groups × tests can so be refused before the grouping of big data ends.
// ctx is polled as the rows are grouped.
func PrepareWithin(ctx context.Context, v *model.BinaryView, tooLarge func(groups, tests int) error) (*Prepared, error) {
	d := v.Data
	if r, ok := d.FractionalWeight(); ok {
		return nil, fmt.Errorf("row %d has weight %v; only whole weights are taken", r+1, d.Weights[r])
	}
	kept, err := v.KeptTests(ctx)
	if err != nil {
		return nil, err
	}
	p := &Prepared{View: v, Classes: len(v.Class), Tests: kept}
	var check func(int) error
	if tooLarge != nil {
		check = func(groups int) error { return tooLarge(groups, len(p.Tests)) }
	}
	group, reps, err := v.Groups(ctx, p.Tests, check)
	if err != nil {
		return nil, err
	}
	p.Groups = make([]Group, len(reps))
	for g, r := range reps {
		p.Groups[g] = Group{Rep: r, Count: make([]int, p.Classes)}
	}
	for r, g := range group {
		w := int(d.Weight(r))
		p.Groups[g].Count[d.Labels[r]] += w
		p.Total += w
	}
	for _, g := range p.Groups {
		_, e := model.Majority(g.Count64())
		p.Floor += int(e)
	}
	return p, nil
}

// Total is the group's total row weight.
func (g Group) Total() int {
	t := 0
	for _, c := range g.Count {
		t += c
	}
	return t
}

// Count64 is Count as int64s.
func (g Group) Count64() []int64 {
	out := make([]int64, len(g.Count))
	for i, c := range g.Count {
		out[i] = int64(c)
	}
	return out
}

// Value is the group's value on kept test i.
func (p *Prepared) Value(g, i int) bool { return p.View.Value(p.Tests[i], p.Groups[g].Rep) }

// RootOrder lists the kept tests in the order of their stumps' error
// (ties: lower index first): the order in which a search by root test
// meets good trees early.
func (p *Prepared) RootOrder() []int {
	stump := make([]int, len(p.Tests))
	lo, hi := make([]int64, p.Classes), make([]int64, p.Classes)
	for t := range p.Tests {
		clear(lo)
		clear(hi)
		for g, gr := range p.Groups {
			side := lo
			if p.Value(g, t) {
				side = hi
			}
			for c, x := range gr.Count {
				side[c] += int64(x)
			}
		}
		_, el := model.Majority(lo)
		_, eh := model.Majority(hi)
		stump[t] = int(el + eh)
	}
	out := make([]int, len(p.Tests))
	for t := range out {
		out[t] = t
	}
	slices.SortStableFunc(out, func(a, b int) int { return stump[a] - stump[b] })
	return out
}
