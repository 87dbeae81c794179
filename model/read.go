package model

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DataError is a problem in an input file, located by file and line
// (line 0 when the problem concerns the whole file).
type DataError struct {
	File string
	Line int
	Msg  string
}

func (e *DataError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func dataErr(file string, line int, format string, a ...any) error {
	return &DataError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Format names an input file format.
type Format string

const (
	// FormatAuto picks the format from the file name: .csv is CSV,
	// everything else (.txt, .dl8, .dl85, ...) is the whitespace format.
	FormatAuto Format = ""
	// FormatCSV is a CSV file with a header row.
	FormatCSV Format = "csv"
	// FormatText is whitespace-separated numbers with the label first
	// (the DL8.5 / CP4IM convention).
	FormatText Format = "text"
)

// ReadOptions controls how a data file is read. The zero value reads CSV
// with the label in the last column, and text files with the label first.
type ReadOptions struct {
	Format Format
	// Label names the CSV label column (default: the last column). It may
	// also be a 0-based column index.
	Label string
	// Weight optionally names a CSV column of positive row weights. A
	// weight, and the total of the weights, must not exceed MaxWeight
	// (refused with file and line): beyond it float64 sums of weights are
	// no longer exact. Whole-number weights too large for a backend that
	// repeats rows (contree) are refused by that backend, so that auto
	// can pick another.
	Weight string
}

// MaxWeight is the largest row weight, and total weight, the readers
// accept: 2^53, up to which every whole number is exact in a float64.
const MaxWeight = 1 << 53

// ReadFile reads a dataset from a file; see ReadOptions.
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	format := opt.Format
	if format == FormatAuto {
		format = FormatText
		if strings.EqualFold(filepath.Ext(path), ".csv") {
			format = FormatCSV
		}
	}
	switch format {
	case FormatCSV:
		return ReadCSV(f, path, opt)
	case FormatText:
		if opt.Label != "" || opt.Weight != "" {
			return nil, dataErr(path, 0, "--label and --weight apply to CSV files only (the text format has its label first)")
		}
		return ReadText(f, path)
	}
	return nil, fmt.Errorf("%s: unknown format %q (want csv or text)", path, format)
}

// ReadCSV reads a CSV file with a header row. name is used in errors.
func ReadCSV(r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, dataErr(name, 1, "empty file (no header)")
	}
	if err != nil {
		return nil, csvErr(name, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	ncol := len(header)
	if ncol < 2 {
		return nil, dataErr(name, 1, "the header has %d column(s); need at least a feature and a label", ncol)
	}
	label, err := findColumn(header, opt.Label, ncol-1)
	if err != nil {
		return nil, dataErr(name, 1, "label column: %v", err)
	}
	weight := -1
	if opt.Weight != "" {
		if weight, err = findColumn(header, opt.Weight, -1); err != nil {
			return nil, dataErr(name, 1, "weight column: %v", err)
		}
		if weight == label {
			return nil, dataErr(name, 1, "the weight column cannot be the label column")
		}
	}
	var rows [][]string
	var lines []int
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != ncol {
			return nil, dataErr(name, line, "row has %d fields, the header has %d", len(rec), ncol)
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		rows = append(rows, rec)
		lines = append(lines, line)
	}
	if len(rows) < 2 {
		last := 1 // the header
		if len(lines) > 0 {
			last = lines[len(lines)-1]
		}
		return nil, dataErr(name, last, "%d data row(s) up to here; need at least two", len(rows))
	}
	d := &Dataset{Name: name}
	classIdx := map[string]int{}
	d.Labels = make([]int, len(rows))
	for i, rec := range rows {
		v := rec[label]
		if v == "" {
			return nil, dataErr(name, lines[i], "empty label in column %q", header[label])
		}
		c, ok := classIdx[v]
		if !ok {
			c = len(d.Classes)
			classIdx[v] = c
			d.Classes = append(d.Classes, v)
		}
		d.Labels[i] = c
	}
	if weight >= 0 {
		d.Weights = make([]float64, len(rows))
		total := 0.0
		for i, rec := range rows {
			w, err := strconv.ParseFloat(rec[weight], 64)
			if err != nil || !(w > 0) || math.IsInf(w, 0) {
				return nil, dataErr(name, lines[i], "weight %q in column %q is not a positive finite number", rec[weight], header[weight])
			}
			if total += w; w > MaxWeight || total > MaxWeight {
				return nil, dataErr(name, lines[i], "weight %q in column %q brings the total weight above 2^53 (%g), where sums of weights stop being exact", rec[weight], header[weight], float64(MaxWeight))
			}
			d.Weights[i] = w
		}
	}
	for c := 0; c < ncol; c++ {
		if c == label || c == weight {
			continue
		}
		f, err := csvColumn(name, header[c], rows, lines, c)
		if err != nil {
			return nil, err
		}
		d.Features = append(d.Features, f)
	}
	return d, nil
}

func csvErr(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return dataErr(name, pe.Line, "%v", pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// findColumn resolves a column given by name or 0-based index; def is
// returned when key is empty (and -1 means "required").
func findColumn(header []string, key string, def int) (int, error) {
	if key == "" {
		if def < 0 {
			return 0, errors.New("no column given")
		}
		return def, nil
	}
	for i, h := range header {
		if h == key {
			return i, nil
		}
	}
	if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(header) {
		return i, nil
	}
	return 0, fmt.Errorf("no column %q in the header (%s)", key, strings.Join(header, ", "))
}

// csvColumn builds a feature from column c: numeric when every value
// parses as a finite number, categorical otherwise.
func csvColumn(name, colName string, rows [][]string, lines []int, c int) (Feature, error) {
	f := Feature{Name: colName, Values: make([]float64, len(rows))}
	numeric := true
	bad := -1 // first row holding NaN or Inf
	for i, rec := range rows {
		v, err := strconv.ParseFloat(rec[c], 64)
		if err != nil {
			numeric = false
			break
		}
		if bad < 0 && (math.IsNaN(v) || math.IsInf(v, 0)) {
			bad = i
		}
		f.Values[i] = v
	}
	// A column of numbers with a NaN or Inf is an error; a column that
	// also holds a non-number is categorical, "inf" being one more level.
	if numeric && bad >= 0 {
		return f, dataErr(name, lines[bad], "column %q holds %q, not a finite number", colName, rows[bad][c])
	}
	if numeric {
		return f, nil
	}
	f.Kind = Categorical
	idx := map[string]int{}
	for i, rec := range rows {
		v := rec[c]
		l, ok := idx[v]
		if !ok {
			l = len(f.Levels)
			idx[v] = l
			f.Levels = append(f.Levels, v)
		}
		f.Values[i] = float64(l)
	}
	return f, nil
}

// ReadText reads the whitespace format: one row per line, numbers
// separated by blanks, the label first. Blank lines are skipped. Labels
// are kept as text; features must be finite numbers.
func ReadText(r io.Reader, name string) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	d := &Dataset{Name: name}
	classIdx := map[string]int{}
	var cols [][]float64
	ncol := -1
	line, lastRow := 0, 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		lastRow = line
		if ncol < 0 {
			ncol = len(fields)
			if ncol < 2 {
				return nil, dataErr(name, line, "row has %d field(s); need a label and at least one feature", ncol)
			}
			cols = make([][]float64, ncol-1)
		} else if len(fields) != ncol {
			return nil, dataErr(name, line, "row has %d fields, earlier rows have %d", len(fields), ncol)
		}
		c, ok := classIdx[fields[0]]
		if !ok {
			c = len(d.Classes)
			classIdx[fields[0]] = c
			d.Classes = append(d.Classes, fields[0])
		}
		d.Labels = append(d.Labels, c)
		for j, s := range fields[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, dataErr(name, line, "field %d is %q, not a number", j+2, s)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataErr(name, line, "field %d is %q, not a finite number", j+2, s)
			}
			cols[j] = append(cols[j], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, dataErr(name, line+1, "%v", err)
	}
	if ncol < 0 {
		return nil, dataErr(name, max(line, 1), "empty file (no data rows)")
	}
	if len(d.Labels) < 2 {
		return nil, dataErr(name, lastRow, "%d data row(s) up to here; need at least two", len(d.Labels))
	}
	d.Features = make([]Feature, len(cols))
	for j, v := range cols {
		d.Features[j] = Feature{Name: "f" + strconv.Itoa(j), Values: v}
	}
	return d, nil
}
