package race_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/blossom"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/race"
)

// A race of dl85 and blossom on a tiny dataset: both can prove the
// optimum; whichever does first stops the other.
func ExampleNew() {
	d := &model.Dataset{
		Classes:  []string{"no", "yes"},
		Labels:   []int{0, 0, 1, 1, 1, 0},
		Features: []model.Feature{{Name: "x", Values: []float64{1, 2, 3, 4, 5, 6}}},
	}
	r := race.New("race", dl85.Backend{}, blossom.Backend{})
	job, err := backend.NewJob(r.Info(), d, model.Problem{Objective: model.MinError, MaxDepth: 1}, map[string]string{"members": "dl85,blossom"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Solve(context.Background(), job)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Members(), res.Objective, res.Optimal)
	// Output: [dl85 blossom] 1 true
}
