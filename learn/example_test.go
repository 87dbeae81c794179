package learn_test

import (
	"context"
	"fmt"

	"github.com/odtkit/odtkit/learn"
	"github.com/odtkit/odtkit/model"
)

// stump is a toy solver for the example: depth 0 gives the majority
// leaf, depth 1 or more the best single threshold on feature 0.
func stump(_ context.Context, d *model.Dataset, p model.Problem) (*model.Result, error) {
	b := model.NewBuilder(d, model.KindTree)
	root := b.Leaf(majority(d, func(int) bool { return true }))
	if p.MaxDepth > 0 {
		best := d.Rows() + 1
		for _, t := range d.Features[0].Values {
			lo := majority(d, func(r int) bool { return d.Features[0].Values[r] <= t })
			hi := majority(d, func(r int) bool { return d.Features[0].Values[r] > t })
			g := b.Graph(b.Threshold(0, t, b.Leaf(lo), b.Leaf(hi)))
			if e := g.Errors(d); e < best {
				best, root = e, b.Threshold(0, t, b.Leaf(lo), b.Leaf(hi))
			}
		}
	}
	g := b.Graph(root)
	return &model.Result{Problem: p, Rows: d.Rows(), Errors: g.Errors(d), Status: model.StatusOptimal, Model: g}, nil
}

func majority(d *model.Dataset, in func(int) bool) int {
	cnt := make([]float64, d.NumClasses())
	for r, l := range d.Labels {
		if in(r) {
			cnt[l]++
		}
	}
	c, _ := model.Majority(cnt)
	return c
}

func ExampleHoldOut() {
	// 40 rows: x < 20 is class "lo", else "hi", except rows 5 and 25.
	d := &model.Dataset{Name: "toy", Classes: []string{"lo", "hi"}, Features: []model.Feature{{Name: "x"}}}
	for r := range 40 {
		d.Features[0].Values = append(d.Features[0].Values, float64(r))
		l := 0
		if r >= 20 {
			l = 1
		}
		if r == 5 || r == 25 {
			l = 1 - l
		}
		d.Labels = append(d.Labels, l)
	}
	sf, err := learn.NewSplitFile(d, []float64{0.5, 0.25, 0.25}, 1)
	if err != nil {
		panic(err)
	}
	split, _ := sf.Split(0)
	candidates := learn.Grid{Depths: []int{0, 1}}.Problems(model.Problem{})
	out, err := learn.HoldOut(context.Background(), stump, d, split, candidates, learn.Options{})
	if err != nil {
		panic(err)
	}
	res := out.Result
	for _, t := range res.Tuning {
		fmt.Printf("depth %d: validation accuracy %.1f chosen %v\n", t.Problem.MaxDepth, t.Score, t.Chosen)
	}
	fmt.Printf("refit on %d rows, test accuracy %.1f on %d rows\n", res.Rows, res.Test.Accuracy, res.Test.Rows)
	fmt.Print(res.Model.Text())
	// Output:
	// depth 0: validation accuracy 0.5 chosen false
	// depth 1: validation accuracy 0.8 chosen true
	// refit on 30 rows, test accuracy 1.0 on 10 rows
	// x <= 19
	//   class: lo [14 1]
	// x > 19
	//   class: hi [1 14]
}
