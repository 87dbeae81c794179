package avellaneda_test

import (
	"context"
	"fmt"
	"os"

	"github.com/odtkit/odtkit/encode/avellaneda"
	"github.com/odtkit/odtkit/model"
)

// XOR of two columns needs depth 2; DT_size finds the 7-node tree.
func ExampleMinSize() {
	d := &model.Dataset{Name: "xor", Classes: []string{"0", "1"},
		Features: []model.Feature{{Name: "a", Values: []float64{0, 0, 1, 1}}, {Name: "b", Values: []float64{0, 1, 0, 1}}},
		Labels:   []int{0, 1, 1, 0}}
	p, err := avellaneda.Prepare(d, false)
	if err != nil {
		panic(err)
	}
	o, err := avellaneda.MinSize(context.Background(), p, avellaneda.Settings{})
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Depth, o.Model.Size(), o.Optimal, o.Model.Errors(d))
	// Output: 2 7 true 0
}

// The whole formula of depth 1 over three rows, for any DIMACS solver.
func ExampleWriteDIMACS() {
	d := &model.Dataset{Name: "tiny", Classes: []string{"no", "yes"},
		Features: []model.Feature{{Name: "x", Values: []float64{1, 2, 3}}},
		Labels:   []int{0, 0, 1}}
	p, err := avellaneda.Prepare(d, false)
	if err != nil {
		panic(err)
	}
	if err := avellaneda.WriteDIMACS(context.Background(), os.Stdout, p, "sat-depth", 1, 0, avellaneda.Options{}); err != nil {
		panic(err)
	}
	// Output:
	// c odtkit Avellaneda depth encoding (AAAI 2020): perfect tree of depth 1
	// c 2 features (binary-view tests), 2 classes, 3 example slots, at-most-one: none
	// c decode a model with: odt decode --backend sat-depth --depth 1 --opt amo=none --opt counter=totalizer --opt clauses=order --opt symmetry=false --opt class-cuts=true DATA SOLVER_OUTPUT
	// c X example slot e = the e-th data row (file order) that is the first row with its vector of tests
	// c var F 1..2 1x2 F[q][f]: internal node q+1 (root 1, children 2q 2q+1) tests feature f
	// c var C 3..6 2x2 C[v][a]: leaf v (bits = branches from the root, 1 = right = high) has class a
	// c var X 7..9 3x1 X[e][j]: example slot e goes right (test true) at depth j
	// p cnf 9 19
	// 1 2 0
	// -7 -1 0
	// -7 -2 0
	// -7 5 0
	// -7 -6 0
	// 7 3 0
	// 7 -4 0
	// -8 -2 0
	// -8 5 0
	// -8 -6 0
	// 8 -1 0
	// 8 3 0
	// 8 -4 0
	// -9 6 0
	// -9 -5 0
	// 9 -1 0
	// 9 -2 0
	// 9 4 0
	// 9 -3 0
}

// The per-threshold clauses of a numeric column with three thresholds,
// added on top of its order variables, for the example already in the
// formula.
func ExampleEncoding_AddDirectClauses() {
	d := &model.Dataset{Name: "ramp", Classes: []string{"no", "yes"},
		Features: []model.Feature{{Name: "x", Values: []float64{1, 2, 3, 4}}},
		Labels:   []int{0, 0, 1, 1}}
	p, err := avellaneda.Prepare(d, false)
	if err != nil {
		panic(err)
	}
	e, err := avellaneda.NewEncoding(context.Background(), nil, p.View, p.Tests, p.Reps, 1, avellaneda.Options{})
	if err != nil {
		panic(err)
	}
	e.AddExample(0)
	before := e.CNF.NumClauses()
	e.AddDirectClauses()
	fmt.Println(len(p.Tests), e.CNF.NumClauses()-before)
	// Output: 3 3
}
