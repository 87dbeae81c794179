package model

import (
	"context"
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
	// Coarse is true when BinarizeBudget kept only some thresholds of
	// numeric columns to fit its cap. An exact backend's answer on such a
	// view is optimal for the view only: its error is an upper bound on
	// the data's optimum, and a lower bound proven on the view is NOT a
	// bound for the data (fewer thresholds, fewer trees, a higher
	// optimum). An adapter must then report Optimal=false and a lower
	// bound that holds for the data (such as Dataset.ConflictFloor, or
	// 0). FullTests is the number of tests of the exact view.
	Coarse    bool
	FullTests int
}

// Binarize builds the binary view of d: for each numeric column one test
// x > t per midpoint t between consecutive distinct values (a 0/1 column
// gives the single test x > 0.5); for each categorical column one test
// x == v per value v, or a single test when the column has two values.
// Constant columns give no test. The view is exact (Coarse is false);
// BinarizeBudget bounds its size.
func Binarize(d *Dataset) *BinaryView {
	v, _ := BinarizeBudget(context.Background(), d, 0)
	return v
}

// BinarizeBudget builds the binary view of d within maxBytes bytes of
// bitsets (0 or less: no cap), checking ctx between columns and chunks
// of rows. When the exact view (see Binarize) does not fit, each numeric
// column with many distinct values keeps only thresholds at evenly
// spaced quantiles of its distinct values (the columns with few values keep all
// theirs), and the view says so: Coarse is true and FullTests counts the
// tests of the exact view. A tree that is optimal on a coarse view is
// optimal only among the trees on its thresholds: its error is an upper
// bound on the problem's optimum, never a proof. When even one test per
// splittable column does not fit, it fails with an error wrapping
// ErrMemoryLimit. A ctx that ends stops it with ctx's cause.
func BinarizeBudget(ctx context.Context, d *Dataset, maxBytes int64) (*BinaryView, error) {
	n := d.Rows()
	v := &BinaryView{Data: d, N: n}
	words := int64((n + 63) / 64)
	testBytes := 8 * words
	for range d.NumClasses() {
		v.Class = append(v.Class, NewBitset(n))
	}
	for r, l := range d.Labels {
		v.Class[l].Set(r)
	}
	// Distinct values of each numeric column, and the tests each column
	// asks for in the exact view.
	cols := make([]binCol, len(d.Features))
	full := 0
	for fi, f := range d.Features {
		if err := ctxCause(ctx); err != nil {
			return nil, err
		}
		c := &cols[fi]
		if f.Kind == Categorical {
			c.want = len(f.Levels)
			if c.want < 2 {
				c.want = 0
			} else if c.want == 2 {
				c.want = 1
			}
		} else {
			c.vals = slices.Clone(f.Values)
			slices.Sort(c.vals)
			c.vals = slices.Compact(c.vals)
			c.want = max(len(c.vals)-1, 0) // no rows: no values, no test
		}
		full += c.want
	}
	v.FullTests = full
	avail := int64(-1) // tests that fit; -1: no cap
	if maxBytes > 0 {
		avail = maxBytes/testBytes - int64(len(v.Class))
	}
	if avail >= 0 && int64(full) > avail {
		if err := allotTests(cols, d, avail); err != nil {
			return nil, fmt.Errorf("%w: the binary view of %d rows needs %d bytes per test and %d bytes are allowed: %v", ErrMemoryLimit, n, testBytes, maxBytes, err)
		}
		v.Coarse = true
	}
	bucket := make([]int32, 0)
	for fi, f := range d.Features {
		c := &cols[fi]
		if c.want == 0 {
			continue
		}
		if f.Kind == Categorical {
			nl := c.want
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
		th := c.thresholds()
		// bucket[r] is the number of thresholds below row r's value:
		// test k is true on the rows of buckets above k.
		m := len(th)
		bucket = slices.Grow(bucket[:0], n)[:n]
		perBucket := make([]int32, m+1)
		for r, x := range f.Values {
			if r&(1<<16-1) == 0 {
				if err := ctxCause(ctx); err != nil {
					return nil, err
				}
			}
			b, _ := slices.BinarySearch(th, x)
			bucket[r] = int32(b)
			perBucket[b]++
		}
		// Rows grouped by bucket (a counting sort).
		startOf := make([]int32, m+2)
		for b := range m + 1 {
			startOf[b+1] = startOf[b] + perBucket[b]
		}
		byBucket := make([]int32, n)
		fill := slices.Clone(startOf[:m+1])
		for r, b := range bucket {
			byBucket[fill[b]] = int32(r)
			fill[b]++
		}
		// Build from the top threshold down, each test the next one plus
		// the rows of the bucket between them.
		tests := make([]Bitset, m)
		for k := m - 1; k >= 0; k-- {
			if k&63 == 0 {
				if err := ctxCause(ctx); err != nil {
					return nil, err
				}
			}
			if k == m-1 {
				tests[k] = NewBitset(n)
			} else {
				tests[k] = tests[k+1].Clone()
			}
			for _, r := range byBucket[startOf[k+1]:startOf[k+2]] {
				tests[k].Set(int(r))
			}
		}
		for k := range m {
			v.Tests = append(v.Tests, Test{Feature: fi, Threshold: th[k]})
		}
		v.True = append(v.True, tests...)
	}
	return v, nil
}

// binCol plans the tests of one column: want of them, and for a numeric
// column its distinct values in increasing order.
type binCol struct {
	vals []float64
	want int
	keep int // thresholds kept when coarsened (0: all)
}

// thresholds are the column's thresholds in increasing order: every
// midpoint between consecutive distinct values, or keep of them at evenly
// spaced quantiles of the distinct values when coarsened.
func (c *binCol) thresholds() []float64 {
	m := len(c.vals) - 1
	if m <= 0 {
		return nil
	}
	if c.keep <= 0 || c.keep >= m {
		th := make([]float64, m)
		for k := range m {
			th[k] = Midpoint(c.vals[k], c.vals[k+1])
		}
		return th
	}
	th := make([]float64, 0, c.keep)
	for i := range c.keep {
		// gap k lies between vals[k] and vals[k+1]; take the gaps at
		// fractions (i+1)/(keep+1), which are distinct and increasing.
		k := int(int64(i+1) * int64(m+1) / int64(c.keep+1))
		k = min(max(k-1, 0), m-1)
		if len(th) > 0 && th[len(th)-1] >= Midpoint(c.vals[k], c.vals[k+1]) {
			continue
		}
		th = append(th, Midpoint(c.vals[k], c.vals[k+1]))
	}
	return th
}

// allotTests shares avail tests among the columns: every column that
// asks for no more than its fair share keeps all its tests, the others
// (numeric ones) share what is left equally. A categorical column cannot
// be coarsened and keeps all its tests.
func allotTests(cols []binCol, d *Dataset, avail int64) error {
	left := avail
	var open []int
	for i := range cols {
		if cols[i].want == 0 {
			continue
		}
		if d.Features[i].Kind == Categorical {
			left -= int64(cols[i].want)
			continue
		}
		open = append(open, i)
	}
	if left < int64(len(open)) {
		return fmt.Errorf("%d tests fit, fewer than one per column", avail)
	}
	// Water-filling: settle the smallest columns first.
	slices.SortStableFunc(open, func(a, b int) int { return cols[a].want - cols[b].want })
	for k, i := range open {
		share := left / int64(len(open)-k)
		if int64(cols[i].want) <= share {
			left -= int64(cols[i].want)
			continue
		}
		cols[i].keep = int(share)
		left -= share
	}
	return nil
}

// ctxCause is nil while ctx runs, then its cause.
func ctxCause(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

// Bytes is the memory the view's bitsets hold.
func (v *BinaryView) Bytes() int64 {
	return int64(len(v.True)+len(v.Class)) * 8 * int64((v.N+63)/64)
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
	dup, comp, constant, _ = v.RedundancyContext(context.Background())
	return dup, comp, constant
}

// RedundancyContext is Redundancy that gives up with ctx's error
// (wrapped) when ctx is done; on a million rows each test costs a pass
// over its bits, so a stop is noticed every 64 tests.
func (v *BinaryView) RedundancyContext(ctx context.Context) (dup, comp []int, constant []bool, err error) {
	k := len(v.Tests)
	dup, comp, constant = make([]int, k), make([]int, k), make([]bool, k)
	seed := maphash.MakeSeed()
	seen := map[uint64][]int{}
	full := FullBitset(v.N)
	neg := NewBitset(v.N)
	for t, b := range v.True {
		if t%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, fmt.Errorf("finding redundant tests: %w", err)
			}
		}
		dup[t], comp[t] = -1, -1
		c := b.Count()
		constant[t] = c == 0 || c == v.N
		h := b.Hash(seed)
		for _, o := range seen[h] {
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
			seen[h] = append(seen[h], t)
		}
	}
	return dup, comp, constant, nil
}

// KeptTests are the tests a search needs, in order: every test but
// those that are a duplicate or a complement of an earlier one or
// constant (RedundancyContext), none of which changes an optimum. It
// gives up with ctx's error (wrapped) as RedundancyContext does.
func (v *BinaryView) KeptTests(ctx context.Context) ([]int, error) {
	dup, comp, constant, err := v.RedundancyContext(ctx)
	if err != nil {
		return nil, err
	}
	var kept []int
	for t := range v.Tests {
		if dup[t] < 0 && comp[t] < 0 && !constant[t] {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// Describe returns a one-line summary, e.g. for progress messages.
func (v *BinaryView) Describe() string {
	return fmt.Sprintf("%d rows, %d features, %d binary tests, %d classes", v.N, v.Data.NumFeatures(), len(v.Tests), len(v.Class))
}
