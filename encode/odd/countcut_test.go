package odd

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// bruteFloor is the least number of errors of any classifier that is a
// function of m raw thresholds (x_j ≤ v for a value v of column j), by
// enumeration of every set of m such tests.
func bruteFloor(d *model.Dataset, m int) int {
	type test struct {
		j int
		v float64
	}
	var tests []test
	for j, ft := range d.Features {
		vals := slices.Clone(ft.Values)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		for _, v := range vals[:len(vals)-1] {
			tests = append(tests, test{j, v})
		}
	}
	best := d.Rows()
	var rec func(start int, set []test)
	rec = func(start int, set []test) {
		cells := map[string][]int{}
		for i := range d.Rows() {
			key := ""
			for _, t := range set {
				key += fmt.Sprint(d.Features[t.j].Values[i] <= t.v)
			}
			if cells[key] == nil {
				cells[key] = make([]int, d.NumClasses())
			}
			cells[key][d.Labels[i]]++
		}
		errs := 0
		for _, c := range cells {
			errs += sumInts(c) - slices.Max(c)
		}
		best = min(best, errs)
		if len(set) == m {
			return
		}
		for t := start; t < len(tests); t++ {
			rec(t+1, append(set, tests[t]))
		}
	}
	rec(0, nil)
	return best
}

func sumInts(s []int) int {
	t := 0
	for _, v := range s {
		t += v
	}
	return t
}

// The floors by number of tests equal an independent enumeration over
// raw thresholds (no grouping of rows, no merging of equal tests, no
// pruning), and never increase.
func TestTestFloorsMatchEnumeration(t *testing.T) {
	for seed := range uint64(6) {
		d := randomNumeric(seed, 14+2*int(seed), 2+int(seed%2), 2+int(seed%3))
		e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2, 2}})
		if err != nil {
			t.Fatal(err)
		}
		floors := e.testFloors(context.Background(), e.newGroupView(), 4)
		if len(floors) != 4 {
			t.Fatalf("seed %d: %d floors, want 4 (within the work cap)", seed, len(floors))
		}
		n := float64(d.Rows())
		for m := 1; m <= 4; m++ {
			if want := bruteFloor(d, m); math.Abs(floors[m-1]*n-float64(want)) > 1e-9 {
				t.Fatalf("seed %d: floor of %d tests %v rows, enumeration %d", seed, m, floors[m-1]*n, want)
			}
		}
	}
}

// irisEncoding is the MILP of testdata/iris.csv on skeleton 1,2,2.
func irisEncoding(t *testing.T) *Encoding {
	t.Helper()
	d, err := model.ReadFile("../../testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2, 2}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// On iris the floors of 1 to 3 tests are 50, 6 and 3 rows (4 tests: 2
// rows, within the work cap, in seconds).
func TestTestFloorsIris(t *testing.T) {
	e := irisEncoding(t)
	start := time.Now()
	floors := e.testFloors(context.Background(), e.newGroupView(), 3)
	t.Logf("%v in %v", floors, time.Since(start))
	for m, want := range []int{50, 6, 3} {
		if m >= len(floors) || math.Abs(floors[m]*150-float64(want)) > 1e-9 {
			t.Fatalf("floors %v, want %d rows for %d tests", floors, want, m+1)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := e.testFloors(ctx, e.newGroupView(), 4); len(got) != 0 {
		t.Fatalf("a cancelled scan returned %d floors", len(got))
	}
}

// The tree bound equals an exhaustive search over trees of 0/1 features,
// and on iris the depth-3 optimum of the DP backends (1 error).
func TestTreeFloor(t *testing.T) {
	for seed := range uint64(6) {
		d := randomBinary(seed, 20+3*int(seed), 3+int(seed%3), 2+int(seed%2))
		e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2}})
		if err != nil {
			t.Fatal(err)
		}
		v := e.newGroupView()
		for depth := 1; depth <= 3; depth++ {
			got, ok := v.treeFloor(context.Background(), depth)
			want := bestTreeErrors(d, allRows(d), depth)
			if !ok || math.Abs(got*float64(d.Rows())-float64(want)) > 1e-9 {
				t.Fatalf("seed %d depth %d: tree bound %v rows (%v), exhaustive search %d", seed, depth, got*float64(d.Rows()), ok, want)
			}
		}
		if _, ok := v.treeFloor(context.Background(), 4); ok {
			t.Fatalf("seed %d: a depth-4 tree bound was computed", seed)
		}
	}
	e := irisEncoding(t)
	start := time.Now()
	got, ok := e.newGroupView().treeFloor(context.Background(), 3)
	t.Logf("iris depth 3: %v rows in %v", got*150, time.Since(start))
	if !ok || math.Abs(got*150-1) > 1e-9 {
		t.Fatalf("iris depth 3: tree bound %v rows (%v), want 1", got*150, ok)
	}
}

// On data too large for the bounds' tables the view is not built (a
// byte per group and test would be gigabytes here).
func TestGroupViewRefusesLargeData(t *testing.T) {
	const n, J = 5000, 40
	d := randomNumeric(1, n, 1, 2)
	e := &Encoding{data: d, nCls: 2, cols: make([]column, J), x: make([][]float64, n)}
	for i := range e.x {
		e.x[i] = make([]float64, J)
		for j := range e.x[i] {
			e.x[i][j] = float64((i*(j+7))%n) / n
		}
	}
	if v := e.newGroupView(); v != nil {
		t.Fatalf("a view of %d groups and %d tests was built", len(v.groups), len(v.tests))
	}
}

// TestHugeAlphaRows: with a node cost beyond maxRowNodeCost the cut rows
// that carry it are left out, and no row coefficient of the MILP passes
// it; below it they are kept.
func TestHugeAlphaRows(t *testing.T) {
	d, err := model.ReadFile("../../testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, alpha := range []float64{0.01, 1e20, 1e300} {
		e, err := Encode(context.Background(), d, Options{Skeleton: []int{1, 2, 2}, Alpha: alpha, ErrorCuts: true, CountCut: true, DiagramCut: true})
		if err != nil {
			t.Fatal(err)
		}
		most := 0.0
		for _, r := range e.Model.Rows {
			for _, v := range r.Value {
				most = max(most, math.Abs(v))
			}
		}
		left := e.CutsLeftOut()
		if alpha > maxRowNodeCost && (most > maxRowNodeCost || len(left) == 0) || alpha < 1 && len(left) > 0 {
			t.Errorf("alpha %g: largest row coefficient %g, rows left out %v", alpha, most, left)
		}
	}
}
