package contree_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/dp/contree"
	"github.com/odtkit/odtkit/model"
)

func ExampleSolve() {
	// y is 1 exactly when 2 < x <= 5: a depth-two tree on x is exact.
	d := &model.Dataset{Name: "example", Classes: []string{"0", "1"},
		Features: []model.Feature{{Name: "x", Values: []float64{1, 2, 3, 4, 5, 6, 7}}},
		Labels:   []int{0, 0, 1, 1, 1, 0, 0}}
	r, err := contree.Solve(context.Background(), d, contree.Config{MaxDepth: 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("errors:", r.Errors, "optimal:", r.Optimal, "depth:", r.Tree.Depth())
	// Output:
	// errors: 0 optimal: true depth: 2
}
