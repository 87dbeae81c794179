package odd_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/odd"
	"github.com/odtkit/odtkit/model"
)

func ExampleEncode() {
	d := &model.Dataset{Name: "xor",
		Features: []model.Feature{
			{Name: "a", Kind: model.Numeric, Values: []float64{0, 0, 1, 1}},
			{Name: "b", Kind: model.Numeric, Values: []float64{0, 1, 0, 1}},
		},
		Labels: []int{0, 1, 1, 0}, Classes: []string{"no", "yes"}}
	e, err := odd.Encode(context.Background(), d, odd.Options{Skeleton: []int{1, 2}, Alpha: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	lambda := 0
	for _, row := range e.Lambda {
		lambda += len(row)
	}
	fmt.Printf("%d columns, %d binaries (%d of them λ), %d rows\n",
		len(e.Model.Columns), e.Model.NumIntegers(), lambda, len(e.Model.Rows))
	// The heuristic's diagram is a first incumbent.
	inc := e.Heuristic(context.Background(), 1, 1)
	fmt.Printf("heuristic: %d errors, %d internal nodes\n", inc.Errors, inc.Nodes)
	// Output:
	// 138 columns, 33 binaries (8 of them λ), 187 rows
	// heuristic: 0 errors, 3 internal nodes
}

// The tree MILP of a depth-1 problem, exported as MPS for any MILP
// solver; its comment header maps the columns and names the decode
// command.
func ExampleTreeBackend_Export() {
	d := &model.Dataset{Name: "or",
		Features: []model.Feature{
			{Name: "a", Kind: model.Numeric, Values: []float64{0, 0, 1, 1}},
			{Name: "b", Kind: model.Numeric, Values: []float64{0, 1, 0, 1}},
		},
		Labels: []int{0, 1, 1, 1}, Classes: []string{"no", "yes"}}
	b := odd.TreeBackend{}
	job, err := backend.NewJob(b.Info(), d, model.Problem{MaxDepth: 1}, nil)
	if err != nil {
		panic(err)
	}
	var buf strings.Builder
	if err := b.Export(context.Background(), &buf, job); err != nil {
		panic(err)
	}
	for _, line := range strings.Split(buf.String(), "\n")[:5] {
		fmt.Println(line)
	}
	// Output:
	// * odtkit milp-odt: the ODD flow MILP (Florio et al., AAAI 2023), tree special case, 4 rows x 2 feature columns scaled to [0,1], skeleton [1]
	// * solve it with one of: highs --solution_file SOL FILE; cbc FILE solve solu SOL; glpsol --freemps FILE.mps -w SOL (or glpsol --lp FILE.lp -w SOL; or -o SOL)
	// * decode a solution with: odt decode --backend milp-odt --depth 1 DATA SOL
	// * columns (0-based index ranges; u = internal node, layers first to last; i = data row in file order; v = successor node or terminal nInt+class):
	// *   0..0 (1) d_u: internal node u is active (binary)
}
