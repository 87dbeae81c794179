package binoct_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/binoct"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/encode/milpjob/formtest"
	"github.com/odtkit/odtkit/model"
)

// TestEstimateMatchesTheModel: the estimate, counted before building,
// equals the built MILP's columns, rows and non-zeros; with the
// strengthened inequalities (counted per row, not per group of identical
// rows) it bounds them from above.
func TestEstimateMatchesTheModel(t *testing.T) {
	for _, c := range []struct {
		name string
		d    *model.Dataset
		o    binoct.Options
	}{
		{"depth 1", formtest.RandomData(1, 30, 3, 2, false), binoct.Options{Tree: milpjob.Tree{Depth: 1}}},
		{"depth 2, 3 classes", formtest.RandomData(2, 40, 4, 3, false), binoct.Options{Tree: milpjob.Tree{Depth: 2}}},
		{"depth 3", formtest.RandomData(3, 40, 4, 3, false), binoct.Options{Tree: milpjob.Tree{Depth: 3}}},
		{"depth 4, 11 values", formtest.RandomData(8, 30, 10, 2, false), binoct.Options{Tree: milpjob.Tree{Depth: 4}, BinaryLeaves: true}},
		{"depth 3, extended", formtest.RandomData(4, 25, 3, 2, false), binoct.Options{Tree: milpjob.Tree{Depth: 3, MinSupport: 2, LeafCost: 0.1, MaxSplits: 3}}},
		{"depth 3, strengthened", formtest.RandomData(5, 25, 3, 2, false), binoct.Options{Tree: milpjob.Tree{Depth: 3}, Strengthen: true}},
		{"depth 2, strengthened, 3 classes", formtest.RandomData(6, 25, 3, 3, false), binoct.Options{Tree: milpjob.Tree{Depth: 2}, Strengthen: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := binoct.Plan(c.d, c.o)
			s := e.Estimate(false)
			if err := e.Build(context.Background()); err != nil {
				t.Fatal(err)
			}
			cols, rows, nz := int64(len(e.Model.Columns)), int64(len(e.Model.Rows)), int64(e.Model.NumNonzeros())
			exact := !c.o.Strengthen
			if exact && (s.Variables != cols || s.Constraints != rows || s.NonZeros != nz) ||
				s.Variables < cols || s.Constraints < rows || s.NonZeros < nz {
				t.Errorf("estimated %v; built %d columns, %d rows, %d non-zeros", s, cols, rows, nz)
			}
			if solving := e.Estimate(true); s.Bytes <= 0 || solving.Bytes <= s.Bytes {
				t.Errorf("bytes %d to build, %d to solve", s.Bytes, solving.Bytes)
			}
		})
	}
}

// TestDeepTreeRefused: a tree too deep to index is refused from its
// estimate alone, which is counted by level (a depth-40 tree has 2^40
// branch nodes: an estimate that visited them would not end).
func TestDeepTreeRefused(t *testing.T) {
	d := formtest.RandomData(7, 100, 10, 2, false)
	if s := binoct.Plan(d, binoct.Options{Tree: milpjob.Tree{Depth: 40}}).Estimate(true); s.Variables < 1<<40 || s.NonZeros < 1<<50 {
		t.Errorf("depth 40: estimated %v", s)
	}
	job, err := backend.NewJob(binoct.Backend{}.Info(), d, model.Problem{MaxDepth: 40}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (binoct.Backend{}).Solve(context.Background(), job); !errors.Is(err, backend.ErrInvalid) || !strings.Contains(err.Error(), "more than a MILP solver can index") {
		t.Fatalf("depth 40: %v, want a refusal", err)
	}
}
