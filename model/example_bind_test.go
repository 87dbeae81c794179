package model_test

import (
	"fmt"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// A model applied to new data by feature name: the columns come in
// another order, an extra column is skipped, and there is no label.
func ExampleGraph_Bind() {
	train, _ := model.ReadCSV(strings.NewReader(weather), "weather.csv", model.ReadOptions{})
	b := model.NewBuilder(train, model.KindTree)
	g := b.Graph(b.Threshold(1, 20, b.Leaf(0), b.Leaf(1))) // temp <= 20 → no, else yes

	const today = "id,temp,outlook\n7,24,rain\n8,16,sunny\n"
	d, err := model.ReadCSV(strings.NewReader(today), "today.csv",
		model.ReadOptions{Columns: g.UsedFeatures(), NoLabel: true, MinRows: 1})
	if err != nil {
		panic(err)
	}
	bound, err := g.Bind(d)
	if err != nil {
		panic(err)
	}
	for r := range d.Rows() {
		fmt.Println(bound.Classes[bound.Predict(d, r)])
	}
	_, err = g.Bind(&model.Dataset{Name: "other.csv", Features: []model.Feature{{Name: "humidity", Values: []float64{80}}}, Labels: []int{0}})
	fmt.Println(err)
	// Output:
	// yes
	// no
	// the data other.csv has no feature column "temp" (its features: humidity)
}

// A ? or an empty cell is an error unless its column is declared
// categorical, where it is one more level.
func ExampleReadOptions_categorical() {
	const text = "outlook,temp,play\nsunny,30,no\n?,22,yes\nrain,,yes\n"
	_, err := model.ReadCSV(strings.NewReader(text), "weather.csv", model.ReadOptions{})
	fmt.Println(err)
	d, _ := model.ReadCSV(strings.NewReader(text), "weather.csv", model.ReadOptions{Categorical: []string{"outlook", "temp"}})
	fmt.Println(d.Features[0].Levels, d.Features[1].Levels)
	// Output:
	// weather.csv:3: missing value "?" in column "outlook": fill it in or drop the row, or read the column as categories, the missing value one of them, with --categorical outlook
	// [sunny ? rain] [30 22 ]
}
