package milp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomModel builds a model exercising every kind of bound and row.
func randomModel(r *rand.Rand) *Model {
	m := &Model{Name: "rnd", Offset: float64(r.IntN(5)) - 2.5}
	if r.IntN(2) == 0 {
		m.Sense = Maximize
	}
	vals := []float64{0, 1, -1, 0.1, 1e-7, 3.25, -2.5e9, math.Pi, 1.0 / 3}
	bounds := [][2]float64{{0, Inf}, {0, 1}, {-Inf, Inf}, {-Inf, 4}, {2, 2}, {-3, 0.7}, {0, -1}, {1.0 / 3, Inf}}
	nc := 1 + r.IntN(8)
	for j := range nc {
		b := bounds[r.IntN(len(bounds))]
		m.AddColumn(fmt.Sprintf("x%d", j), b[0], b[1], vals[r.IntN(len(vals))], r.IntN(3) == 0)
	}
	rowB := [][2]float64{{-Inf, 3}, {1, Inf}, {2, 2}, {-1, 0.3}, {-Inf, Inf}, {0.1, 0.7}, {-1e9, 1e-9}}
	for i := range r.IntN(7) {
		var idx []int
		var val []float64
		for j := range nc {
			if r.IntN(2) == 0 {
				idx = append(idx, j)
				val = append(val, vals[1+r.IntN(len(vals)-1)])
			}
		}
		b := rowB[r.IntN(len(rowB))]
		m.AddRow(fmt.Sprintf("r%d", i), b[0], b[1], idx, val)
	}
	return m
}

func roundTrip(t *testing.T, m *Model) *Model {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMPS(&buf, m); err != nil {
		t.Fatalf("write: %v", err)
	}
	back, err := ReadMPS(&buf)
	if err != nil {
		t.Fatalf("read: %v\n%s", err, buf.String())
	}
	return back
}

func normalize(m *Model) *Model {
	c := *m
	if c.ObjName == "" {
		c.ObjName = "obj"
	}
	c.Rows = make([]Row, len(m.Rows))
	for i, r := range m.Rows {
		if r.Index == nil {
			r.Index, r.Value = []int{}, []float64{}
		}
		c.Rows[i] = r
	}
	return &c
}

func TestMPSRoundTripExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 500 {
		m := randomModel(r)
		back := roundTrip(t, m)
		if !reflect.DeepEqual(normalize(m), normalize(back)) {
			var buf bytes.Buffer
			_ = WriteMPS(&buf, m)
			t.Fatalf("model %d differs after a round trip:\nwant %+v\n got %+v\n%s", k, normalize(m), normalize(back), buf.String())
		}
	}
}

func TestReadMPSFixedExample(t *testing.T) {
	src := `* a comment
NAME ex
OBJSENSE
    MAX
ROWS
 N cost
 L lim
 G low
 E eq
COLUMNS
    MARKER 'MARKER' 'INTORG'
    a cost 1 lim 2
    MARKER 'MARKER' 'INTEND'
    b cost 3 low 1
    b eq 1
RHS
    RHS lim 4 low -1
    eq 2
RANGES
    RNG lim 1.5
BOUNDS
 UP BND a 3
 MI BND b
ENDATA
`
	m, err := ReadMPS(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Model{Name: "ex", ObjName: "cost", Sense: Maximize,
		Columns: []Column{{Name: "a", Lower: 0, Upper: 3, Integer: true, Cost: 1}, {Name: "b", Lower: -Inf, Upper: Inf, Cost: 3}},
		Rows: []Row{{Name: "lim", Lower: 2.5, Upper: 4, Index: []int{0}, Value: []float64{2}},
			{Name: "low", Lower: -1, Upper: Inf, Index: []int{1}, Value: []float64{1}},
			{Name: "eq", Lower: 2, Upper: 2, Index: []int{1}, Value: []float64{1}}}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if err := m.CheckPoint([]float64{2, 2}, 1e-9); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckPoint([]float64{1, 2}, 1e-9); !errors.Is(err, ErrInfeasiblePoint) {
		t.Fatalf("row lim = 2 < 2.5 should be infeasible, got %v", err)
	}
}

func TestReadMPSErrors(t *testing.T) {
	head := "NAME t\nROWS\n N obj\n L c\nCOLUMNS\n"
	cases := []struct{ src, want string }{
		{"", "no ENDATA"},
		{"ROWS\n X r\nENDATA\n", "line 2: unknown row type"},
		{"FOO\n", "line 1: unknown section"},
		{"ROWS\n N obj\n L c\n L c\nENDATA\n", "line 4: row \"c\" declared twice"},
		{head + "    x obj\nENDATA\n", "line 6: a COLUMNS line"},
		{head + "    x nope 1\nENDATA\n", "line 6: unknown row \"nope\""},
		{head + "    x c one\nENDATA\n", "line 6: \"one\" is not a number"},
		{head + "    x c 1\n    x c 2\nENDATA\n", "line 7: column \"x\" has two entries"},
		{head + "    x c 1\n    y c 1\n    x obj 1\nENDATA\n", "line 8: column \"x\" appears again"},
		{head + "    MARKER 'MARKER' 'INTEND'\nENDATA\n", "line 6: INTEND marker without INTORG"},
		{head + "    x c 1\nBOUNDS\n UP BND y 1\nENDATA\n", "line 8: bound on unknown column"},
		{head + "    x c 1\nBOUNDS\n ZZ BND x 1\nENDATA\n", "line 8: unknown bound type"},
		{head + "    x c 1\nRHS\n    RHS c\nENDATA\n", "line 8: unknown row \"RHS\""},
		{head + "    x c 1\nRANGES\n    RNG obj 1\nENDATA\n", "line 8: range on free row"},
		{"COLUMNS\n", "line 1: section COLUMNS before any objective"},
		{"ROWS\n N obj\nCOLUMNS\nROWS\n", "line 4: section ROWS out of order"},
		{"   x\n", "line 1: data before any section"},
		{head + "    x c 1\nBOUNDS\n UP BND x 1 2\nENDATA\n", "line 8: wrong number of fields"},
		{head + "    x c NaN\nENDATA\n", "line 6"},
	}
	for _, c := range cases {
		_, err := ReadMPS(strings.NewReader(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrMPS) {
			t.Errorf("ReadMPS(%q) = %v, want an ErrMPS error containing %q", c.src, err, c.want)
		}
	}
}

func TestWriteMPSRejectsBadModels(t *testing.T) {
	bad := []*Model{
		{Columns: []Column{{Name: "a b", Upper: 1}}},
		{Columns: []Column{{Name: "a", Upper: 1}, {Name: "a", Upper: 1}}},
		{Columns: []Column{{Name: "a", Lower: math.NaN()}}},
		{Columns: []Column{{Name: "a"}}, Rows: []Row{{Name: "r", Index: []int{3}, Value: []float64{1}}}},
		{Columns: []Column{{Name: "a"}}, Rows: []Row{{Name: "obj", Upper: 1}}},
	}
	for i, m := range bad {
		if err := WriteMPS(&bytes.Buffer{}, m); err == nil {
			t.Errorf("model %d: WriteMPS accepted an invalid model", i)
		}
	}
}

func FuzzReadMPS(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		var buf bytes.Buffer
		if err := WriteMPS(&buf, randomModel(r)); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.String())
	}
	f.Add("NAME\nROWS\n N o\nCOLUMNS\n x o 1\nBOUNDS\n BV BND x\nENDATA\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ReadMPS(strings.NewReader(src))
		if err != nil {
			return
		}
		// Whatever reads must write, and read back to the same model.
		var buf bytes.Buffer
		if err := WriteMPS(&buf, m); err != nil {
			if strings.Contains(err.Error(), "cannot be written exactly") {
				return
			}
			t.Fatalf("read a model that does not write: %v", err)
		}
		back, err := ReadMPS(&buf)
		if err != nil {
			t.Fatalf("written model does not read: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(normalize(m), normalize(back)) {
			t.Fatalf("round trip differs:\n%+v\n%+v", normalize(m), normalize(back))
		}
	})
}
