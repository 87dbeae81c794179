package model

import (
	"fmt"
	"math"
)

// FeatureKind says how a feature column is read.
type FeatureKind int

const (
	// Numeric columns hold real numbers; tests are thresholds x > t.
	Numeric FeatureKind = iota
	// Categorical columns hold strings; tests are equalities x == v.
	Categorical
)

func (k FeatureKind) String() string {
	if k == Categorical {
		return "categorical"
	}
	return "numeric"
}

// Feature is one feature column of a dataset.
//
// For a numeric column Values holds the raw values as read. For a
// categorical column Values holds the index into Levels (as a float64, so
// that every column is accessed the same way) and Levels holds the
// category strings in first-seen order.
type Feature struct {
	Name   string
	Kind   FeatureKind
	Values []float64
	Levels []string
}

// Dataset is a table of feature columns with a class label per row and
// optional row weights.
type Dataset struct {
	// Name is where the data came from (usually the file path); errors
	// and reports use it.
	Name     string
	Features []Feature
	// Labels[r] is the class index of row r; Classes[i] names class i.
	// Classes are kept in the order first seen in the file. Data read
	// without labels (ReadOptions.NoLabel) has no Classes and every label
	// 0: a model can be applied to it, nothing learned or evaluated.
	Labels  []int
	Classes []string
	// Weights is nil (every row weighs 1) or holds one positive weight per row.
	Weights []float64
	// Lines, when not nil, holds the line of the file each row was read
	// from (counted from 1): messages about a row name it by Where.
	Lines []int
	// Source, when not nil, is the file the dataset was read from
	// (ReadFile).
	Source *Source
}

// Rows is the number of rows.
func (d *Dataset) Rows() int { return len(d.Labels) }

// NumFeatures is the number of feature columns (label excluded).
func (d *Dataset) NumFeatures() int { return len(d.Features) }

// NumClasses is the number of distinct labels.
func (d *Dataset) NumClasses() int { return len(d.Classes) }

// Weight is the weight of row r (1 when the dataset has no weights).
func (d *Dataset) Weight(r int) float64 {
	if d.Weights == nil {
		return 1
	}
	return d.Weights[r]
}

// FeatureNames lists the feature column names in file order.
func (d *Dataset) FeatureNames() []string {
	names := make([]string, len(d.Features))
	for i, f := range d.Features {
		names[i] = f.Name
	}
	return names
}

// AllBinary reports whether every feature is numeric with values in {0, 1}.
func (d *Dataset) AllBinary() bool {
	for _, f := range d.Features {
		if f.Kind != Numeric {
			return false
		}
		for _, v := range f.Values {
			if v != 0 && v != 1 {
				return false
			}
		}
	}
	return true
}

// HasNumeric reports whether some numeric feature holds a value other
// than 0 or 1 (data that benefits from a solver working on thresholds).
func (d *Dataset) HasNumeric() bool {
	for _, f := range d.Features {
		if f.Kind != Numeric {
			continue
		}
		for _, v := range f.Values {
			if v != 0 && v != 1 {
				return true
			}
		}
	}
	return false
}

// ClassCounts returns the (weighted) number of rows of each class.
func (d *Dataset) ClassCounts() []float64 {
	c := make([]float64, len(d.Classes))
	for r, l := range d.Labels {
		c[l] += d.Weight(r)
	}
	return c
}

// Validate checks the internal consistency of a dataset built by hand
// (the readers always return valid datasets).
func (d *Dataset) Validate() error {
	n := len(d.Labels)
	if n == 0 {
		return fmt.Errorf("dataset %s: no rows", d.Name)
	}
	if len(d.Classes) == 0 {
		return fmt.Errorf("dataset %s: no labels (no classes)", d.Name)
	}
	for i, f := range d.Features {
		if len(f.Values) != n {
			return fmt.Errorf("dataset %s: feature %d (%s) has %d values for %d rows", d.Name, i, f.Name, len(f.Values), n)
		}
		for r, v := range f.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("dataset %s: feature %s row %d is %v", d.Name, f.Name, r, v)
			}
			if f.Kind == Categorical && (v != math.Trunc(v) || v < 0 || int(v) >= len(f.Levels)) {
				return fmt.Errorf("dataset %s: categorical feature %s row %d has level %v of %d", d.Name, f.Name, r, v, len(f.Levels))
			}
		}
	}
	for r, l := range d.Labels {
		if l < 0 || l >= len(d.Classes) {
			return fmt.Errorf("dataset %s: row %d has class %d of %d", d.Name, r, l, len(d.Classes))
		}
	}
	if d.Weights != nil {
		if len(d.Weights) != n {
			return fmt.Errorf("dataset %s: %d weights for %d rows", d.Name, len(d.Weights), n)
		}
		for r, w := range d.Weights {
			if !(w > 0) || math.IsInf(w, 0) {
				return fmt.Errorf("dataset %s: row %d has weight %v (must be positive and finite)", d.Name, r, w)
			}
		}
	}
	return nil
}

// Subset returns a dataset holding the given rows (in that order), sharing
// names, levels and classes with d.
func (d *Dataset) Subset(rows []int) *Dataset {
	s := &Dataset{Name: d.Name, Classes: d.Classes, Labels: make([]int, len(rows))}
	s.Features = make([]Feature, len(d.Features))
	for i, f := range d.Features {
		nf := Feature{Name: f.Name, Kind: f.Kind, Levels: f.Levels, Values: make([]float64, len(rows))}
		for j, r := range rows {
			nf.Values[j] = f.Values[r]
		}
		s.Features[i] = nf
	}
	for j, r := range rows {
		s.Labels[j] = d.Labels[r]
	}
	if d.Weights != nil {
		s.Weights = make([]float64, len(rows))
		for j, r := range rows {
			s.Weights[j] = d.Weights[r]
		}
	}
	if len(d.Lines) == d.Rows() {
		s.Lines = make([]int, len(rows))
		for j, r := range rows {
			s.Lines[j] = d.Lines[r]
		}
	}
	return s
}

// Where locates row r (counted from 0) for a message, as the reader's
// errors do: "FILE:LINE" when the line it was read from is known, else
// "FILE: row R" (R counted from 1 after the header).
func (d *Dataset) Where(r int) string {
	if r >= 0 && r < len(d.Lines) && len(d.Lines) == d.Rows() {
		return fmt.Sprintf("%s:%d", d.Name, d.Lines[r])
	}
	return fmt.Sprintf("%s: row %d", d.Name, r+1)
}

// Majority returns the class with the largest count in cnt (the lowest
// index on ties) and the summed count of the other classes: the label and
// the errors of a leaf holding those rows. cnt holds one count per class
// (at least one).
func Majority[T int64 | float64](cnt []T) (class int, errors T) {
	var tot T
	for c, x := range cnt {
		tot += x
		if x > cnt[class] {
			class = c
		}
	}
	return class, tot - cnt[class]
}

// Gini is the total count of cnt times its Gini impurity,
// sum − Σ_k cnt_k²/sum (0 for no rows): the split score of greedy trees.
func Gini(cnt []float64) float64 {
	tot, sq := 0.0, 0.0
	for _, x := range cnt {
		tot += x
		sq += x * x
	}
	if tot == 0 {
		return 0
	}
	return tot - sq/tot
}

// TotalWeight is the sum of the row weights (the number of rows when
// unweighted).
func (d *Dataset) TotalWeight() float64 {
	if d.Weights == nil {
		return float64(d.Rows())
	}
	t := 0.0
	for _, w := range d.Weights {
		t += w
	}
	return t
}

// FractionalWeight returns the first row whose weight is not a whole
// number, and whether there is one (false for unweighted data).
func (d *Dataset) FractionalWeight() (row int, ok bool) {
	for r, w := range d.Weights {
		if w != math.Trunc(w) {
			return r, true
		}
	}
	return -1, false
}
