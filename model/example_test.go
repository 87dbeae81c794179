package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/odtkit/odtkit/model"
)

const weather = `outlook,temp,play
sunny,30,no
sunny,22,yes
rain,18,yes
overcast,25,yes
rain,12,no
`

func ExampleReadCSV() {
	d, err := model.ReadCSV(strings.NewReader(weather), "weather.csv", model.ReadOptions{})
	if err != nil {
		panic(err)
	}
	for _, f := range d.Features {
		fmt.Println(f.Name, f.Kind, f.Levels)
	}
	fmt.Println("classes:", d.Classes, "labels:", d.Labels)
	// Output:
	// outlook categorical [sunny rain overcast]
	// temp numeric []
	// classes: [no yes] labels: [0 1 1 1 0]
}

func ExampleReadCSV_badInput() {
	_, err := model.ReadCSV(strings.NewReader("a,y\n1,0\n2\n"), "data.csv", model.ReadOptions{})
	fmt.Println(err)
	// Output:
	// data.csv:3: row has 1 fields, the header has 2
}

func ExampleBinarize() {
	d, _ := model.ReadCSV(strings.NewReader(weather), "weather.csv", model.ReadOptions{})
	v := model.Binarize(d)
	for t, test := range v.Tests {
		fmt.Printf("%-20s true on rows %v\n", test.String(d), v.True[t].Rows(nil))
	}
	// Output:
	// outlook == sunny     true on rows [0 1]
	// outlook == rain      true on rows [2 4]
	// outlook == overcast  true on rows [3]
	// temp > 15            true on rows [0 1 2 3]
	// temp > 20            true on rows [0 1 3]
	// temp > 23.5          true on rows [0 3]
	// temp > 27.5          true on rows [0]
}

func ExampleNewBuilder() {
	d, _ := model.ReadCSV(strings.NewReader(weather), "weather.csv", model.ReadOptions{})
	b := model.NewBuilder(d, model.KindTree)
	no, yes := b.Leaf(0), b.Leaf(1)
	// temp <= 15 → no; otherwise temp <= 27.5 → yes, else no.
	g := b.Graph(b.Threshold(1, 15, no, b.Threshold(1, 27.5, yes, b.Leaf(0))))
	fmt.Print(g.Text())
	fmt.Println("errors:", g.Errors(d), "depth:", g.Depth(), "internal nodes:", g.InternalNodes())
	js, _ := json.Marshal(g)
	fmt.Println(string(js))
	// Output:
	// temp <= 15
	//   class: no
	// temp > 15
	//   temp <= 27.5
	//     class: yes
	//   temp > 27.5
	//     class: no
	// errors: 0 depth: 2 internal nodes: 2
	// {"format":"odtkit-graph-1","kind":"tree","features":["outlook","temp"],"classes":["no","yes"],"root":0,"nodes":[{"id":0,"feature":1,"threshold":15,"low":1,"high":2},{"id":1,"class":0},{"id":2,"feature":1,"threshold":27.5,"low":3,"high":4},{"id":3,"class":1},{"id":4,"class":0}]}
}

func ExampleParseModel() {
	g, err := model.ParseModel(strings.NewReader(`{"backend":"cart","model":{"format":"odtkit-graph-1","kind":"tree",
		"features":["x"],"classes":["lo","hi"],"root":0,
		"nodes":[{"id":0,"feature":0,"threshold":0.5,"low":1,"high":2},{"id":1,"class":0},{"id":2,"class":1}]}}`))
	if err != nil {
		panic(err)
	}
	fmt.Print(g.Text())
	// Output:
	// x <= 0.5
	//   class: lo
	// x > 0.5
	//   class: hi
}

func ExamplePrimalIntegral() {
	// A run with a 10 s time limit whose incumbents have objectives 20
	// (at 2 s) and 10 (at 5 s, the optimum): the gap is 1 until 2 s, 0.5
	// until 5 s and 0 afterwards.
	trace := []model.Incumbent{{Seconds: 2, Objective: 20}, {Seconds: 5, Objective: 10}}
	fmt.Println(model.PrimalIntegral(trace, 10, 10))
	// Output: 3.5
}

func ExampleStratifiedSplit() {
	// 8 rows of class a, 4 of class b: a 50/25/25 split keeps the 2:1
	// ratio in every part.
	d := &model.Dataset{Classes: []string{"a", "b"}, Labels: []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}}
	parts, err := model.StratifiedSplit(d, []float64{0.5, 0.25, 0.25}, 1)
	if err != nil {
		panic(err)
	}
	for _, p := range parts {
		n := map[string]int{}
		for _, r := range p {
			n[d.Classes[d.Labels[r]]]++
		}
		fmt.Println(len(p), "rows:", n)
	}
	// Output:
	// 6 rows: map[a:4 b:2]
	// 3 rows: map[a:2 b:1]
	// 3 rows: map[a:2 b:1]
}

func ExampleGraph_Proba() {
	d, _ := model.ReadCSV(strings.NewReader(weather), "weather.csv", model.ReadOptions{})
	b := model.NewBuilder(d, model.KindTree)
	// temp <= 20 → no, else yes; the training rows give each leaf its counts.
	g := b.Graph(b.Threshold(1, 20, b.Leaf(0), b.Leaf(1)))
	g.SetCounts(d)
	p, _ := g.Proba(d, 0) // row 0: sunny, 30 → the "yes" leaf holding 1 no and 2 yes
	fmt.Println(g.Classes, p)
	fmt.Print(g.Text())
	ev := model.Evaluate(g, d)
	fmt.Println("errors:", ev.Errors, "balanced accuracy:", ev.BalancedAccuracy)
	// Output:
	// [no yes] [0.3333333333333333 0.6666666666666666]
	// temp <= 20
	//   class: no [1 1]
	// temp > 20
	//   class: yes [1 2]
	// errors: 2 balanced accuracy: 0.5833333333333333
}

// A leaf cost λ makes the error objective sparse: errors/rows + λ·leaves.
// A stump on temp > 20 misclassifies 2 of 5 rows with 2 leaves.
func ExampleProblem_Evaluate_leafCost() {
	d, _ := model.ReadCSV(strings.NewReader(weather), "weather.csv", model.ReadOptions{})
	b := model.NewBuilder(d, model.KindTree)
	g := b.Graph(b.Threshold(1, 20, b.Leaf(0), b.Leaf(1)))
	plain := model.Problem{MaxDepth: 1}
	sparse := model.Problem{MaxDepth: 1, LeafCost: 0.05}
	fmt.Println(plain.Evaluate(d, g), sparse.Evaluate(d, g), sparse.Validate())
	fmt.Println(model.Problem{LeafCost: -1}.Validate())
	fmt.Println(model.Problem{Objective: model.MinDepth, LeafCost: 0.1}.Validate())
	// Output:
	// 2 0.5 <nil>
	// leaf cost -1 must be a finite non-negative number
	// a leaf cost (0.1) weighs the error objective only (objective min-depth)
}

// ReadFileContext reads under a deadline: a read that does not finish in
// time stops with an error that wraps context.DeadlineExceeded.
func ExampleReadFileContext() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := model.ReadFileContext(ctx, "../testdata/iris.csv", model.ReadOptions{})
	if errors.Is(err, context.DeadlineExceeded) {
		fmt.Println("too slow")
		return
	}
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Rows(), "rows,", d.NumFeatures(), "features, classes", d.Classes)
	// Output:
	// 150 rows, 4 features, classes [0 1 2]
}
