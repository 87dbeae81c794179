// Package milp holds mixed-integer linear programs as plain values, reads
// and writes them in free MPS format, and solves them through adapters
// behind one interface (HiGHS with the build tag `highs`).
//
// A Model minimises (or maximises) c·x + Offset subject to
// RowLower ≤ A x ≤ RowUpper and ColLower ≤ x ≤ ColUpper, with some columns
// integer. Infinite bounds are math.Inf values.
package milp

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

type byIndex struct {
	idx []int
	val []float64
}

func (b byIndex) Len() int           { return len(b.idx) }
func (b byIndex) Less(i, j int) bool { return b.idx[i] < b.idx[j] }
func (b byIndex) Swap(i, j int) {
	b.idx[i], b.idx[j] = b.idx[j], b.idx[i]
	b.val[i], b.val[j] = b.val[j], b.val[i]
}

// Sense is the direction of optimisation.
type Sense int

const (
	Minimize Sense = iota
	Maximize
)

func (s Sense) String() string {
	if s == Maximize {
		return "max"
	}
	return "min"
}

// Column is a variable of a model.
type Column struct {
	Name         string
	Lower, Upper float64
	Integer      bool
	// Cost is the variable's objective coefficient.
	Cost float64
}

// Row is a linear constraint Lower ≤ Σ Value[k]·x[Index[k]] ≤ Upper.
type Row struct {
	Name         string
	Lower, Upper float64
	Index        []int
	Value        []float64
}

// Model is a mixed-integer linear program.
type Model struct {
	Name string
	// ObjName names the objective row in MPS files ("obj" when empty).
	ObjName string
	Sense   Sense
	Offset  float64
	Columns []Column
	Rows    []Row
	// Comments are written as '*' lines at the top of an MPS file.
	Comments []string
}

// Inf is positive infinity, for bounds.
var Inf = math.Inf(1)

// AddColumn appends a variable and returns its index.
func (m *Model) AddColumn(name string, lower, upper, cost float64, integer bool) int {
	m.Columns = append(m.Columns, Column{Name: name, Lower: lower, Upper: upper, Cost: cost, Integer: integer})
	return len(m.Columns) - 1
}

// AddContinuous appends a continuous variable in [lower, upper].
func (m *Model) AddContinuous(name string, lower, upper, cost float64) int {
	return m.AddColumn(name, lower, upper, cost, false)
}

// AddBinary appends a 0/1 variable.
func (m *Model) AddBinary(name string, cost float64) int {
	return m.AddColumn(name, 0, 1, cost, true)
}

// AddRow appends the constraint lower ≤ Σ val[k]·x[idx[k]] ≤ upper and
// returns its index. Zero coefficients are dropped, repeated indices
// summed and entries sorted by column, so rows are always stored in
// canonical sparse form (the form ReadMPS produces).
func (m *Model) AddRow(name string, lower, upper float64, idx []int, val []float64) int {
	r := Row{Name: name, Lower: lower, Upper: upper}
	pos := make(map[int]int, len(idx))
	for k, j := range idx {
		if p, ok := pos[j]; ok {
			r.Value[p] += val[k]
			continue
		}
		pos[j] = len(r.Index)
		r.Index = append(r.Index, j)
		r.Value = append(r.Value, val[k])
	}
	// Drop zeros (including sums that cancelled).
	k := 0
	for i := range r.Index {
		if r.Value[i] != 0 {
			r.Index[k], r.Value[k] = r.Index[i], r.Value[i]
			k++
		}
	}
	r.Index, r.Value = r.Index[:k], r.Value[:k]
	sort.Sort(byIndex{r.Index, r.Value})
	m.Rows = append(m.Rows, r)
	return len(m.Rows) - 1
}

// NumIntegers counts the integer columns.
func (m *Model) NumIntegers() int {
	k := 0
	for _, c := range m.Columns {
		if c.Integer {
			k++
		}
	}
	return k
}

// NumNonzeros counts the constraint matrix entries.
func (m *Model) NumNonzeros() int {
	k := 0
	for _, r := range m.Rows {
		k += len(r.Index)
	}
	return k
}

func validName(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\r\n") && s[0] != '*' && s[0] != '$'
}

// Validate checks indices, bounds and names (names must be unique, non-empty
// and free of white space so that the model can be written as free MPS).
func (m *Model) Validate() error {
	if m.ObjName != "" && !validName(m.ObjName) {
		return fmt.Errorf("milp: invalid objective name %q", m.ObjName)
	}
	if m.Name != "" && strings.ContainsAny(m.Name, " \t\r\n") {
		return fmt.Errorf("milp: model name %q contains white space", m.Name)
	}
	if math.IsNaN(m.Offset) || math.IsInf(m.Offset, 0) {
		return fmt.Errorf("milp: objective offset %v is not finite", m.Offset)
	}
	cols := make(map[string]bool, len(m.Columns))
	for j, c := range m.Columns {
		if !validName(c.Name) {
			return fmt.Errorf("milp: column %d has invalid name %q", j, c.Name)
		}
		if cols[c.Name] {
			return fmt.Errorf("milp: column name %q used twice", c.Name)
		}
		cols[c.Name] = true
		if math.IsNaN(c.Lower) || math.IsNaN(c.Upper) || c.Lower == Inf || c.Upper == -Inf {
			return fmt.Errorf("milp: column %s has invalid bounds [%v, %v]", c.Name, c.Lower, c.Upper)
		}
		if math.IsNaN(c.Cost) || math.IsInf(c.Cost, 0) {
			return fmt.Errorf("milp: column %s has cost %v", c.Name, c.Cost)
		}
	}
	rows := make(map[string]bool, len(m.Rows))
	obj := m.ObjName
	if obj == "" {
		obj = "obj"
	}
	for i, r := range m.Rows {
		if !validName(r.Name) {
			return fmt.Errorf("milp: row %d has invalid name %q", i, r.Name)
		}
		if rows[r.Name] || r.Name == obj {
			return fmt.Errorf("milp: row name %q used twice (or equal to the objective's)", r.Name)
		}
		rows[r.Name] = true
		if math.IsNaN(r.Lower) || math.IsNaN(r.Upper) || r.Lower == Inf || r.Upper == -Inf {
			return fmt.Errorf("milp: row %s has invalid bounds [%v, %v]", r.Name, r.Lower, r.Upper)
		}
		if len(r.Index) != len(r.Value) {
			return fmt.Errorf("milp: row %s has %d indices and %d values", r.Name, len(r.Index), len(r.Value))
		}
		seen := make(map[int]bool, len(r.Index))
		for k, j := range r.Index {
			if j < 0 || j >= len(m.Columns) {
				return fmt.Errorf("milp: row %s refers to column %d of %d", r.Name, j, len(m.Columns))
			}
			if seen[j] {
				return fmt.Errorf("milp: row %s lists column %s twice", r.Name, m.Columns[j].Name)
			}
			seen[j] = true
			if v := r.Value[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("milp: row %s has coefficient %v", r.Name, v)
			}
		}
	}
	return nil
}

// Objective evaluates c·x + Offset.
func (m *Model) Objective(x []float64) float64 {
	s := m.Offset
	for j, c := range m.Columns {
		s += c.Cost * x[j]
	}
	return s
}

// ErrInfeasiblePoint is wrapped by CheckPoint's errors.
var ErrInfeasiblePoint = errors.New("point violates the model")

// CheckPoint reports whether x satisfies every bound, integrality and row
// of the model within the absolute tolerance tol.
func (m *Model) CheckPoint(x []float64, tol float64) error {
	if len(x) != len(m.Columns) {
		return fmt.Errorf("%w: %d values for %d columns", ErrInfeasiblePoint, len(x), len(m.Columns))
	}
	for j, c := range m.Columns {
		v := x[j]
		if v < c.Lower-tol || v > c.Upper+tol {
			return fmt.Errorf("%w: column %s = %v outside [%v, %v]", ErrInfeasiblePoint, c.Name, v, c.Lower, c.Upper)
		}
		if c.Integer && math.Abs(v-math.Round(v)) > tol {
			return fmt.Errorf("%w: integer column %s = %v", ErrInfeasiblePoint, c.Name, v)
		}
	}
	for _, r := range m.Rows {
		s := 0.0
		for k, j := range r.Index {
			s += r.Value[k] * x[j]
		}
		if s < r.Lower-tol || s > r.Upper+tol {
			return fmt.Errorf("%w: row %s = %v outside [%v, %v]", ErrInfeasiblePoint, r.Name, s, r.Lower, r.Upper)
		}
	}
	return nil
}

// Relaxation returns a copy of m with every column continuous: its LP
// relaxation, whose optimum bounds m's.
func Relaxation(m *Model) *Model {
	r := *m
	r.Columns = append([]Column(nil), m.Columns...)
	for j := range r.Columns {
		r.Columns[j].Integer = false
	}
	return &r
}
