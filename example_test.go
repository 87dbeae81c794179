package odtkit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
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

// xorData is a small CSV: the label is x XOR y, so a consistent tree
// needs depth 2.
const xorData = "x,y,z,label\n0,0,1,a\n0,1,0,b\n1,0,0,b\n1,1,1,a\n0,0,0,a\n1,1,0,a\n"

func ExampleExport() {
	d, err := model.ReadCSV(strings.NewReader(xorData), "xor.csv", model.ReadOptions{})
	if err != nil {
		panic(err)
	}
	var cnf bytes.Buffer
	format, err := odtkit.Export(context.Background(), &cnf, d,
		model.Problem{Objective: model.MinDepth, MaxDepth: 2}, odtkit.Settings{Backend: "sat-depth"})
	if err != nil {
		panic(err)
	}
	f, err := sat.ReadDIMACS(&cnf)
	if err != nil {
		panic(err)
	}
	fmt.Println(format, f.NumClauses() > 0)
	// Output: dimacs true
}

// Decode reads a SAT solver's answer in the usual s/v output form; here
// the solver is odtkit's own CDCL solver run on the exported formula.
func ExampleDecode() {
	ctx := context.Background()
	d, err := model.ReadCSV(strings.NewReader(xorData), "xor.csv", model.ReadOptions{})
	if err != nil {
		panic(err)
	}
	p := model.Problem{Objective: model.MinDepth, MaxDepth: 2}
	s := odtkit.Settings{Backend: "sat-depth"}
	var cnf bytes.Buffer
	if _, err := odtkit.Export(ctx, &cnf, d, p, s); err != nil {
		panic(err)
	}
	f, err := sat.ReadDIMACS(&cnf)
	if err != nil {
		panic(err)
	}
	solver := sat.NewCDCL()
	sat.AddCNF(solver, f, 0)
	if st, err := solver.Solve(ctx); err != nil || st != sat.Satisfiable {
		panic(fmt.Sprint(st, err))
	}
	var out strings.Builder
	out.WriteString("s SATISFIABLE\nv")
	for v := 1; v <= f.NumVars; v++ {
		l := sat.Lit(v)
		if !solver.Value(l) {
			l = l.Not()
		}
		fmt.Fprintf(&out, " %d", l)
	}
	out.WriteString(" 0\n")
	res, err := odtkit.Decode(ctx, strings.NewReader(out.String()), d, p, s)
	if err != nil {
		panic(err)
	}
	fmt.Println("errors:", res.Errors, "depth:", res.Model.Depth())
	// Output: errors: 0 depth: 2
}

// The default registry chooses a backend for "auto" from the problem and
// the data: contree for fewest errors on numeric columns, the SAT
// encoding for the smallest consistent tree.
func ExampleDefaultRegistry() {
	d, err := model.ReadFile("testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		panic(err)
	}
	r := odtkit.DefaultRegistry()
	for _, p := range []model.Problem{{MaxDepth: 3}, {Objective: model.MinDepth}} {
		name, err := r.Auto(d, p)
		fmt.Println(name, err)
	}
	// Output:
	// contree <nil>
	// sat-depth <nil>
}

func ExampleNewRegistry() {
	r := odtkit.NewRegistry(cart.Backend{})
	if err := r.Alias("greedy", "cart"); err != nil {
		panic(err)
	}
	b, ok := r.Get("greedy")
	fmt.Println(b.Info().Name, ok)
	// Output: cart true
}
