package satodt_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/encode/satodt"
	"github.com/odtkit/odtkit/model"
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
	p, err := satjob.Prepare(context.Background(), v)
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
