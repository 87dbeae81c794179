package odtkit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/model"
)

func ExampleSolve() {
	d, err := model.ReadFile("testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		panic(err)
	}
	res, err := odtkit.Solve(context.Background(), d, model.Problem{MaxDepth: 2},
		odtkit.Settings{Backend: "cart", TimeLimit: time.Minute})
	if err != nil {
		panic(err)
	}
	fmt.Println("backend:", res.Backend, "errors:", res.Errors, "of", res.Rows, "status:", res.Status)
	fmt.Print(res.Model.Text())
	// Output:
	// backend: cart errors: 6 of 150 status: feasible
	// 2 <= 2.45
	//   class: 0
	// 2 > 2.45
	//   3 <= 1.75
	//     class: 1
	//   3 > 1.75
	//     class: 2
}

func ExampleCheck() {
	d, err := model.ReadFile("testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(odtkit.Check(d, model.Problem{MaxDepth: 2}, odtkit.Settings{Backend: "dl85"}))
	err = odtkit.Check(d, model.Problem{MaxDepth: 2}, odtkit.Settings{Backend: "dl85", Options: odtkit.Options{"no-such-key": "1"}})
	fmt.Println(errors.Is(err, odtkit.ErrInvalid))
	// Output:
	// <nil>
	// true
}

func ExampleRegistry_List() {
	for _, in := range odtkit.DefaultRegistry().List() {
		if in.Name == "cart" {
			fmt.Println(in.Name, in.Objectives, in.Input, "exact:", in.Exact)
		}
	}
	// Output: cart [error] binary view exact: false
}

func ExampleVerify() {
	d, _ := model.ReadFile("testdata/iris.csv", model.ReadOptions{})
	b := model.NewBuilder(d, model.KindTree)
	g := b.Graph(b.Threshold(2, 2.45, b.Leaf(0), b.Leaf(1))) // petal length <= 2.45 → setosa
	claim := &model.Result{Model: g, Errors: 10, Objective: 10}
	fmt.Println(odtkit.Verify(d, model.Problem{Objective: model.MinError, MaxDepth: 1}, claim))
	claim.Errors, claim.Objective = 50, 50
	fmt.Println(odtkit.Verify(d, model.Problem{Objective: model.MinError, MaxDepth: 1}, claim))
	// Output:
	// verification failed: the backend claims 10 errors, its model makes 50
	// <nil>
}
