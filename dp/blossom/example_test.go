package blossom_test

import (
	"bytes"
	"context"
	"encoding/json"
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

// With Workers, the tests of the root are searched on several
// goroutines; a search that runs to the end returns the same error and
// the same tree as the sequential one.
func ExampleSolve_workers() {
	d := &model.Dataset{
		Classes: []string{"no", "yes"},
		Features: []model.Feature{
			{Name: "a", Values: []float64{0, 0, 1, 1, 0, 1, 0, 1}},
			{Name: "b", Values: []float64{0, 1, 0, 1, 1, 1, 0, 0}},
			{Name: "c", Values: []float64{1, 1, 0, 0, 1, 0, 0, 1}},
		},
		Labels: []int{0, 1, 1, 0, 1, 0, 1, 1},
	}
	v := model.Binarize(d)
	var first []byte
	for _, workers := range []int{1, 2, 4} {
		r, err := blossom.Solve(context.Background(), v, blossom.Config{MaxDepth: 3, Workers: workers}, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		tree, _ := json.Marshal(r.Model)
		if first == nil {
			first = tree
		}
		fmt.Println(workers, "workers: errors", r.Errors, "optimal", r.Optimal, "same tree", bytes.Equal(tree, first))
	}
	// Output:
	// 1 workers: errors 0 optimal true same tree true
	// 2 workers: errors 0 optimal true same tree true
	// 4 workers: errors 0 optimal true same tree true
}
