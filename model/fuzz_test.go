package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"
)

// checkRead asserts what every reader result must satisfy: an error is a
// located *DataError; a dataset is valid, has two rows or more, and its
// binary view agrees with the tests' definition.
func checkRead(t *testing.T, d *Dataset, err error) {
	t.Helper()
	if err != nil {
		var de *DataError
		if !errors.As(err, &de) {
			t.Fatalf("error %v (%T) is not a *DataError", err, err)
		}
		if de.File == "" || de.Line < 0 || bytes.ContainsAny([]byte(err.Error()), "\n") && de.Line == 0 {
			t.Fatalf("badly located error %+v", de)
		}
		return
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("reader returned an invalid dataset: %v", err)
	}
	if d.Rows() < 2 || d.NumFeatures() < 1 || d.NumClasses() < 1 {
		t.Fatalf("%d rows, %d features, %d classes", d.Rows(), d.NumFeatures(), d.NumClasses())
	}
	v := Binarize(d)
	if v.N != d.Rows() {
		t.Fatalf("view has %d rows, data %d", v.N, d.Rows())
	}
	for ti, test := range v.Tests {
		for r := range d.Rows() {
			if v.Value(ti, r) != test.Eval(d, r) {
				t.Fatalf("test %d row %d: bitset and Eval disagree", ti, r)
			}
		}
	}
	v.Redundancy()
}

func readSeed(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if len(b) > 4000 {
		b = b[:4000]
	}
	return b
}

func FuzzReadCSV(f *testing.F) {
	f.Add(readSeed(f, "../testdata/iris.csv"), "")
	f.Add(readSeed(f, "../testdata/500_Person_Gender_Height_Weight_Index.csv"), "Gender")
	f.Add([]byte("a,b,y\n1,x,0\n2,y,1\n"), "0")
	f.Add([]byte("\xef\xbb\xbfa,\"b\"\"c\",y\r\n1,2,0\r\n1,\"3\n4\",1\n"), "y")
	f.Add([]byte("a,y\nNaN,0\n1,1\n"), "")
	f.Add([]byte("a,y\n"), "")
	f.Add([]byte("a,b,y\n1,2,p\n?,3,q\n"), "")
	f.Add([]byte("a,b,y\n1,,p\n2,3,q\n"), "y")
	f.Add([]byte("a,,y\n1,2,p\n2,3,q\n"), "")
	f.Add([]byte("a,a,y\n1,2,p\n2,3,q\n"), "y")
	f.Add([]byte("a,w,y\n1,0,p\n2,3,q\n"), "w")
	f.Fuzz(func(t *testing.T, data []byte, label string) {
		d, err := ReadCSV(bytes.NewReader(data), "fuzz.csv", ReadOptions{Label: label})
		checkRead(t, d, err)
	})
}

func FuzzReadText(f *testing.F) {
	f.Add(readSeed(f, "../testdata/vote.txt"))
	f.Add([]byte("1 0.5 -2\n0 1e3 4\n"))
	f.Add([]byte("a 1\n\n b 2\r\n"))
	f.Add([]byte("1 NaN\n0 1\n"))
	f.Add([]byte("1 0 1\n0 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadText(bytes.NewReader(data), "fuzz.txt")
		checkRead(t, d, err)
	})
}

func FuzzParseModel(f *testing.F) {
	d := flowers()
	for _, g := range []*Graph{flowerTree(d), diamond(d)} {
		b, _ := json.Marshal(g)
		f.Add(b)
		r, _ := json.Marshal(&Result{Model: g, Incumbents: []Incumbent{}})
		f.Add(r)
	}
	b := NewBuilder(d, KindTree)
	lin, _ := json.Marshal(b.Graph(b.Linear(map[int]float64{0: 1, 2: -2}, 0.5, b.Leaf(0), b.Leaf(1))))
	f.Add(lin)
	f.Add([]byte(`{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["n","y"],"root":10,"nodes":[{"id":30,"class":1},{"id":10,"feature":0,"threshold":2,"low":20,"high":30},{"id":20,"class":0}]}`))
	f.Add([]byte(`{"model":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseModel(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("ParseModel returned an invalid graph: %v", err)
		}
		// Rendering and measuring never panic on a valid graph.
		_, _, _, _ = g.Text(), g.DOT(), g.Depth(), g.InternalNodes()
		// The JSON form reads back to the same graph.
		again, err := json.Marshal(g)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		g2, err := ParseModel(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("re-parse of %s: %v", again, err)
		}
		if !reflect.DeepEqual(g, g2) {
			t.Fatalf("round trip changed the graph:\n%+v\n%+v", g, g2)
		}
	})
}

func TestParseModelNoFeatures(t *testing.T) {
	in := `{"format":"odtkit-graph-1","kind":"tree","classes":["a"],"nodes":[{"id":0,"class":0}]}`
	g, err := ParseModel(bytes.NewReader([]byte(in)))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(g)
	g2, err := ParseModel(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, g2) {
		t.Errorf("round trip of a graph without features: %#v became %#v", g, g2)
	}
}
