package milpjob

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// TestEstimate: the Go model's bytes, plus with solving the base and
// HiGHS's copy; a saturated count gives the largest Bytes.
func TestEstimate(t *testing.T) {
	var c backend.Counter
	s := Estimate(&c, 10, 20, 30, false, HiGHSBaseBytes)
	want := int64(10*colBytes + 20*rowBytes + 30*nzBytes)
	if s.Variables != 10 || s.Constraints != 20 || s.NonZeros != 30 || s.Bytes != want {
		t.Errorf("not solving: %+v, want 10, 20, 30 and %d bytes", s, want)
	}
	var h backend.Counter
	solve := Estimate(&c, 10, 20, 30, true, 7)
	if got := want + 7 + HiGHSBytes(&h, 10, 20, 30); solve.Bytes != got {
		t.Errorf("solving: %d bytes, want %d", solve.Bytes, got)
	}
	over := backend.Counter{}
	big := over.Mul(math.MaxInt64, 2)
	if s := Estimate(&over, 1, 1, big, false, 0); s.Bytes != math.MaxInt64 || s.Variables != 1 {
		t.Errorf("saturated: %+v, want the largest Bytes", s)
	}
}

// TestColumnTree: the point's classes (the last one set), the columns it
// splits on, and its model, whose unsplit node's rows go to the side
// asked for.
func TestColumnTree(t *testing.T) {
	d := &model.Dataset{Classes: []string{"a", "b"}, Labels: []int{0, 0, 1, 1},
		Features: []model.Feature{{Name: "x", Kind: model.Numeric, Values: []float64{1, 2, 3, 4}}}}
	cols := Columns(d)
	x := []float64{0, 1, 0.2, 0.9, 1, 1}
	if got := Set(x, []int{0, 1, 2, 3}); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("Set: %v, want [1 3]", got)
	}
	tr := NewColumnTree(1)
	if len(tr.Col) != 1 || tr.Col[0] != -1 || !slices.Equal(tr.Class, []int{-1, -1}) {
		t.Fatalf("NewColumnTree(1): %+v", tr)
	}
	tr.ReadClasses(x, [][]int{{0, 2}, {4, 5}})
	if !slices.Equal(tr.Class, []int{-1, 1}) {
		t.Errorf("classes %v, want [-1 1]", tr.Class)
	}
	tr.Col[0], tr.K[0], tr.Class[0] = 0, 1, 0
	if g := tr.Graph(d, cols, false); g.InternalNodes() != 1 || g.Errors(d) != 0 {
		t.Errorf("split at x <= 2: %d splits, %d errors; want 1 and 0", g.InternalNodes(), g.Errors(d))
	}
	tr.Col[0] = -1
	for _, high := range []bool{false, true} {
		want := 0 // the low leaf predicts class 0: the rows of class 1 are wrong
		if high {
			want = 1
		}
		if g := tr.Graph(d, cols, high); g.InternalNodes() != 0 || g.Predict(d, 0) != want {
			t.Errorf("no split, high %v: %d splits, predicts %d; want a leaf of class %d", high, g.InternalNodes(), g.Predict(d, 0), want)
		}
	}
}

// TestHeaderLines: the decode command with the problem's flags, and the
// columns six a line.
func TestHeaderLines(t *testing.T) {
	flags := TreeFlags(model.Problem{MaxDepth: 2, MaxNodes: 3, LeafCost: 0.5, MinSupport: 1})
	if got := DecodeLine("milp-x", flags); got != "decode a solution with: odt decode --backend milp-x --depth 2 --max-nodes 3 --leaf-cost 0.5 DATA SOL" {
		t.Errorf("DecodeLine: %q", got)
	}
	d := &model.Dataset{Classes: []string{"a"}, Labels: make([]int, 2)}
	for j := range 7 {
		d.Features = append(d.Features, model.Feature{Name: string(rune('a' + j)), Kind: model.Numeric, Values: []float64{0, 1}})
	}
	lines := ColumnLines(d, Columns(d), func(j int, c Column) string { return "!" })
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "columns j: 0=a! 1=b!") || lines[1] != "columns j: 6=g!" {
		t.Errorf("ColumnLines: %q", lines)
	}
}

// TestSameRows: rows identical on the columns and in the class share the
// first one's index, rows differing in either keep their own; without
// distinct every row is its own.
func TestSameRows(t *testing.T) {
	d := &model.Dataset{Classes: []string{"a", "b"}, Labels: []int{0, 0, 1, 0, 0},
		Features: []model.Feature{
			{Name: "x", Kind: model.Numeric, Values: []float64{1, 1, 1, 2, 1}},
			{Name: "y", Kind: model.Numeric, Values: []float64{5, 5, 5, 5, 6}},
		}}
	cols := Columns(d)
	if got := SameRows(d, cols, true); !slices.Equal(got, []int{0, 0, 2, 3, 4}) {
		t.Errorf("SameRows: %v, want [0 0 2 3 4]", got)
	}
	if got := SameRows(d, cols[:1], true); !slices.Equal(got, []int{0, 0, 2, 3, 0}) {
		t.Errorf("SameRows on x only: %v, want [0 0 2 3 0]", got)
	}
	if got := SameRows(d, cols, false); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("SameRows without distinct: %v, want [0 1 2 3 4]", got)
	}
	idx, val := AppendCoefs([]int{7}, []float64{1}, []int{2, 5}, -1)
	if !slices.Equal(idx, []int{7, 2, 5}) || !slices.Equal(val, []float64{1, -1, -1}) {
		t.Errorf("AppendCoefs: %v, %v", idx, val)
	}
}
