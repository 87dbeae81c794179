package sat

import (
	"context"
	"fmt"
)

// Totalizer is an incremental unary counter (Bailleux and Boufkhad's
// totalizer) over weighted input literals, cut at a cap: output k
// (1 ≤ k ≤ Cap) is forced true whenever the weights of the true inputs
// add up to at least k. Assuming the negation of output k+1 therefore
// bounds the weighted sum by k, in a solve's assumptions, so one formula
// serves a whole descent of bounds.
//
// A weight w counts its literal w times (the literal fills w places of
// the unary number), so the clauses grow with the weights only up to the
// cap: a node merging two children of a and b outputs has at most
// min(a+b, Cap) outputs and a·b + a + b clauses.
type Totalizer struct {
	// Cap is the largest count the outputs tell apart: output Cap means
	// "at least Cap".
	Cap int
	out []Lit
}

// AtLeast is the literal forced true when the weighted sum reaches k
// (1 ≤ k ≤ Cap); its negation as an assumption bounds the sum by k-1. A
// k above the sum of all weights has no output: AtLeast returns 0 and
// the bound holds without assumption.
func (t *Totalizer) AtLeast(k int) Lit {
	if k < 1 || k > t.Cap {
		panic(fmt.Sprintf("sat: totalizer output %d out of 1..%d", k, t.Cap))
	}
	if k > len(t.out) {
		return 0
	}
	return t.out[k-1]
}

// AtMost is the assumptions that bound the weighted sum by k (0 ≤ k <
// Cap): the negation of output k+1, or none when no output is that high
// (the weights cannot add up to k+1).
func (t *Totalizer) AtMost(k int) []Lit {
	if o := t.AtLeast(k + 1); o != 0 {
		return []Lit{o.Not()}
	}
	return nil
}

// NewTotalizer adds to c the clauses of a totalizer over inputs with the
// given positive whole weights (nil: all 1), cut at limit ≥ 1. The inputs
// are merged as a balanced binary tree in the given order. ctx is polled
// between merges (a large counter takes a while): when it ends the
// counter is incomplete and ctx's error is returned.
func NewTotalizer(ctx context.Context, c *CNF, inputs []Lit, weights []int, limit int) (*Totalizer, error) {
	if limit < 1 {
		return nil, fmt.Errorf("sat: totalizer cap %d below 1", limit)
	}
	t := &Totalizer{Cap: limit}
	if err := t.Add(ctx, c, inputs, weights); err != nil {
		return nil, err
	}
	return t, nil
}

// Add counts more weighted inputs (nil weights: all 1) in the same
// counter: their own totalizer, merged with the outputs so far. Bounds
// assumed before Add counted the earlier inputs only; AtLeast now counts
// all of them.
func (t *Totalizer) Add(ctx context.Context, c *CNF, inputs []Lit, weights []int) error {
	if weights != nil && len(weights) != len(inputs) {
		return fmt.Errorf("sat: totalizer has %d inputs and %d weights", len(inputs), len(weights))
	}
	limit := t.Cap
	level := make([][]Lit, 0, len(inputs))
	for i, l := range inputs {
		w := 1
		if weights != nil {
			w = weights[i]
		}
		if w < 1 {
			return fmt.Errorf("sat: totalizer input %d has weight %d", i, w)
		}
		u := make([]Lit, min(w, limit))
		for j := range u {
			u[j] = l
		}
		level = append(level, u)
	}
	if len(level) == 0 {
		return nil
	}
	merges := 0
	for len(level) > 1 {
		next := level[:0:0]
		for i := 0; i+1 < len(level); i += 2 {
			if merges++; merges%64 == 0 && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			next = append(next, merge(c, level[i], level[i+1], limit))
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	if len(t.out) == 0 {
		t.out = level[0]
	} else {
		t.out = merge(c, t.out, level[0], limit)
	}
	return nil
}

// merge adds the outputs of the sum of unary numbers a and b, cut at
// limit: a_i → o_i, b_j → o_j, a_i ∧ b_j → o_min(i+j, limit).
func merge(c *CNF, a, b []Lit, limit int) []Lit {
	n := min(len(a)+len(b), limit)
	o := make([]Lit, n)
	for k := range o {
		o[k] = c.NewVar()
	}
	for i, x := range a {
		c.Add(x.Not(), o[i])
	}
	for j, y := range b {
		c.Add(y.Not(), o[j])
	}
	for i, x := range a {
		for j, y := range b {
			k := min(i+j+2, limit)
			c.Add(x.Not(), y.Not(), o[k-1])
		}
	}
	return o
}

// Sum is a totalizer whose inputs are the outputs of a and b: output k
// is forced true when the counts of a and b add up to at least k. Its
// cap is the smaller of theirs. Counters built over parts of a sum and
// merged this way name every partial count, so a solver can learn
// clauses about a part ("the rows of the left subtree cost at least 5")
// that hold whatever the rest is.
func Sum(c *CNF, a, b *Totalizer) *Totalizer {
	limit := min(a.Cap, b.Cap)
	return &Totalizer{Cap: limit, out: merge(c, a.out[:min(len(a.out), limit)], b.out[:min(len(b.out), limit)], limit)}
}

// Unary is a counter over outputs made elsewhere: out[k-1] is the
// literal forced true when the count reaches k (1 ≤ k ≤ len(out) ≤ cap).
// It lets such a number be summed with Sum and bounded with AtLeast.
func Unary(limit int, out []Lit) *Totalizer {
	return &Totalizer{Cap: limit, out: out[:min(len(out), limit)]}
}

// CounterSize counts what a counter adds to a formula.
type CounterSize struct {
	Vars, Clauses, Lits int64
}

func (s *CounterSize) add(o CounterSize) {
	s.Vars += o.Vars
	s.Clauses += o.Clauses
	s.Lits += o.Lits
}

// mergeSize is what merge adds for unary numbers of a and b places.
func mergeSize(a, b, limit int) (int, CounterSize) {
	n := min(a+b, limit)
	ab := int64(a) * int64(b)
	return n, CounterSize{Vars: int64(n), Clauses: int64(a+b) + ab, Lits: 2*int64(a+b) + 3*ab}
}

// TotalizerSize is the size of the clauses NewTotalizer adds for inputs
// of the given weights cut at limit, computed without building them,
// and the number of its outputs.
func TotalizerSize(weights []int, limit int) (int, CounterSize) {
	var s CounterSize
	level := make([]int, 0, len(weights))
	for _, w := range weights {
		level = append(level, min(max(w, 1), limit))
	}
	if len(level) == 0 {
		return 0, s
	}
	for len(level) > 1 {
		next := level[:0:0]
		for i := 0; i+1 < len(level); i += 2 {
			n, m := mergeSize(level[i], level[i+1], limit)
			s.add(m)
			next = append(next, n)
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return level[0], s
}

// SumSize is the size of what Sum adds for counters of a and b outputs
// cut at limit, and the number of its outputs.
func SumSize(a, b, limit int) (int, CounterSize) {
	return mergeSize(min(a, limit), min(b, limit), limit)
}
