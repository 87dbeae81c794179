package cart_test

import (
	"context"

	"fmt"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/model"
)

// The greedy tree on XOR plus a noise bit: no first split reduces the
// Gini impurity much, so the greedy tree is not the perfect depth-2 one
// (dl85 finds it); a split that does not reduce the error is cut back.
func ExampleGrow() {
	d := &model.Dataset{
		Features: []model.Feature{
			{Name: "a", Values: []float64{0, 0, 1, 1, 0, 0, 1, 1}},
			{Name: "b", Values: []float64{0, 1, 0, 1, 0, 1, 0, 1}},
			{Name: "noise", Values: []float64{0, 0, 0, 0, 1, 1, 1, 0}},
		},
		Labels:  []int{0, 1, 1, 0, 0, 1, 1, 0},
		Classes: []string{"no", "yes"},
	}
	g, errs := cart.Grow(context.Background(), model.Binarize(d), 2, cart.Config{MinLeaf: 1})
	fmt.Println("errors:", errs, "depth:", g.Depth())
	// Output: errors: 3 depth: 1
}
