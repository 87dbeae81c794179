package modeltest_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// TestGenerateCSV writes the seeded numeric file of the scale tests
// when asked:
//
//	ODTKIT_GEN_CSV=/tmp/numeric-1m.csv ODTKIT_GEN_ROWS=1000000 go test -run GenerateCSV ./model/modeltest
//
// (20 numeric columns, seed 1; 10,000 rows unless ODTKIT_GEN_ROWS says).
func TestGenerateCSV(t *testing.T) {
	path := os.Getenv("ODTKIT_GEN_CSV")
	if path == "" {
		t.Skip("ODTKIT_GEN_CSV not set")
	}
	rows := 10_000
	if s := os.Getenv("ODTKIT_GEN_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("ODTKIT_GEN_ROWS: %v", err)
		}
		rows = n
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := modeltest.WriteCSV(f, modeltest.Numeric(rows, 20, 1)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// WriteCSV's file reads back as the same data.
func TestWriteCSVRoundTrip(t *testing.T) {
	d := modeltest.Numeric(500, 4, 3)
	p := t.TempDir() + "/d.csv"
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := modeltest.WriteCSV(f, d); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := model.ReadFile(p, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for c, fe := range d.Features {
		for r, x := range fe.Values {
			if back.Features[c].Values[r] != x {
				t.Fatalf("row %d column %d: %v read back as %v", r, c, x, back.Features[c].Values[r])
			}
		}
	}
	for r, l := range d.Labels {
		if back.Classes[back.Labels[r]] != d.Classes[l] {
			t.Fatalf("row %d: label changed", r)
		}
	}
}
