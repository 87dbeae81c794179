package backend

import (
	"fmt"
	"math"
)

// Size is the estimated size of a formulation (a MILP or a CNF), known
// before it is built: what a backend that builds one refuses up front
// when it cannot fit, and what a report can show.
type Size struct {
	// Variables are the columns of a MILP or the variables of a CNF.
	Variables int64 `json:"variables"`
	// Constraints are the rows of a MILP or the clauses of a CNF.
	Constraints int64 `json:"constraints"`
	// NonZeros are the matrix entries of a MILP or the literals of a CNF.
	NonZeros int64 `json:"nonzeros"`
	// Bytes is the memory estimated to build the formulation and hand it
	// to its solver.
	Bytes int64 `json:"bytes"`
}

// String describes the counts for messages.
func (s Size) String() string {
	return fmt.Sprintf("%s variables, %s constraints, %s non-zeros",
		count(s.Variables), count(s.Constraints), count(s.NonZeros))
}

func count(n int64) string {
	switch {
	case n >= 1e12:
		return fmt.Sprintf("%.1e", float64(n))
	case n >= 1e9:
		return fmt.Sprintf("%.1fG", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// Sizer is implemented by backends that build a formulation: Size
// estimates the job's formulation without building it (errors wrap
// ErrInvalid when it cannot be represented at all).
type Sizer interface {
	Size(job *Job) (Size, error)
}

// Admit refuses, wrapped in ErrInvalid, a formulation whose estimated
// bytes exceed the budget's cap: building it would only end at the cap.
// what names the formulation. A nil budget or one without a cap admits
// every size.
func (b *Budget) Admit(s Size, what string) error {
	if lim := b.Limit(); lim > 0 && s.Bytes > lim {
		return Invalidf("%s would need about %s (%s), more than the memory cap of %s: refused before building it (raise --memory-limit, or shrink the problem)",
			what, MB(s.Bytes), s, MB(lim))
	}
	return nil
}

// Counter adds and multiplies sizes, saturating at math.MaxInt64 instead
// of overflowing, and remembers whether it saturated.
type Counter struct{ Over bool }

// Mul is a·b (saturating).
func (c *Counter) Mul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a < 0 || b < 0 || a > math.MaxInt64/b {
		c.Over = true
		return math.MaxInt64
	}
	return a * b
}

// Add is the sum of vs (saturating).
func (c *Counter) Add(vs ...int64) int64 {
	var s int64
	for _, v := range vs {
		if v < 0 || s > math.MaxInt64-v {
			c.Over = true
			return math.MaxInt64
		}
		s += v
	}
	return s
}
