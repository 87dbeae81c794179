package milpjob

import (
	"slices"
	"testing"

	"github.com/odtkit/odtkit/milp"
)

// TestRowColumns: a representative row gets one column per leaf, named by
// row and leaf, in [0, 1] and integer as asked; a row identical to an
// earlier one shares that row's columns and adds none.
func TestRowColumns(t *testing.T) {
	for _, integer := range []bool{false, true} {
		m := &milp.Model{Name: "t"}
		rep := []int{0, 0, 2, 2, 4}
		cols := RowColumns(m, rep, 2, "z", integer)
		if len(m.Columns) != 6 {
			t.Fatalf("%d columns, want 6 (3 representatives × 2 leaves)", len(m.Columns))
		}
		for i, r := range rep {
			if !slices.Equal(cols[i], cols[r]) {
				t.Errorf("row %d: columns %v, want its representative %d's %v", i, cols[i], r, cols[r])
			}
		}
		if c := m.Columns[cols[4][1]]; c.Name != "z_4_1" || c.Lower != 0 || c.Upper != 1 || c.Integer != integer {
			t.Errorf("row 4, leaf 1: %+v, want z_4_1 in [0, 1], integer %v", c, integer)
		}
	}
}
