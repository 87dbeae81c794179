package odd_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/model"
)

func ExampleEncode() {
	d := &model.Dataset{Name: "xor",
		Features: []model.Feature{
			{Name: "a", Kind: model.Numeric, Values: []float64{0, 0, 1, 1}},
			{Name: "b", Kind: model.Numeric, Values: []float64{0, 1, 0, 1}},
		},
		Labels: []int{0, 1, 1, 0}, Classes: []string{"no", "yes"}}
	e, err := odd.Encode(d, odd.Options{Skeleton: []int{1, 2}, Alpha: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	lambda := 0
	for _, row := range e.Lambda {
		lambda += len(row)
	}
	fmt.Printf("%d columns, %d binaries (%d of them λ), %d rows\n",
		len(e.Model.Columns), e.Model.NumIntegers(), lambda, len(e.Model.Rows))
	// The heuristic's diagram is a first incumbent.
	inc := e.Heuristic(context.Background(), 1, 1)
	fmt.Printf("heuristic: %d errors, %d internal nodes\n", inc.Errors, inc.Nodes)
	// Output:
	// 138 columns, 33 binaries (8 of them λ), 187 rows
	// heuristic: 0 errors, 3 internal nodes
}
