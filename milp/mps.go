package milp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ErrMPS is wrapped by every error about malformed MPS input.
var ErrMPS = errors.New("mps")

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// rangeFor finds a row type and right-hand side/range pair that reproduce
// lower and upper exactly when read back (lo + R == hi in floating point).
func rangeFor(lo, hi float64) (typ byte, rhs, rng float64, ok bool) {
	r := hi - lo
	cands := []float64{r}
	a, b := r, r
	for range 8 {
		a, b = math.Nextafter(a, Inf), math.Nextafter(b, -Inf)
		cands = append(cands, a, b)
	}
	for _, c := range cands {
		if c > 0 && lo+c == hi {
			return 'G', lo, c, true
		}
		if c > 0 && hi-c == lo {
			return 'L', hi, c, true
		}
	}
	return 0, 0, 0, false
}

// WriteMPS writes m in free MPS format. Reading the output with ReadMPS
// gives back the same model (rows in canonical sparse form, see AddRow).
func WriteMPS(w io.Writer, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	obj := m.ObjName
	if obj == "" {
		obj = "obj"
	}
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	for _, c := range m.Comments {
		for _, line := range strings.Split(c, "\n") {
			p("* %s\n", line)
		}
	}
	if m.Name != "" {
		p("NAME %s\n", m.Name)
	} else {
		p("NAME\n")
	}
	if m.Sense == Maximize {
		p("OBJSENSE\n    MAX\n")
	}
	type rowKind struct {
		typ      byte
		rhs, rng float64
		hasRange bool
	}
	kinds := make([]rowKind, len(m.Rows))
	p("ROWS\n N  %s\n", obj)
	for i, r := range m.Rows {
		var k rowKind
		switch {
		case math.IsInf(r.Lower, -1) && math.IsInf(r.Upper, 1):
			k.typ = 'N'
		case math.IsInf(r.Lower, -1):
			k.typ, k.rhs = 'L', r.Upper
		case math.IsInf(r.Upper, 1):
			k.typ, k.rhs = 'G', r.Lower
		case r.Lower == r.Upper:
			k.typ, k.rhs = 'E', r.Lower
		default:
			typ, rhs, rng, ok := rangeFor(r.Lower, r.Upper)
			if !ok {
				return fmt.Errorf("milp: row %s: bounds [%v, %v] cannot be written exactly as an MPS range", r.Name, r.Lower, r.Upper)
			}
			k = rowKind{typ: typ, rhs: rhs, rng: rng, hasRange: true}
		}
		kinds[i] = k
		p(" %c  %s\n", k.typ, r.Name)
	}
	// Column-wise view of the matrix.
	type entry struct {
		row int
		val float64
	}
	byCol := make([][]entry, len(m.Columns))
	for i, r := range m.Rows {
		for k, j := range r.Index {
			byCol[j] = append(byCol[j], entry{i, r.Value[k]})
		}
	}
	p("COLUMNS\n")
	inInt, marker := false, 0
	for j, c := range m.Columns {
		if c.Integer != inInt {
			if c.Integer {
				p("    MARKER%d  'MARKER'  'INTORG'\n", marker)
			} else {
				p("    MARKER%d  'MARKER'  'INTEND'\n", marker)
			}
			marker++
			inInt = c.Integer
		}
		if c.Cost != 0 || len(byCol[j]) == 0 {
			p("    %s  %s  %s\n", c.Name, obj, fmtFloat(c.Cost))
		}
		for _, e := range byCol[j] {
			p("    %s  %s  %s\n", c.Name, m.Rows[e.row].Name, fmtFloat(e.val))
		}
	}
	if inInt {
		p("    MARKER%d  'MARKER'  'INTEND'\n", marker)
	}
	p("RHS\n")
	if m.Offset != 0 {
		p("    RHS  %s  %s\n", obj, fmtFloat(-m.Offset))
	}
	for i, k := range kinds {
		if k.typ != 'N' && k.rhs != 0 {
			p("    RHS  %s  %s\n", m.Rows[i].Name, fmtFloat(k.rhs))
		}
	}
	hasRanges := false
	for i, k := range kinds {
		if k.hasRange {
			if !hasRanges {
				p("RANGES\n")
				hasRanges = true
			}
			p("    RNG  %s  %s\n", m.Rows[i].Name, fmtFloat(k.rng))
		}
	}
	p("BOUNDS\n")
	for _, c := range m.Columns {
		lo, hi := c.Lower, c.Upper
		switch {
		case !c.Integer && lo == 0 && math.IsInf(hi, 1):
		case lo == hi:
			p(" FX BND  %s  %s\n", c.Name, fmtFloat(lo))
		case math.IsInf(lo, -1) && math.IsInf(hi, 1):
			p(" FR BND  %s\n", c.Name)
		default:
			if math.IsInf(lo, -1) {
				p(" MI BND  %s\n", c.Name)
			} else if lo != 0 || c.Integer || hi < 0 {
				p(" LO BND  %s  %s\n", c.Name, fmtFloat(lo))
			}
			if math.IsInf(hi, 1) {
				if c.Integer {
					p(" PL BND  %s\n", c.Name)
				}
			} else {
				p(" UP BND  %s  %s\n", c.Name, fmtFloat(hi))
			}
		}
	}
	p("ENDATA\n")
	return bw.Flush()
}

// ReadMPS reads a model in free MPS format (sections NAME, OBJSENSE,
// ROWS, COLUMNS with integer markers, RHS, RANGES, BOUNDS, ENDATA; lines
// starting with '*' are comments). Errors name the offending line.
// Columns declared between integer markers default to bounds [0, +inf).
func ReadMPS(r io.Reader) (*Model, error) {
	rd := mpsReader{m: &Model{}, rowIdx: map[string]int{}, colIdx: map[string]int{}, entry: map[[2]int]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	for sc.Scan() {
		rd.line++
		if err := rd.parse(sc.Text()); err != nil {
			return nil, err
		}
		if rd.section == "ENDATA" {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: line %d: %w", ErrMPS, rd.line+1, err)
	}
	if rd.section != "ENDATA" {
		return nil, fmt.Errorf("%w: line %d: unexpected end of input (no ENDATA)", ErrMPS, rd.line)
	}
	return rd.finish()
}

type mpsRow struct {
	typ      byte
	rhs, rng float64
	hasRange bool
}

type mpsReader struct {
	m         *Model
	line      int
	section   string
	objRow    string
	rows      []mpsRow
	rowIdx    map[string]int // -1 = objective row
	colIdx    map[string]int
	entry     map[[2]int]bool
	integer   bool
	closedCol map[int]bool
}

func (rd *mpsReader) errf(format string, a ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrMPS, rd.line, fmt.Sprintf(format, a...))
}

func (rd *mpsReader) num(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		return 0, rd.errf("%q is not a number", s)
	}
	return v, nil
}

func (rd *mpsReader) parse(text string) error {
	if strings.TrimSpace(text) == "" || text[0] == '*' {
		return nil
	}
	f := strings.Fields(text)
	if text[0] != ' ' && text[0] != '\t' {
		// A section header.
		name := strings.ToUpper(f[0])
		switch name {
		case "NAME":
			if rd.section != "" {
				return rd.errf("NAME must come first")
			}
			if len(f) > 2 {
				return rd.errf("model name with white space")
			}
			if len(f) == 2 {
				rd.m.Name = f[1]
			}
		case "OBJSENSE":
			if len(f) == 2 {
				if err := rd.sense(f[1]); err != nil {
					return err
				}
			} else if len(f) > 2 {
				return rd.errf("OBJSENSE takes one value")
			}
		case "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "ENDATA":
			if len(f) != 1 {
				return rd.errf("section %s takes no argument", name)
			}
			order := map[string]int{"ROWS": 1, "COLUMNS": 2, "RHS": 3, "RANGES": 4, "BOUNDS": 5, "ENDATA": 6}
			if order[name] <= order[rd.section] {
				return rd.errf("section %s out of order (after %s)", name, rd.section)
			}
			if name != "ROWS" && rd.objRow == "" {
				return rd.errf("section %s before any objective (N) row", name)
			}
			if rd.section == "COLUMNS" && rd.integer {
				return rd.errf("integer MARKER block not closed before %s", name)
			}
		default:
			return rd.errf("unknown section %q", f[0])
		}
		rd.section = name
		return nil
	}
	switch rd.section {
	case "OBJSENSE":
		if len(f) != 1 {
			return rd.errf("OBJSENSE takes one value")
		}
		return rd.sense(f[0])
	case "ROWS":
		return rd.rowLine(f)
	case "COLUMNS":
		return rd.columnLine(f)
	case "RHS", "RANGES":
		return rd.rhsLine(f)
	case "BOUNDS":
		return rd.boundLine(f)
	case "":
		return rd.errf("data before any section")
	default:
		return rd.errf("unexpected data in section %s", rd.section)
	}
}

func (rd *mpsReader) sense(s string) error {
	switch strings.ToUpper(s) {
	case "MIN", "MINIMIZE", "MINIMISE":
		rd.m.Sense = Minimize
	case "MAX", "MAXIMIZE", "MAXIMISE":
		rd.m.Sense = Maximize
	default:
		return rd.errf("unknown objective sense %q", s)
	}
	return nil
}

func (rd *mpsReader) rowLine(f []string) error {
	if len(f) != 2 {
		return rd.errf("a ROWS line is `type name`, got %d fields", len(f))
	}
	typ := strings.ToUpper(f[0])
	name := f[1]
	if _, dup := rd.rowIdx[name]; dup {
		return rd.errf("row %q declared twice", name)
	}
	switch typ {
	case "N":
		if rd.objRow == "" {
			rd.objRow = name
			rd.m.ObjName = name
			rd.rowIdx[name] = -1
			return nil
		}
	case "L", "G", "E":
	default:
		return rd.errf("unknown row type %q (want N, L, G or E)", f[0])
	}
	rd.rowIdx[name] = len(rd.m.Rows)
	rd.m.Rows = append(rd.m.Rows, Row{Name: name})
	rd.rows = append(rd.rows, mpsRow{typ: typ[0]})
	return nil
}

func (rd *mpsReader) columnLine(f []string) error {
	if len(f) == 3 && strings.Trim(f[1], "'\"") == "MARKER" {
		switch strings.Trim(f[2], "'\"") {
		case "INTORG":
			if rd.integer {
				return rd.errf("nested INTORG marker")
			}
			rd.integer = true
		case "INTEND":
			if !rd.integer {
				return rd.errf("INTEND marker without INTORG")
			}
			rd.integer = false
		default:
			return rd.errf("unknown marker %q", f[2])
		}
		return nil
	}
	if len(f) != 3 && len(f) != 5 {
		return rd.errf("a COLUMNS line is `column row value [row value]`, got %d fields", len(f))
	}
	j, ok := rd.colIdx[f[0]]
	if !ok {
		if rd.closedCol == nil {
			rd.closedCol = map[int]bool{}
		}
		if len(rd.m.Columns) > 0 {
			rd.closedCol[len(rd.m.Columns)-1] = true
		}
		j = len(rd.m.Columns)
		rd.colIdx[f[0]] = j
		c := Column{Name: f[0], Upper: Inf, Integer: rd.integer}
		rd.m.Columns = append(rd.m.Columns, c)
	} else if rd.closedCol[j] {
		return rd.errf("column %q appears again after other columns", f[0])
	} else if rd.m.Columns[j].Integer != rd.integer {
		return rd.errf("column %q crosses an integer marker", f[0])
	}
	for k := 1; k+1 < len(f); k += 2 {
		i, ok := rd.rowIdx[f[k]]
		if !ok {
			return rd.errf("unknown row %q", f[k])
		}
		v, err := rd.num(f[k+1])
		if err != nil {
			return err
		}
		if math.IsInf(v, 0) {
			return rd.errf("infinite coefficient %q", f[k+1])
		}
		key := [2]int{i, j}
		if rd.entry[key] {
			return rd.errf("column %q has two entries in row %q", f[0], f[k])
		}
		rd.entry[key] = true
		if i < 0 {
			rd.m.Columns[j].Cost = v
			continue
		}
		r := &rd.m.Rows[i]
		r.Index = append(r.Index, j)
		r.Value = append(r.Value, v)
	}
	return nil
}

func (rd *mpsReader) rhsLine(f []string) error {
	if len(f)%2 == 1 {
		f = f[1:] // the set name
	}
	if len(f) != 2 && len(f) != 4 {
		return rd.errf("an %s line is `[set] row value [row value]`", rd.section)
	}
	for k := 0; k < len(f); k += 2 {
		i, ok := rd.rowIdx[f[k]]
		if !ok {
			return rd.errf("unknown row %q", f[k])
		}
		v, err := rd.num(f[k+1])
		if err != nil {
			return err
		}
		if math.IsInf(v, 0) {
			return rd.errf("infinite %s value %q", rd.section, f[k+1])
		}
		if rd.section == "RHS" {
			if i < 0 {
				rd.m.Offset = -v
			} else {
				rd.rows[i].rhs = v
			}
			continue
		}
		if i < 0 || rd.rows[i].typ == 'N' {
			return rd.errf("range on free row %q", f[k])
		}
		if rd.rows[i].hasRange {
			return rd.errf("row %q has two ranges", f[k])
		}
		rd.rows[i].rng, rd.rows[i].hasRange = v, true
	}
	return nil
}

func (rd *mpsReader) boundLine(f []string) error {
	if len(f) < 2 {
		return rd.errf("a BOUNDS line is `type [set] column [value]`")
	}
	typ := strings.ToUpper(f[0])
	withValue := map[string]bool{"UP": true, "LO": true, "FX": true, "LI": true, "UI": true}
	noValue := map[string]bool{"FR": true, "MI": true, "PL": true, "BV": true}
	var col, val string
	switch {
	case withValue[typ] && len(f) == 4:
		col, val = f[2], f[3]
	case withValue[typ] && len(f) == 3:
		col, val = f[1], f[2]
	case noValue[typ] && (len(f) == 3 || len(f) == 4):
		col = f[2]
	case noValue[typ] && len(f) == 2:
		col = f[1]
	case withValue[typ] || noValue[typ]:
		return rd.errf("wrong number of fields for a %s bound", typ)
	default:
		return rd.errf("unknown bound type %q", f[0])
	}
	j, ok := rd.colIdx[col]
	if !ok {
		return rd.errf("bound on unknown column %q", col)
	}
	c := &rd.m.Columns[j]
	var v float64
	if val != "" {
		var err error
		if v, err = rd.num(val); err != nil {
			return err
		}
	}
	switch typ {
	case "UP":
		c.Upper = v
	case "LO":
		c.Lower = v
	case "FX":
		c.Lower, c.Upper = v, v
	case "FR":
		c.Lower, c.Upper = -Inf, Inf
	case "MI":
		c.Lower = -Inf
	case "PL":
		c.Upper = Inf
	case "BV":
		c.Integer, c.Lower, c.Upper = true, 0, 1
	case "LI":
		c.Integer, c.Lower = true, v
	case "UI":
		c.Integer, c.Upper = true, v
	}
	if c.Lower == Inf || c.Upper == -Inf {
		return rd.errf("column %q gets an impossible infinite bound", col)
	}
	return nil
}

func (rd *mpsReader) finish() (*Model, error) {
	m := rd.m
	if rd.objRow == "" {
		return nil, fmt.Errorf("%w: no objective (N) row", ErrMPS)
	}
	for i := range m.Rows {
		r, k := &m.Rows[i], rd.rows[i]
		switch k.typ {
		case 'N':
			r.Lower, r.Upper = -Inf, Inf
		case 'L':
			r.Lower, r.Upper = -Inf, k.rhs
			if k.hasRange {
				r.Lower = k.rhs - math.Abs(k.rng)
			}
		case 'G':
			r.Lower, r.Upper = k.rhs, Inf
			if k.hasRange {
				r.Upper = k.rhs + math.Abs(k.rng)
			}
		case 'E':
			r.Lower, r.Upper = k.rhs, k.rhs
			if k.hasRange && k.rng > 0 {
				r.Upper = k.rhs + k.rng
			} else if k.hasRange {
				r.Lower = k.rhs + k.rng
			}
		}
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMPS, err)
	}
	return m, nil
}
