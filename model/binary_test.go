package model

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// numeric returns a dataset from numeric columns and labels.
func numeric(labels []int, cols ...[]float64) *Dataset {
	d := &Dataset{Name: "test", Labels: labels}
	nc := slices.Max(labels) + 1
	for c := range nc {
		d.Classes = append(d.Classes, string(rune('a'+c)))
	}
	for i, v := range cols {
		d.Features = append(d.Features, Feature{Name: "x" + string(rune('0'+i)), Values: v})
	}
	return d
}

// categorical adds a categorical column from strings.
func categorical(d *Dataset, name string, vals ...string) *Dataset {
	f := Feature{Name: name, Kind: Categorical}
	idx := map[string]int{}
	for _, s := range vals {
		l, ok := idx[s]
		if !ok {
			l = len(f.Levels)
			idx[s] = l
			f.Levels = append(f.Levels, s)
		}
		f.Values = append(f.Values, float64(l))
	}
	d.Features = append(d.Features, f)
	return d
}

func rowsOf(b Bitset) []int { return b.Rows(nil) }

func TestBinarizeNumeric(t *testing.T) {
	d := numeric([]int{0, 1, 0, 1, 0}, []float64{3, 1, 2, 2, 7})
	v := Binarize(d)
	want := []Test{{Feature: 0, Threshold: 1.5}, {Feature: 0, Threshold: 2.5}, {Feature: 0, Threshold: 5}}
	if !reflect.DeepEqual(v.Tests, want) {
		t.Fatalf("tests %+v, want midpoints %+v", v.Tests, want)
	}
	// True means "goes high": x > t.
	wantRows := [][]int{{0, 2, 3, 4}, {0, 4}, {4}}
	for i := range want {
		if got := rowsOf(v.True[i]); !reflect.DeepEqual(got, wantRows[i]) {
			t.Errorf("test %d (x > %v) true on rows %v, want %v", i, want[i].Threshold, got, wantRows[i])
		}
	}
	if got := rowsOf(v.Class[1]); !reflect.DeepEqual(got, []int{1, 3}) {
		t.Errorf("class 1 rows %v", got)
	}
	if v.N != 5 || v.NumTests() != 3 {
		t.Errorf("N %d tests %d", v.N, v.NumTests())
	}
}

func TestBinarizeSpecialColumns(t *testing.T) {
	d := numeric([]int{0, 1, 1, 0},
		[]float64{0, 1, 1, 0}, // 0/1 column: one test x > 0.5
		[]float64{4, 4, 4, 4}, // constant: no test
	)
	categorical(d, "sex", "m", "f", "f", "m")               // two values: one test
	categorical(d, "colour", "red", "green", "blue", "red") // three values: three tests
	categorical(d, "const", "z", "z", "z", "z")             // one value: no test
	v := Binarize(d)
	want := []Test{
		{Feature: 0, Threshold: 0.5},
		{Feature: 2, Categorical: true, Level: 0},
		{Feature: 3, Categorical: true, Level: 0},
		{Feature: 3, Categorical: true, Level: 1},
		{Feature: 3, Categorical: true, Level: 2},
	}
	if !reflect.DeepEqual(v.Tests, want) {
		t.Fatalf("tests %+v\nwant %+v", v.Tests, want)
	}
	wantRows := [][]int{{1, 2}, {0, 3}, {0, 3}, {1}, {2}}
	for i := range want {
		if got := rowsOf(v.True[i]); !reflect.DeepEqual(got, wantRows[i]) {
			t.Errorf("test %s true on %v, want %v", want[i].String(d), got, wantRows[i])
		}
	}
	if got := want[0].String(d); got != "x0 > 0.5" {
		t.Errorf("String = %q", got)
	}
	if got := want[3].String(d); got != "colour == green" {
		t.Errorf("String = %q", got)
	}
}

func TestMidpoint(t *testing.T) {
	cases := [][2]float64{{1, 2}, {-3, -1}, {0, 1e-300}, {1, math.Nextafter(1, 2)}, {-math.MaxFloat64, math.MaxFloat64}, {1e308, math.MaxFloat64}}
	for _, c := range cases {
		a, b := c[0], c[1]
		m := Midpoint(a, b)
		if !(a <= m && m < b) {
			t.Errorf("Midpoint(%v, %v) = %v, want a <= t < b", a, b, m)
		}
	}
	if Midpoint(1, 2) != 1.5 {
		t.Errorf("Midpoint(1,2) = %v", Midpoint(1, 2))
	}
}

// randomData returns a dataset with a mix of column kinds.
func randomData(rng *rand.Rand, n, nf, nc int) *Dataset {
	labels := make([]int, n)
	for r := range labels {
		labels[r] = rng.IntN(nc)
	}
	labels[0] = nc - 1
	d := numeric(labels)
	for j := range nf {
		switch j % 3 {
		case 0:
			vals := make([]float64, n)
			for r := range vals {
				vals[r] = float64(rng.IntN(6)) / 2
			}
			d.Features = append(d.Features, Feature{Name: "num", Values: vals})
		case 1:
			vals := make([]float64, n)
			for r := range vals {
				vals[r] = float64(rng.IntN(2))
			}
			d.Features = append(d.Features, Feature{Name: "bin", Values: vals})
		default:
			s := make([]string, n)
			for r := range s {
				s[r] = []string{"p", "q", "r"}[rng.IntN(1+j%3)]
			}
			categorical(d, "cat", s...)
		}
	}
	return d
}

// TestBinaryViewAgreesWithGraph checks, on random data, that every test's
// bitset equals Test.Eval row by row and that a graph node built from the
// test with Builder.Split sends exactly those rows high.
func TestBinaryViewAgreesWithGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 30 {
		d := randomData(rng, 1+rng.IntN(150), 1+rng.IntN(7), 1+rng.IntN(3))
		v := Binarize(d)
		for ti, test := range v.Tests {
			b := NewBuilder(d, KindTree)
			lo, hi := b.Leaf(0), b.Leaf(min(1, d.NumClasses()-1))
			g := b.Graph(b.Split(test, lo, hi))
			highLeaf := g.Nodes[g.Root].High
			for r := range d.Rows() {
				want := test.Eval(d, r)
				if v.Value(ti, r) != want {
					t.Fatalf("trial %d test %d row %d: bitset %v, Eval %v", trial, ti, r, v.Value(ti, r), want)
				}
				if (g.Leaf(d, r) == highLeaf) != want {
					t.Fatalf("trial %d test %s row %d: graph goes high=%v, test true=%v", trial, test.String(d), r, !want, want)
				}
			}
		}
		// Class bitsets partition the rows; SplitCounts and ClassCounts
		// agree with direct counting on a random row subset.
		rows := NewBitset(v.N)
		for r := range v.N {
			if rng.IntN(2) == 0 {
				rows.Set(r)
			}
		}
		for ti := range v.Tests {
			lo, hi := make([]int, len(v.Class)), make([]int, len(v.Class))
			v.SplitCounts(rows, ti, lo, hi)
			wlo, whi := make([]int, len(v.Class)), make([]int, len(v.Class))
			for r := range v.N {
				if !rows.Has(r) {
					continue
				}
				if v.Value(ti, r) {
					whi[d.Labels[r]]++
				} else {
					wlo[d.Labels[r]]++
				}
			}
			if !reflect.DeepEqual(lo, wlo) || !reflect.DeepEqual(hi, whi) {
				t.Fatalf("SplitCounts(%d) = %v/%v, want %v/%v", ti, lo, hi, wlo, whi)
			}
		}
		cc := v.ClassCounts(rows, make([]int, len(v.Class)))
		total := 0
		for c := range cc {
			total += cc[c]
		}
		if total != rows.Count() {
			t.Fatalf("class counts %v sum to %d, rows %d", cc, total, rows.Count())
		}
	}
}

func TestRedundancy(t *testing.T) {
	d := numeric([]int{0, 1, 0, 1},
		[]float64{0, 1, 0, 1}, // test 0
		[]float64{5, 6, 5, 6}, // test 1: duplicate of 0
		[]float64{1, 0, 1, 0}, // test 2: complement of 0
		[]float64{1, 2, 3, 4}, // tests 3,4,5: x>1.5, x>2.5, x>3.5
	)
	categorical(d, "c", "u", "v", "u", "v") // test 6: == u, rows {0,2}: complement of 0
	v := Binarize(d)
	// A hand-made constant test (Binarize never makes one).
	v.Tests = append(v.Tests, Test{Feature: 0, Threshold: 9})
	v.True = append(v.True, NewBitset(4))
	dup, comp, constant := v.Redundancy()
	wantDup := []int{-1, 0, -1, -1, -1, -1, -1, -1}
	wantComp := []int{-1, -1, 0, -1, -1, -1, 0, -1}
	wantConst := []bool{false, false, false, false, false, false, false, true}
	if !reflect.DeepEqual(dup, wantDup) || !reflect.DeepEqual(comp, wantComp) || !reflect.DeepEqual(constant, wantConst) {
		t.Errorf("Redundancy = dup %v comp %v const %v\nwant dup %v comp %v const %v", dup, comp, constant, wantDup, wantComp, wantConst)
	}
	// x > 2.5 on 1..4 is {2,3}: not a duplicate or complement of x > 1.5 or x > 3.5.
	if v.Describe() == "" {
		t.Error("empty description")
	}
}

func TestBitset(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 130} {
		f := FullBitset(n)
		if f.Count() != n || len(f) != (n+63)/64 {
			t.Errorf("FullBitset(%d): count %d len %d", n, f.Count(), len(f))
		}
		if n > 0 && !f.Has(n-1) {
			t.Errorf("FullBitset(%d) lacks %d", n, n-1)
		}
	}
	a, b := NewBitset(130), NewBitset(130)
	for _, r := range []int{0, 5, 64, 100, 129} {
		a.Set(r)
	}
	for _, r := range []int{5, 6, 100, 128} {
		b.Set(r)
	}
	if got := rowsOf(NewBitset(130).And(a, b)); !reflect.DeepEqual(got, []int{5, 100}) {
		t.Errorf("And = %v", got)
	}
	if got := rowsOf(NewBitset(130).AndNot(a, b)); !reflect.DeepEqual(got, []int{0, 64, 129}) {
		t.Errorf("AndNot = %v", got)
	}
	if AndCount(a, b) != 2 || AndNotCount(a, b) != 3 || AndCount3(a, b, FullBitset(130)) != 2 {
		t.Errorf("counts %d %d %d", AndCount(a, b), AndNotCount(a, b), AndCount3(a, b, FullBitset(130)))
	}
	c := a.Clone()
	c.Clear(64)
	if !a.Has(64) || c.Has(64) || a.Equal(c) || !a.Equal(a.Clone()) {
		t.Error("Clone/Clear/Equal")
	}
}

// TestBinarizeNoRows: a dataset without rows has a view without tests,
// numeric and categorical columns alike, not a panic.
func TestBinarizeNoRows(t *testing.T) {
	d := &Dataset{
		Features: []Feature{{Name: "a", Kind: Numeric}, {Name: "b", Kind: Categorical, Levels: []string{"p", "q", "r"}}},
		Classes:  []string{"x", "y"},
	}
	v := Binarize(d)
	if v.N != 0 || len(v.Class) != 2 {
		t.Fatalf("view of %d rows, %d classes; want 0 rows, 2 classes", v.N, len(v.Class))
	}
	for _, test := range v.Tests {
		if test.Feature == 0 {
			t.Fatalf("numeric column without values has test %+v", test)
		}
	}
}
