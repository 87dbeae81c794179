//go:build highs

package milp_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/milp"
)

// Further HiGHS options by name, here presolve off and more primal
// heuristics; an unknown name or a bad value is an error wrapping
// milp.ErrOption.
func ExampleParams_options() {
	m := &milp.Model{Name: "knap", Sense: milp.Maximize}
	x := m.AddBinary("x", 5)
	y := m.AddBinary("y", 4)
	m.AddRow("cap", -milp.Inf, 6, []int{x, y}, []float64{4, 3})
	p := milp.Params{Threads: 1, Options: map[string]string{"presolve": "off", "mip_heuristic_effort": "0.3"}}
	sol, err := milp.HiGHS().Solve(context.Background(), m, p)
	if err != nil {
		panic(err)
	}
	fmt.Println(sol.Status, sol.X, sol.Objective)
	// Output: optimal [1 0] 5
}
