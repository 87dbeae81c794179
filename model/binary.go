package model

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
)

// Test is one Boolean test of the binary view. It is true when the row
// goes to the `high` side: x[Feature] > Threshold for a numeric column,
// x[Feature] == Levels[Level] for a categorical one.
type Test struct {
	Feature     int
	Categorical bool
	Threshold   float64
	Level       int
}

// Eval reports whether row r of d passes the test (goes high).
func (t Test) Eval(d *Dataset, r int) bool {
	v := d.Features[t.Feature].Values[r]
	if t.Categorical {
		return int(v) == t.Level
	}
	return v > t.Threshold
}

// String renders the test's true side on d's column names, e.g.
// "petal_width > 0.8" or "colour == red".
func (t Test) String(d *Dataset) string {
	f := d.Features[t.Feature]
	if t.Categorical {
		return f.Name + " == " + f.Levels[t.Level]
	}
	return f.Name + " > " + strconv.FormatFloat(t.Threshold, 'g', -1, 64)
}

// BinaryView is the dataset seen as Boolean tests, stored column-major as
// bitsets: True[t] holds the rows on which test t is true (go high), and
// Class[c] the rows of class c. Splitting a row set by a test and
// counting its classes is a few word-wise ANDs and popcounts.
type BinaryView struct {
	Data  *Dataset
	Tests []Test
	True  []Bitset
	Class []Bitset
	N     int
}

// Binarize builds the binary view of d: for each numeric column one test
// x > t per midpoint t between consecutive distinct values (a 0/1 column
// gives the single test x > 0.5); for each categorical column one test
// x == v per value v, or a single test when the column has two values.
// Constant columns give no test.
func Binarize(d *Dataset) *BinaryView {
	n := d.Rows()
	v := &BinaryView{Data: d, N: n}
	for range d.NumClasses() {
		v.Class = append(v.Class, NewBitset(n))
	}
	for r, l := range d.Labels {
		v.Class[l].Set(r)
	}
	for fi, f := range d.Features {
		if f.Kind == Categorical {
			nl := len(f.Levels)
			if nl < 2 {
				continue
			}
			if nl == 2 {
				nl = 1
			}
			start := len(v.True)
			for l := range nl {
				v.Tests = append(v.Tests, Test{Feature: fi, Categorical: true, Level: l})
				v.True = append(v.True, NewBitset(n))
			}
			for r, x := range f.Values {
				if l := int(x); l < nl {
					v.True[start+l].Set(r)
				}
			}
			continue
		}
		vals := slices.Clone(f.Values)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		if len(vals) < 2 {
			continue
		}
		// Thresholds in increasing order. Test k is true on the rows whose
		// value is above vals[k]; build them from the top down, each one
		// the next one plus the rows holding vals[k+1].
		m := len(vals) - 1
		byValue := make([][]int, len(vals))
		for r, x := range f.Values {
			idx, _ := slices.BinarySearch(vals, x)
			byValue[idx] = append(byValue[idx], r)
		}
		tests := make([]Bitset, m)
		for k := m - 1; k >= 0; k-- {
			if k == m-1 {
				tests[k] = NewBitset(n)
			} else {
				tests[k] = tests[k+1].Clone()
			}
			for _, r := range byValue[k+1] {
				tests[k].Set(r)
			}
		}
		for k := range m {
			v.Tests = append(v.Tests, Test{Feature: fi, Threshold: Midpoint(vals[k], vals[k+1])})
		}
		v.True = append(v.True, tests...)
	}
	return v
}

// Midpoint returns a threshold t with a <= t < b, as close to the middle
// of a < b as floating point allows; x > t then separates a from b.
func Midpoint(a, b float64) float64 {
	t := a + (b-a)/2
	if t >= b || t < a {
		t = a
	}
	return t
}

// NumTests is the number of Boolean tests.
func (v *BinaryView) NumTests() int { return len(v.Tests) }

// Value reports whether test t is true on row r.
func (v *BinaryView) Value(t, r int) bool { return v.True[t].Has(r) }

// ClassCounts fills out[c] with |rows ∩ Class[c]| and returns out.
func (v *BinaryView) ClassCounts(rows Bitset, out []int) []int {
	for c, cb := range v.Class {
		out[c] = AndCount(rows, cb)
	}
	return out
}

// SplitCounts fills hi[c] with the number of rows of class c in rows on
// which test t is true, and lo[c] with those on which it is false.
func (v *BinaryView) SplitCounts(rows Bitset, t int, lo, hi []int) {
	tb := v.True[t]
	for c, cb := range v.Class {
		all := AndCount(rows, cb)
		h := AndCount3(rows, cb, tb)
		hi[c] = h
		lo[c] = all - h
	}
}

// Redundancy classifies the tests over all rows: dup[t] is the index of an
// earlier test with the same rows, comp[t] that of an earlier test with
// the complementary rows, or -1; constant[t] is true when t holds on all
// rows or on none.
func (v *BinaryView) Redundancy() (dup, comp []int, constant []bool) {
	k := len(v.Tests)
	dup, comp, constant = make([]int, k), make([]int, k), make([]bool, k)
	seed := maphash.MakeSeed()
	seen := map[uint64][]int{}
	full := FullBitset(v.N)
	neg := NewBitset(v.N)
	for t, b := range v.True {
		dup[t], comp[t] = -1, -1
		c := b.Count()
		constant[t] = c == 0 || c == v.N
		for _, o := range seen[b.Hash(seed)] {
			if v.True[o].Equal(b) {
				dup[t] = o
				break
			}
		}
		if dup[t] < 0 {
			neg.AndNot(full, b)
			for _, o := range seen[neg.Hash(seed)] {
				if v.True[o].Equal(neg) {
					comp[t] = o
					break
				}
			}
		}
		if dup[t] < 0 && comp[t] < 0 {
			h := b.Hash(seed)
			seen[h] = append(seen[h], t)
		}
	}
	return dup, comp, constant
}

// Describe returns a one-line summary, e.g. for progress messages.
func (v *BinaryView) Describe() string {
	return fmt.Sprintf("%d rows, %d features, %d binary tests, %d classes", v.N, v.Data.NumFeatures(), len(v.Tests), len(v.Class))
}
