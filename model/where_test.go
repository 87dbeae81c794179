package model

import (
	"strings"
	"testing"
)

// Where names a row by the file and line it was read from, across blank
// lines and quoted fields that span lines, in both formats and after
// Subset; a dataset built by hand falls back to the row number.
func TestWhere(t *testing.T) {
	csv := "a,b,y\n0,1,x\n\n\"1\n\",0,y\n1,1,x\n"
	d, err := ReadCSV(strings.NewReader(csv), "d.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := ReadText(strings.NewReader("x 0 1\n\n\ny 1 0\nx 1 1\n"), "d.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d    *Dataset
		row  int
		want string
	}{
		{d, 0, "d.csv:2"}, {d, 1, "d.csv:4"}, {d, 2, "d.csv:6"},
		{text, 0, "d.txt:1"}, {text, 1, "d.txt:4"}, {text, 2, "d.txt:5"},
		{d.Subset([]int{2, 0}), 0, "d.csv:6"},
		{&Dataset{Name: "hand", Labels: []int{0, 0}}, 1, "hand: row 2"},
	} {
		if got := c.d.Where(c.row); got != c.want {
			t.Errorf("%s row %d: Where %q, want %q", c.d.Name, c.row, got, c.want)
		}
	}
}
