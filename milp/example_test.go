package milp_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/odtkit/odtkit/milp"
)

func ExampleWriteMPS() {
	m := &milp.Model{Name: "knap", Sense: milp.Maximize}
	x := m.AddBinary("x", 5)
	y := m.AddBinary("y", 4)
	z := m.AddContinuous("z", 0, 2.5, 1)
	m.AddRow("cap", -milp.Inf, 6, []int{x, y, z}, []float64{4, 3, 1})
	if err := milp.WriteMPS(os.Stdout, m); err != nil {
		panic(err)
	}
	// Output:
	// NAME knap
	// OBJSENSE
	//     MAX
	// ROWS
	//  N  obj
	//  L  cap
	// COLUMNS
	//     MARKER0  'MARKER'  'INTORG'
	//     x  obj  5
	//     x  cap  4
	//     y  obj  4
	//     y  cap  3
	//     MARKER1  'MARKER'  'INTEND'
	//     z  obj  1
	//     z  cap  1
	// RHS
	//     RHS  cap  6
	// BOUNDS
	//  LO BND  x  0
	//  UP BND  x  1
	//  LO BND  y  0
	//  UP BND  y  1
	//  UP BND  z  2.5
	// ENDATA
}

// A CBC solution file for a model, read back into column values.
func ExampleReadSolution() {
	m := &milp.Model{Name: "knap", Sense: milp.Maximize}
	x := m.AddBinary("x", 5)
	y := m.AddBinary("y", 4)
	m.AddRow("cap", -milp.Inf, 6, []int{x, y}, []float64{4, 3})
	cbc := "Optimal - objective value 5.00000000\n      0 x                        1                      5\n"
	sol, err := milp.ReadSolution(strings.NewReader(cbc), m)
	if err != nil {
		panic(err)
	}
	fmt.Println(sol.Format, sol.Status, sol.X, m.Objective(sol.X))
	// Output: cbc optimal [1 0] 5
}
