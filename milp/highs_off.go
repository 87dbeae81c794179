//go:build !highs

package milp

import "context"

// HiGHSEnabled reports whether the HiGHS adapter is compiled in (build
// tag `highs`).
const HiGHSEnabled = false

type highsSolver struct{}

// HiGHS returns the HiGHS adapter. Without the build tag `highs` its
// Solve returns ErrNotEnabled, which says how to enable it.
func HiGHS() Solver { return highsSolver{} }

func (highsSolver) Name() string { return "highs" }

func (highsSolver) Solve(ctx context.Context, m *Model, p Params) (*Solution, error) {
	return nil, ErrNotEnabled
}
