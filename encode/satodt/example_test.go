package satodt_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// XOR of two columns with one noisy row: a depth-1 tree makes 2 errors
// at best, a depth-2 tree 1 (the noisy row repeats another with the
// other label). The search starts from cart's tree and proves the
// minimum.
func ExampleSearch() {
	d := &model.Dataset{Name: "xor", Classes: []string{"0", "1"},
		Features: []model.Feature{{Name: "a", Values: []float64{0, 0, 1, 1, 1}}, {Name: "b", Values: []float64{0, 1, 0, 1, 1}}},
		Labels:   []int{0, 1, 1, 0, 1}}
	v := model.Binarize(d)
	p, err := satodt.Prepare(context.Background(), v)
	if err != nil {
		panic(err)
	}
	for depth := 1; depth <= 2; depth++ {
		g, e := cart.Grow(context.Background(), v, depth, cart.Config{})
		out, err := satodt.Search(context.Background(), p, depth, g, int(e), satodt.Settings{})
		if err != nil {
			panic(err)
		}
		fmt.Println(depth, out.Cost, out.LowerBound, out.Optimal, out.Model.Errors(d))
	}
	// Output:
	// 1 2 2 true 2
	// 2 1 1 true 1
}

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
	d := satodt.Descent{
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
