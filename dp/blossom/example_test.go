package blossom_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/dp/blossom"
	"github.com/odtkit/odtkit/model"
)

// Blossom finds the exclusive-or that a greedy tree of depth 2 misses.
func ExampleSolve() {
	d := &model.Dataset{
		Classes: []string{"no", "yes"},
		Features: []model.Feature{
			{Name: "a", Values: []float64{0, 0, 1, 1, 0, 1}},
			{Name: "b", Values: []float64{0, 1, 0, 1, 1, 1}},
		},
		Labels: []int{0, 1, 1, 0, 1, 0},
	}
	r, err := blossom.Solve(context.Background(), model.Binarize(d), blossom.Config{MaxDepth: 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("errors:", r.Errors, "optimal:", r.Optimal, "depth:", r.Model.Depth())
	// Output: errors: 0 optimal: true depth: 2
}
