package milp_test

import (
	"os"

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
