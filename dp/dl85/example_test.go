package dl85_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/model"
)

// exampleData is XOR of two bits, plus a noise bit: a greedy learner
// finds no useful first split, an optimal depth-2 tree is perfect.
func exampleData() *model.Dataset {
	a := []float64{0, 0, 1, 1, 0, 0, 1, 1}
	b := []float64{0, 1, 0, 1, 0, 1, 0, 1}
	c := []float64{0, 0, 0, 0, 1, 1, 1, 0}
	return &model.Dataset{
		Name: "xor",
		Features: []model.Feature{
			{Name: "a", Values: a}, {Name: "b", Values: b}, {Name: "noise", Values: c},
		},
		Labels:  []int{0, 1, 1, 0, 0, 1, 1, 0},
		Classes: []string{"no", "yes"},
	}
}

func ExampleSolve() {
	v := model.Binarize(exampleData())
	r, err := dl85.Solve(context.Background(), v, dl85.Config{MaxDepth: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("errors:", r.Error, "optimal:", r.Optimal, "depth:", r.Tree.Depth())
	// Output: errors: 0 optimal: true depth: 2
}

func ExampleSolveAnytime() {
	v := model.Binarize(exampleData())
	rule := &dl85.Discrepancy{MaxDiscrepancy: 0, Schedule: dl85.Monotonic{Delta: 1}}
	r, err := dl85.SolveAnytime(context.Background(), v, rule, dl85.Config{
		MaxDepth: 2,
		NoDepth2: true, // let the rule steer every level
		OnIncumbent: func(g *model.Graph, e float64) {
			fmt.Println("incumbent with", e, "errors")
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("errors:", r.Error, "optimal:", r.Optimal, "restarts:", r.Stats["restarts"])
	// Output:
	// incumbent with 4 errors
	// incumbent with 3 errors
	// incumbent with 0 errors
	// errors: 0 optimal: true restarts: 2
}

// A backend is driven through a job that validates its options first.
func ExampleBackend() {
	b := dl85.Backend{}
	if _, err := backend.NewJob(b.Info(), exampleData(), model.Problem{MaxDepth: 2}, map[string]string{"order": "best"}); err != nil {
		fmt.Println(errors.Is(err, backend.ErrInvalid), err)
	}
	job, err := backend.NewJob(b.Info(), exampleData(), model.Problem{MaxDepth: 2}, map[string]string{"order": "index"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := b.Solve(context.Background(), job)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("errors:", res.Errors, "optimal:", res.Optimal)
	// Output:
	// true dl85: option order="best": want one of gain, index
	// errors: 0 optimal: true
}

func ExampleSolveNamed() {
	v := model.Binarize(exampleData())
	r, err := dl85.SolveNamed(context.Background(), v, dl85.Spec{Rule: "topk", Relax: "luby"}, dl85.Config{MaxDepth: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("errors:", r.Error, "optimal:", r.Optimal)
	// Output: errors: 0 optimal: true
}
