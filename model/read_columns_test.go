package model

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestReadRefusesMissingValuesAndBadNames: a ? or an empty cell, and an
// empty or repeated column name, are errors at their line naming the
// column; the messages name the real column, not a value of a row.
func TestReadRefusesMissingValuesAndBadNames(t *testing.T) {
	cases := []struct {
		name, text string
		opt        ReadOptions
		line       int
		msg        []string
	}{
		{"question mark in a numeric column", "a,b,y\n1,2,p\n?,3,q\n4,5,p\n", ReadOptions{}, 3, []string{`"?"`, `column "a"`, "--categorical a"}},
		{"empty cell in a numeric column", "a,b,y\n1,2,p\n3,,q\n4,5,p\n", ReadOptions{}, 3, []string{"empty cell", `column "b"`}},
		{"blank cell in a numeric column", "a,b,y\n1,2,p\n3, ,q\n4,5,p\n", ReadOptions{}, 3, []string{"empty cell", `column "b"`}},
		{"question mark in a text column", "c,y\nred,p\n?,q\n", ReadOptions{}, 3, []string{`"?"`, `column "c"`}},
		{"missing value before the data turns text", "a,y\n1,p\n?,q\nx,p\n", ReadOptions{}, 3, []string{`column "a"`}},
		{"empty column name", "a,,y\n1,2,p\n3,4,q\n", ReadOptions{}, 1, []string{"column 2", "no name"}},
		{"blank column name", "a, ,y\n1,2,p\n3,4,q\n", ReadOptions{}, 1, []string{"column 2", "no name"}},
		{"trailing comma in the header", "a,b,y,\n1,2,p,\n3,4,q,\n", ReadOptions{Label: "y"}, 1, []string{"column 4", "no name"}},
		{"repeated column name", "a,b,a,y\n1,2,3,p\n3,4,5,q\n", ReadOptions{}, 1, []string{`two columns "a"`, "columns 1 and 3"}},
		{"repeated after trimming", "a, a,y\n1,2,p\n3,4,q\n", ReadOptions{}, 1, []string{`two columns "a"`}},
		{"weight message names the weight column", "a,w,y\n1,0,p\n3,1,q\n", ReadOptions{Weight: "w"}, 2, []string{`weight "0" in column "w"`}},
		{"label message names the label column", "a,b,cls\n1,2,p\n3,4,\n", ReadOptions{}, 3, []string{`empty label in column "cls"`}},
		{"categorical label", "a,y\n1,p\n2,q\n", ReadOptions{Categorical: []string{"y"}}, 1, []string{"label column"}},
		{"categorical weight", "a,w,y\n1,1,p\n2,1,q\n", ReadOptions{Weight: "w", Categorical: []string{"w"}}, 1, []string{"weight column"}},
		{"categorical column absent", "a,y\n1,p\n2,q\n", ReadOptions{Categorical: []string{"b"}}, 1, []string{`no column "b"`}},
		{"wanted column absent", "a,b,y\n1,2,p\n3,4,q\n", ReadOptions{Columns: []string{"b", "c", "d"}}, 1, []string{`no column "c", "d"`}},
		{"wanted column is the label", "a,b,y\n1,2,p\n3,4,q\n", ReadOptions{Columns: []string{"y"}}, 1, []string{`"y"`, "label column"}},
		{"label without labels", "a,b,y\n1,2,p\n3,4,q\n", ReadOptions{NoLabel: true, Label: "y"}, 1, []string{"without labels"}},
		{"no rows without labels", "a,b\n", ReadOptions{NoLabel: true, MinRows: 1}, 1, []string{"0 data row", "at least 1"}},
		{"text wanted feature absent", "1 0 1\n0 1 1\n", ReadOptions{Columns: []string{"f0", "f2", "x"}}, 1, []string{`"f2", "x"`, "f0 to f1"}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := "a.csv"
			if strings.HasPrefix(c.name, "text") {
				file = "a.txt"
			}
			path := filepath.Join(dir, file)
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadFile(path, c.opt)
			if err == nil {
				t.Fatalf("read %d rows, %d features; want an error", d.Rows(), d.NumFeatures())
			}
			var de *DataError
			if !errors.As(err, &de) || de.File != path || de.Line != c.line {
				t.Fatalf("error %v (%T), want a DataError at %s:%d", err, err, path, c.line)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("%s:%d: ", path, c.line)) {
				t.Errorf("message %q does not start with file:line", err)
			}
			for _, m := range c.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("message %q lacks %q", err, m)
				}
			}
		})
	}
}

func TestReadCategoricalOptIn(t *testing.T) {
	// A declared categorical column reads every value as a level, the
	// missing marks and numbers included; the other columns stay numeric.
	d := mustCSV(t, "a,b,y\n1,2,p\n?,3,q\n1.0,,p\n,4,q\n", ReadOptions{Categorical: []string{"a", "1"}})
	a, b := d.Features[0], d.Features[1]
	if a.Kind != Categorical || !reflect.DeepEqual(a.Levels, []string{"1", "?", "1.0", ""}) || !reflect.DeepEqual(a.Values, []float64{0, 1, 2, 3}) {
		t.Errorf("column a: %v %q %v", a.Kind, a.Levels, a.Values)
	}
	if b.Kind != Categorical || !reflect.DeepEqual(b.Levels, []string{"2", "3", "", "4"}) {
		t.Errorf("column b (declared by index): %v %q", b.Kind, b.Levels)
	}
	// A numeric-looking column declared categorical stays categorical,
	// and "inf" is a level there, not an error.
	d = mustCSV(t, "zip,y\n1000,p\ninf,q\n", ReadOptions{Categorical: []string{"zip"}})
	if f := d.Features[0]; f.Kind != Categorical || !reflect.DeepEqual(f.Levels, []string{"1000", "inf"}) {
		t.Errorf("zip: %v %q", f.Kind, f.Levels)
	}
	// Text columns are categorical without being declared.
	d = mustCSV(t, "c,y\nred,p\nblue,q\n", ReadOptions{})
	if d.Features[0].Kind != Categorical {
		t.Errorf("text column read as %v", d.Features[0].Kind)
	}
}

func TestReadColumnsSkipsOthers(t *testing.T) {
	// Only the wanted columns are parsed: a ? in another is no error, and
	// the features keep their file order.
	d := mustCSV(t, "junk,b,a,y\n?,2,1,p\n,3,x,q\n", ReadOptions{Columns: []string{"a", "b"}})
	if got := d.FeatureNames(); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("features %q, want b, a", got)
	}
	if d.Features[1].Kind != Categorical || d.Features[0].Kind != Numeric {
		t.Errorf("kinds %v %v", d.Features[0].Kind, d.Features[1].Kind)
	}
	// The absent-column error is classified for callers applying a model.
	_, err := ReadCSV(strings.NewReader("a,y\n1,p\n2,q\n"), "m.csv", ReadOptions{Columns: []string{"b"}})
	if !errors.Is(err, ErrMissingColumn) {
		t.Errorf("absent column: %v, want ErrMissingColumn", err)
	}
	d, err = ReadText(strings.NewReader("1 5 6 7\n0 8 9 10\n"), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString("1 5 6 7\n0 8 9 10\n")
	dt, err := readText(t.Context(), &buf, "t.txt", ReadOptions{Columns: []string{"f2", "f0"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := dt.FeatureNames(); !reflect.DeepEqual(got, []string{"f0", "f2"}) || !reflect.DeepEqual(dt.Features[1].Values, d.Features[2].Values) {
		t.Errorf("text columns f2, f0: %q %v", got, dt.Features)
	}
}

func TestReadWithoutLabels(t *testing.T) {
	// One row and no label column: every column is a feature, there are
	// no classes, and the dataset cannot be learned from.
	d, err := ReadCSV(strings.NewReader("a,b\n1,x\n"), "u.csv", ReadOptions{NoLabel: true, MinRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 1 || !reflect.DeepEqual(d.FeatureNames(), []string{"a", "b"}) || d.NumClasses() != 0 || !reflect.DeepEqual(d.Labels, []int{0}) {
		t.Errorf("%d rows, features %q, classes %q, labels %v", d.Rows(), d.FeatureNames(), d.Classes, d.Labels)
	}
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "no labels") {
		t.Errorf("Validate of unlabelled data: %v", err)
	}
	// A one-column file is a feature, and the default still wants two rows.
	if _, err := ReadCSV(strings.NewReader("a\n1\n"), "u.csv", ReadOptions{NoLabel: true}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Errorf("one row with the default minimum: %v", err)
	}
	dt, err := ReadText(strings.NewReader("5 6\n"), "u.txt")
	if err == nil {
		t.Errorf("text one row by default: %d rows", dt.Rows())
	}
	dt, err = readText(t.Context(), strings.NewReader("5 6\n"), "u.txt", ReadOptions{NoLabel: true, MinRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	if dt.Rows() != 1 || !reflect.DeepEqual(dt.FeatureNames(), []string{"f0", "f1"}) || dt.Features[0].Values[0] != 5 || dt.NumClasses() != 0 {
		t.Errorf("unlabelled text row: %+v", dt)
	}
	// Labelled data may be read from one row too.
	if d, err := ReadCSV(strings.NewReader("a,y\n1,p\n"), "o.csv", ReadOptions{MinRows: 1}); err != nil || d.Rows() != 1 || d.Classes[0] != "p" {
		t.Errorf("one labelled row: %v", err)
	}
}

// FuzzReadCSVOptions reads arbitrary CSV with the options of this file:
// a declared categorical column, a subset of columns, no labels. Beyond
// checkRead's properties, a column not declared categorical never holds a
// missing value as a level, and the features have distinct, non-empty
// names.
func FuzzReadCSVOptions(f *testing.F) {
	f.Add([]byte("a,b,y\n1,2,p\n?,3,q\n4,5,p\n"), "", "", false)
	f.Add([]byte("a,b,y\n1,2,p\n?,3,q\n4,,p\n"), "a", "", false)
	f.Add([]byte("a,b,y\n1,2,p\n?,3,q\n4,,p\n"), "a,b", "b", false)
	f.Add([]byte("a,,y\n1,2,p\n3,4,q\n"), "", "", false)
	f.Add([]byte("a,a,y\n1,2,p\n3,4,q\n"), "", "a", false)
	f.Add([]byte("x,y\n1,\n2,?\n"), "y", "x", true)
	f.Add([]byte("junk,b\n?,1\n,2\n"), "", "b", true)
	f.Add([]byte("c,y\nred,p\n?,q\n"), "c", "", false)
	f.Fuzz(func(t *testing.T, data []byte, categorical, columns string, noLabel bool) {
		opt := ReadOptions{NoLabel: noLabel}
		if categorical != "" {
			opt.Categorical = strings.Split(categorical, ",")
		}
		if columns != "" {
			opt.Columns = strings.Split(columns, ",")
		}
		d, err := ReadCSV(bytes.NewReader(data), "fuzz.csv", opt)
		if err != nil || !noLabel {
			checkRead(t, d, err)
		}
		if err != nil {
			return
		}
		declared, byIndex := map[string]bool{}, false
		for _, c := range opt.Categorical {
			declared[c] = true
			if _, err := strconv.Atoi(c); err == nil {
				byIndex = true // a header index, not a feature index: not checked
			}
		}
		seen := map[string]bool{}
		for i, f := range d.Features {
			if f.Name == "" || seen[f.Name] {
				t.Fatalf("feature %d has an empty or repeated name %q", i, f.Name)
			}
			seen[f.Name] = true
			if len(f.Values) != d.Rows() {
				t.Fatalf("feature %s has %d values for %d rows", f.Name, len(f.Values), d.Rows())
			}
			if declared[f.Name] || byIndex {
				continue
			}
			for _, l := range f.Levels {
				if l == "" || l == "?" {
					t.Fatalf("undeclared column %s holds the missing value %q as a level", f.Name, l)
				}
			}
		}
		if noLabel && (d.NumClasses() != 0 || d.Rows() < 2) {
			t.Fatalf("unlabelled read: %d classes, %d rows", d.NumClasses(), d.Rows())
		}
	})
}
