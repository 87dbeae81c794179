package sat

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ErrTooLarge is returned by NewSumCounter when the counter would pass
// its clause budget.
var ErrTooLarge = errors.New("sat: counter too large")

// SumCounter bounds a weighted sum like Totalizer, with an output only
// for each sum its inputs can reach (a generalized totalizer, after Joshi,
// Martins and Manquinho, CP 2015): a node over inputs whose weights are
// all multiples of 100 has at most Cap/100 outputs, where the unary
// Totalizer has Cap. Each node's outputs are ordered (the output of a
// larger sum implies that of the next smaller one), so that output v is
// forced true whenever the weighted sum of the true inputs reaches v.
type SumCounter struct {
	// Cap is the largest sum the outputs tell apart: larger sums count
	// as Cap.
	Cap  int
	vals []int // reachable sums, ascending (each at most Cap)
	out  []Lit
}

// AtLeast is a literal forced true when the weighted sum reaches k ≥ 1
// (the output of the least reachable sum ≥ k, capped at Cap); its
// negation as an assumption bounds the sum by k−1. When no sum of the
// inputs reaches k, AtLeast returns 0 and the bound holds without
// assumption.
func (s *SumCounter) AtLeast(k int) Lit {
	if k < 1 || k > s.Cap {
		panic(fmt.Sprintf("sat: sum counter output %d out of 1..%d", k, s.Cap))
	}
	i, _ := slices.BinarySearch(s.vals, k)
	if i == len(s.vals) {
		return 0
	}
	return s.out[i]
}

// Outputs is the number of the counter's outputs (reachable sums).
func (s *SumCounter) Outputs() int { return len(s.out) }

// NewSumCounter adds to c the clauses of a sum counter over the inputs
// with the given positive whole weights, cut at limit ≥ 1, merged as a
// balanced binary tree in the given order. It stops with ErrTooLarge
// (wrapped) once c would hold more than maxClauses clauses (0: no
// budget), and with ctx's error when ctx ends; c is then incomplete.
func NewSumCounter(ctx context.Context, c *CNF, inputs []Lit, weights []int, limit, maxClauses int) (*SumCounter, error) {
	if limit < 1 {
		return nil, fmt.Errorf("sat: sum counter cap %d below 1", limit)
	}
	if len(weights) != len(inputs) {
		return nil, fmt.Errorf("sat: sum counter has %d inputs and %d weights", len(inputs), len(weights))
	}
	type node struct {
		vals []int
		lits []Lit
	}
	level := make([]node, 0, len(inputs))
	for i, l := range inputs {
		if weights[i] < 1 {
			return nil, fmt.Errorf("sat: sum counter input %d has weight %d", i, weights[i])
		}
		level = append(level, node{[]int{min(weights[i], limit)}, []Lit{l}})
	}
	s := &SumCounter{Cap: limit}
	if len(level) == 0 {
		return s, nil
	}
	budget := func(extra int) error {
		if maxClauses > 0 && c.NumClauses()+extra > maxClauses {
			return fmt.Errorf("%w: more than %d clauses", ErrTooLarge, maxClauses)
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
	merge := func(a, b node) (node, error) {
		// Fail before allocating what the budget refuses.
		if err := budget(len(a.vals)*len(b.vals) + len(a.vals) + len(b.vals)); err != nil {
			return node{}, err
		}
		vals := make([]int, 0, len(a.vals)+len(b.vals))
		vals = append(append(vals, a.vals...), b.vals...)
		for _, x := range a.vals {
			for _, y := range b.vals {
				vals = append(vals, min(x+y, limit))
			}
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		lits := make([]Lit, len(vals))
		for i := range lits {
			lits[i] = c.NewVar()
		}
		at := func(v int) Lit { i, _ := slices.BinarySearch(vals, v); return lits[i] }
		for i, x := range a.vals {
			c.Add(a.lits[i].Not(), at(x))
		}
		for j, y := range b.vals {
			c.Add(b.lits[j].Not(), at(y))
		}
		for i, x := range a.vals {
			for j, y := range b.vals {
				c.Add(a.lits[i].Not(), b.lits[j].Not(), at(min(x+y, limit)))
			}
		}
		for i := 1; i < len(lits); i++ {
			c.Add(lits[i].Not(), lits[i-1])
		}
		return node{vals, lits}, nil
	}
	for len(level) > 1 {
		next := level[:0:0]
		for i := 0; i+1 < len(level); i += 2 {
			m, err := merge(level[i], level[i+1])
			if err != nil {
				return nil, err
			}
			next = append(next, m)
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	s.vals, s.out = level[0].vals, level[0].lits
	return s, nil
}
