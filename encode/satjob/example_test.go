package satjob_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/sat"
)

// A descent on a formula of its own: one of three options (the parts)
// is chosen, each with a cost, and a totalizer counts the cost. From an
// incumbent of cost 5 the descent refutes a cost of at most 2 option by
// option and proves 3.
func ExampleDescent() {
	c := &sat.CNF{}
	x := []sat.Lit{c.NewVar(), c.NewVar(), c.NewVar()}
	costs := []int{5, 3, 4}
	c.Add(x...) // at least one option
	tot, err := sat.NewTotalizer(context.Background(), c, x, costs, 5)
	if err != nil {
		panic(err)
	}
	solver := sat.NewCDCL()
	sat.AddCNF(solver, c, 0)
	d := satjob.Descent{
		Solver:  solver,
		AtLeast: tot.AtLeast,
		Cap:     tot.Cap,
		Parts:   x,
		Model: func(k int) (int, error) {
			cost := 0
			for i, l := range x {
				if solver.Value(l) {
					cost += costs[i]
				}
			}
			return cost, nil
		},
	}
	r, err := d.Run(context.Background(), 5, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Cost, r.LowerBound, r.Optimal)
	for _, st := range r.Steps {
		fmt.Println("part", st.Part, "bound", st.Bound, st.Status)
	}
	// Output:
	// 3 3 true
	// part 0 bound 4 UNSATISFIABLE
	// part 1 bound 4 SATISFIABLE
	// part 1 bound 2 UNSATISFIABLE
	// part 2 bound 2 UNSATISFIABLE
}
