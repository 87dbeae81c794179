package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustCSV(t *testing.T, text string, opt ReadOptions) *Dataset {
	t.Helper()
	d, err := ReadCSV(strings.NewReader(text), "t.csv", opt)
	if err != nil {
		t.Fatalf("ReadCSV: %v", err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("reader returned an invalid dataset: %v", err)
	}
	return d
}

func TestReadCSVGood(t *testing.T) {
	text := "\uFEFF colour , size,weight ,label\n" +
		"red, 1.5,2,yes\n" +
		"\n" +
		"blue,2,1,no\r\n" +
		"\"red\",-3e1,4,yes\n" +
		"green,2,1,maybe\n"
	d := mustCSV(t, text, ReadOptions{})
	if d.Rows() != 4 || d.NumFeatures() != 3 {
		t.Fatalf("got %d rows, %d features; want 4, 3", d.Rows(), d.NumFeatures())
	}
	if got, want := d.FeatureNames(), []string{"colour", "size", "weight"}; !reflect.DeepEqual(got, want) {
		t.Errorf("feature names %q, want %q (BOM and blanks stripped)", got, want)
	}
	if got, want := d.Classes, []string{"yes", "no", "maybe"}; !reflect.DeepEqual(got, want) {
		t.Errorf("classes %q, want first-seen order %q", got, want)
	}
	if got, want := d.Labels, []int{0, 1, 0, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	col := d.Features[0]
	if col.Kind != Categorical || !reflect.DeepEqual(col.Levels, []string{"red", "blue", "green"}) ||
		!reflect.DeepEqual(col.Values, []float64{0, 1, 0, 2}) {
		t.Errorf("colour column = %+v, want categorical red/blue/green", col)
	}
	if f := d.Features[1]; f.Kind != Numeric || !reflect.DeepEqual(f.Values, []float64{1.5, 2, -30, 2}) {
		t.Errorf("size column = %+v, want numeric 1.5 2 -30 2", f)
	}
	if d.Weights != nil {
		t.Errorf("weights %v without --weight", d.Weights)
	}
}

func TestReadCSVLabelAndWeight(t *testing.T) {
	text := "a,y,w,b\n1,p,2,0\n2,q,0.5,1\n3,p,1,0\n"
	d := mustCSV(t, text, ReadOptions{Label: "y", Weight: "w"})
	if got := d.FeatureNames(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("features %q, want a, b (label and weight columns excluded)", got)
	}
	if !reflect.DeepEqual(d.Weights, []float64{2, 0.5, 1}) {
		t.Errorf("weights %v", d.Weights)
	}
	if !reflect.DeepEqual(d.Classes, []string{"p", "q"}) || !reflect.DeepEqual(d.Labels, []int{0, 1, 0}) {
		t.Errorf("classes %q labels %v", d.Classes, d.Labels)
	}
	// By 0-based index.
	d = mustCSV(t, text, ReadOptions{Label: "1", Weight: "2"})
	if got := d.FeatureNames(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("by index: features %q", got)
	}
	if got := d.ClassCounts(); !reflect.DeepEqual(got, []float64{3, 0.5}) {
		t.Errorf("weighted class counts %v, want [3 0.5]", got)
	}
}

func TestReadText(t *testing.T) {
	text := "\uFEFF1 0 1 2.5\n\n  0 1 0 -1\r\n1\t1 1 3\nA 0 0 0\n"
	d, err := ReadText(strings.NewReader(text), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 4 || d.NumFeatures() != 3 {
		t.Fatalf("%d rows %d features", d.Rows(), d.NumFeatures())
	}
	if !reflect.DeepEqual(d.Classes, []string{"1", "0", "A"}) || !reflect.DeepEqual(d.Labels, []int{0, 1, 0, 2}) {
		t.Errorf("classes %q labels %v", d.Classes, d.Labels)
	}
	if !reflect.DeepEqual(d.FeatureNames(), []string{"f0", "f1", "f2"}) {
		t.Errorf("names %q", d.FeatureNames())
	}
	if got := d.Features[2].Values; !reflect.DeepEqual(got, []float64{2.5, -1, 3, 0}) {
		t.Errorf("f2 = %v", got)
	}
}

// TestReadBadInput checks that each kind of bad input gives a DataError
// naming the file and the line of the problem.
func TestReadBadInput(t *testing.T) {
	cases := []struct {
		name, file, text string
		opt              ReadOptions
		line             int
		msg              string
	}{
		{"csv ragged long", "a.csv", "a,b,y\n1,2,0\n1,2,0,4\n", ReadOptions{}, 3, "4 fields"},
		{"csv ragged short", "a.csv", "a,b,y\n1,2,0\n3,4,1\n1,0\n", ReadOptions{}, 4, "2 fields"},
		{"csv empty", "a.csv", "", ReadOptions{}, 1, "empty file"},
		{"csv header only", "a.csv", "a,b,y\n", ReadOptions{}, 1, "0 data row"},
		{"csv one row", "a.csv", "a,b,y\n1,2,0\n\n", ReadOptions{}, 2, "1 data row"},
		{"csv missing label", "a.csv", "a,b,y\n1,2,0\n1,3,1\n", ReadOptions{Label: "class"}, 1, `no column "class"`},
		{"csv label index out of range", "a.csv", "a,b,y\n1,2,0\n1,3,1\n", ReadOptions{Label: "3"}, 1, `no column "3"`},
		{"csv missing weight", "a.csv", "a,b,y\n1,2,0\n1,3,1\n", ReadOptions{Weight: "w"}, 1, `no column "w"`},
		{"csv weight is label", "a.csv", "a,b,y\n1,2,0\n1,3,1\n", ReadOptions{Weight: "y"}, 1, "weight column"},
		{"csv bad weight", "a.csv", "a,w,y\n1,2,0\n1,-3,1\n", ReadOptions{Weight: "w"}, 3, "positive finite"},
		{"csv one column", "a.csv", "y\n1\n0\n", ReadOptions{}, 1, "1 column"},
		{"csv NaN", "a.csv", "a,b,y\n1,2,0\n1,NaN,1\n", ReadOptions{}, 3, "finite"},
		{"csv Inf", "a.csv", "a,b,y\n1,2,0\n1,3,1\n-Inf,3,1\n", ReadOptions{}, 4, "finite"},
		{"csv empty label", "a.csv", "a,b,y\n1,2,0\n1,3,\n", ReadOptions{}, 3, "empty label"},
		{"csv bad quote", "a.csv", "a,b,y\n1,2,0\n1,\"3,1\n", ReadOptions{}, 3, "quote"},
		{"text ragged", "a.txt", "1 0 1\n0 1 1\n1 0\n", ReadOptions{}, 3, "2 fields"},
		{"text NaN", "a.txt", "1 0 1\n0 NaN 1\n", ReadOptions{}, 2, "not a finite number"},
		{"text Inf", "a.txt", "1 0 1\n\n0 1 +Inf\n", ReadOptions{}, 3, "not a finite number"},
		{"text non-number", "a.txt", "1 0 1\n0 1 yes\n", ReadOptions{}, 2, `"yes", not a number`},
		{"text empty", "a.txt", "", ReadOptions{}, 1, "empty file"},
		{"text blank lines only", "a.txt", "\n  \n\n", ReadOptions{}, 3, "empty file"},
		{"text one row", "a.txt", "\n1 0 1\n\n", ReadOptions{}, 2, "1 data row"},
		{"text label only", "a.txt", "1\n0\n", ReadOptions{}, 1, "1 field"},
		{"text with --label", "a.txt", "1 0\n0 1\n", ReadOptions{Label: "0"}, 0, "CSV files only"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadFile(path, c.opt)
			if err == nil {
				t.Fatalf("no error; got %d rows", d.Rows())
			}
			var de *DataError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T) is not a *DataError", err, err)
			}
			if de.File != path || de.Line != c.line {
				t.Errorf("error at %s:%d, want %s:%d (%v)", de.File, de.Line, path, c.line, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.msg) || !strings.HasPrefix(msg, path) || strings.Contains(msg, "\n") {
				t.Errorf("message %q should be one line starting with the file and mention %q", msg, c.msg)
			}
			if c.line > 0 && !strings.HasPrefix(msg, fmt.Sprintf("%s:%d: ", path, c.line)) {
				t.Errorf("message %q does not start with file:line", msg)
			}
		})
	}
}

func TestReadCSVInfIsALevelInATextColumn(t *testing.T) {
	// A column with a non-number is categorical even when another of its
	// values would parse as a (non-finite) number.
	d := mustCSV(t, "a,y\ninf,0\nlow,1\nNaN,1\n", ReadOptions{})
	if f := d.Features[0]; f.Kind != Categorical || !reflect.DeepEqual(f.Levels, []string{"inf", "low", "NaN"}) {
		t.Errorf("column = %+v, want categorical inf/low/NaN", f)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "none.csv"), ReadOptions{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestReadTestdata(t *testing.T) {
	vote, err := ReadFile("../testdata/vote.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if vote.Rows() != 435 || vote.NumFeatures() != 48 || vote.NumClasses() != 2 || !vote.AllBinary() || vote.HasNumeric() {
		t.Errorf("vote: %d rows %d features %d classes, binary %v", vote.Rows(), vote.NumFeatures(), vote.NumClasses(), vote.AllBinary())
	}
	iris, err := ReadFile("../testdata/iris.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if iris.Rows() != 150 || iris.NumFeatures() != 4 || iris.NumClasses() != 3 || !iris.HasNumeric() {
		t.Errorf("iris: %d rows %d features %d classes", iris.Rows(), iris.NumFeatures(), iris.NumClasses())
	}
	if got := iris.ClassCounts(); !reflect.DeepEqual(got, []float64{50, 50, 50}) {
		t.Errorf("iris class counts %v", got)
	}
	bmi, err := ReadFile("../testdata/500_Person_Gender_Height_Weight_Index.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := bmi.Features[0]; f.Name != "Gender" || f.Kind != Categorical || len(f.Levels) != 2 {
		t.Errorf("bmi first column %q kind %v levels %q; want categorical Gender with 2 levels (BOM stripped)", f.Name, f.Kind, f.Levels)
	}
	if bmi.Rows() != 500 || bmi.NumClasses() != 6 {
		t.Errorf("bmi: %d rows %d classes", bmi.Rows(), bmi.NumClasses())
	}
}

func TestReadCSVWeightCap(t *testing.T) {
	// 2^53 itself is accepted; a larger weight, or a total above it, is
	// refused at its line.
	if _, err := ReadCSV(strings.NewReader("a,w,y\n1,9007199254740992,p\n2,2,q\n"), "w.csv", ReadOptions{Weight: "w"}); err == nil || !strings.Contains(err.Error(), "w.csv:3:") {
		t.Errorf("total above 2^53: %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("a,w,y\n1,1e17,p\n2,1,q\n"), "w.csv", ReadOptions{Weight: "w"}); err == nil || !strings.Contains(err.Error(), "w.csv:2:") {
		t.Errorf("weight 1e17: %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("a,w,y\n1,9007199254740991,p\n2,1,q\n"), "w.csv", ReadOptions{Weight: "w"}); err != nil {
		t.Errorf("total 2^53: %v", err)
	}
}

func TestReadCSVColumnTurnsCategorical(t *testing.T) {
	// Numbers written in any form keep their text as levels when a later
	// value makes the column categorical; an all-number column stays
	// numeric with the values parsed.
	d := mustCSV(t, "a,b,y\n1.0,1.50,p\n2,2.5,q\n1.0,1.6e1,p\nabc,3,q\n", ReadOptions{})
	a, b := d.Features[0], d.Features[1]
	if a.Kind != Categorical || !reflect.DeepEqual(a.Levels, []string{"1.0", "2", "abc"}) || !reflect.DeepEqual(a.Values, []float64{0, 1, 0, 2}) {
		t.Errorf("column a: %v %q %v", a.Kind, a.Levels, a.Values)
	}
	if b.Kind != Numeric || !reflect.DeepEqual(b.Values, []float64{1.5, 2.5, 16, 3}) {
		t.Errorf("column b: %v %v", b.Kind, b.Values)
	}
}
