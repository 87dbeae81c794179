package model

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DataError is a problem in an input file, located by file and line
// (line 0 when the problem concerns the whole file).
type DataError struct {
	File string
	Line int
	Msg  string
	// Err, when not nil, classifies the problem (ErrMissingColumn).
	Err error
}

// ErrMissingColumn classifies the DataError of a file that lacks a
// column asked for by ReadOptions.Columns.
var ErrMissingColumn = errors.New("missing column")

// Unwrap returns e.Err.
func (e *DataError) Unwrap() error { return e.Err }

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
	// Categorical names columns (by name or 0-based index, as Label) read
	// as categories: every value is a level, numbers and the missing-value
	// marks "?" and "" included. In any other column a missing value is an
	// error naming the file, line and column: read as a level, it would
	// silently turn a numeric column categorical. (A column holding text
	// other than a missing value is categorical without being named here.)
	Categorical []string
	// Columns, when not nil, names the only feature columns to read, by
	// name (text files: f0, f1, ...); the other columns are skipped
	// unparsed, and a name absent from the file is an error listing every
	// absent one. The features keep their file order.
	Columns []string
	// NoLabel reads a file without a label column (text files: without
	// the label field), to apply a model to: every column is a feature
	// (or every one in Columns), the dataset has no classes and every
	// entry of its Labels is 0. Such a dataset can be predicted on, not
	// learned from or evaluated (Dataset.Validate refuses it).
	NoLabel bool
	// MinRows is the fewest data rows accepted; 0 means 2, the fewest a
	// learner can use. Reading to predict or evaluate may set it to 1.
	MinRows int
}

// FormatOf is the format o reads path in: o.Format, or for FormatAuto
// the one the file name says.
func (o ReadOptions) FormatOf(path string) Format {
	if o.Format != FormatAuto {
		return o.Format
	}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return FormatCSV
	}
	return FormatText
}

// minRows is the fewest data rows o accepts.
func (o ReadOptions) minRows() int {
	if o.MinRows > 0 {
		return o.MinRows
	}
	return 2
}

// MaxWeight is the largest row weight, and total weight, the readers
// accept: 2^53, up to which every whole number is exact in a float64.
const MaxWeight = 1 << 53

// ReadFile reads a dataset from a file; see ReadOptions. It is
// ReadFileContext without a context.
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	return ReadFileContext(context.Background(), path, opt)
}

// checkEvery is how many rows the readers parse between two looks at
// their context (a few milliseconds of work on 20 numeric columns).
const checkEvery = 4096

// ReadFileContext reads a dataset from a file; see ReadOptions. It looks
// at ctx every few thousand rows, so that a deadline or a cancel stops a
// long read soon; the error then wraps the context's cause (for a
// deadline, context.DeadlineExceeded) and names the file and line reached.
func ReadFileContext(ctx context.Context, path string, opt ReadOptions) (*Dataset, error) {
	if ctx.Err() != nil {
		return nil, stopErr(ctx, path, 0)
	}
	f, err := openInput(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hr := &hashReader{h: sha256.New()}
	ds, err := readFile(ctx, f, hr, path, opt)
	if err != nil && ctx.Err() != nil && !errors.Is(err, context.Cause(ctx)) {
		// A wait for a pipe's data ended by ctx.
		return nil, stopErr(ctx, path, 0)
	}
	if err == nil {
		// The bytes a reader left unread (after the last row) are hashed too.
		if _, cerr := io.Copy(io.Discard, hr); cerr == nil {
			ds.Source = &Source{Path: path, Bytes: hr.n, SHA256: hex.EncodeToString(hr.h.Sum(nil)), Options: opt, Fingerprint: ds.Fingerprint()}
		}
	}
	return ds, err
}

// readFile reads the open file f of ReadFileContext.
func readFile(ctx context.Context, f *os.File, hr *hashReader, path string, opt ReadOptions) (*Dataset, error) {
	cr := &ctxReader{f: f}
	defer cr.watch(ctx)()
	hr.r = cr
	br := bufio.NewReaderSize(hr, 1<<16)
	if c := compression(br); c != "" {
		return nil, dataErr(path, 0, "looks compressed (%s): odt reads plain CSV or text; decompress it first, e.g. %s", c, decompressHint[c])
	}
	switch format := opt.FormatOf(path); format {
	case FormatCSV:
		size := int64(0)
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		return readCSV(ctx, br, path, opt, size)
	case FormatText:
		if opt.Label != "" || opt.Weight != "" || len(opt.Categorical) > 0 {
			return nil, dataErr(path, 0, "--label, --weight and --categorical apply to CSV files only (the text format has its label first and numeric features)")
		}
		return readText(ctx, br, path, opt)
	}
	return nil, fmt.Errorf("%s: unknown format %q (want csv or text)", path, opt.Format)
}

// ReadCSV reads a CSV file with a header row. name is used in errors.
func ReadCSV(r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	return readCSV(context.Background(), r, name, opt, 0)
}

// stopErr is the error of a read stopped by its context at a line (0:
// before the first).
func stopErr(ctx context.Context, name string, line int) error {
	if line > 0 {
		return fmt.Errorf("%s:%d: reading stopped: %w", name, line, context.Cause(ctx))
	}
	return fmt.Errorf("%s: reading stopped: %w", name, context.Cause(ctx))
}

// readCSV is ReadCSV under a context; size, when known, is the input's
// size in bytes, from which the columns are sized once the first rows
// are read.
func readCSV(ctx context.Context, r io.Reader, name string, opt ReadOptions, size int64) (*Dataset, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, dataErr(name, 1, "empty file (no header)")
	}
	if err != nil {
		return nil, csvErr(name, err)
	}
	// With ReuseRecord the next Read refills the same slice: the header
	// is kept in its own.
	header = slices.Clone(header)
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	if err := checkHeader(name, header); err != nil {
		return nil, err
	}
	ncol := len(header)
	label := -1
	switch {
	case opt.NoLabel && opt.Label != "":
		return nil, dataErr(name, 1, "a label column (%q) was given for data read without labels", opt.Label)
	case opt.NoLabel:
	case ncol < 2:
		return nil, dataErr(name, 1, "the header has %d column(s); need at least a feature and a label", ncol)
	default:
		if label, err = findColumn(header, opt.Label, ncol-1); err != nil {
			return nil, dataErr(name, 1, "label column: %v", err)
		}
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
	feature := make([]bool, ncol) // the columns read as features
	if opt.Columns == nil {
		for c := range feature {
			feature[c] = c != label && c != weight
		}
	} else {
		at := make(map[string]int, ncol)
		for c, h := range header {
			at[h] = c
		}
		var absent []string
		for _, want := range opt.Columns {
			c, ok := at[want]
			switch {
			case !ok:
				absent = append(absent, strconv.Quote(want))
			case c == label || c == weight:
				what := "weight column"
				if c == label {
					what = "label column (by default the last column; --label names another)"
				}
				return nil, dataErr(name, 1, "column %q is wanted as a feature but is the %s", want, what)
			default:
				feature[c] = true
			}
		}
		if len(absent) > 0 {
			return nil, &DataError{File: name, Line: 1, Err: ErrMissingColumn,
				Msg: fmt.Sprintf("no column %s, wanted as a feature, in the header (%s)", strings.Join(absent, ", "), strings.Join(header, ", "))}
		}
	}
	// Columns are parsed as the rows stream in, so that memory is the
	// parsed table, not the text (see csvCol).
	d := &Dataset{Name: name}
	classIdx := map[string]int{}
	cols := make([]*csvCol, ncol)
	for c := range cols {
		if feature[c] {
			cols[c] = &csvCol{name: header[c], bad: -1}
		}
	}
	for _, key := range opt.Categorical {
		c, err := findColumn(header, key, -1)
		if err != nil {
			return nil, dataErr(name, 1, "categorical column: %v", err)
		}
		switch {
		case c == label:
			return nil, dataErr(name, 1, "categorical column %q is the label column (labels are always read as class names)", header[c])
		case c == weight:
			return nil, dataErr(name, 1, "categorical column %q is the weight column", header[c])
		case cols[c] != nil:
			cols[c].setCategorical()
		}
	}
	var (
		rows, lastLine      int
		labelErr, weightErr error
		total               float64
	)
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
		lastLine = line
		d.Lines = append(d.Lines, line)
		i := rows
		rows++
		if rows%checkEvery == 0 && ctx.Err() != nil {
			return nil, stopErr(ctx, name, line)
		}
		if rows == 256 && size > 0 {
			// Size the columns for the rows the rest of the input holds
			// at this rate (plus 5 %), rather than growing them by copies.
			est := int(float64(size) / float64(cr.InputOffset()) * 256 * 1.05)
			d.Labels = slices.Grow(d.Labels, est-len(d.Labels))
			for _, col := range cols {
				if col != nil {
					col.f.Values = slices.Grow(col.f.Values, est-len(col.f.Values))
				}
			}
		}
		if label < 0 {
			d.Labels = append(d.Labels, 0)
		} else if v := rec[label]; v == "" {
			if labelErr == nil {
				labelErr = dataErr(name, line, "empty label in column %q", header[label])
			}
			d.Labels = append(d.Labels, 0)
		} else {
			c, ok := classIdx[v]
			if !ok {
				c = len(d.Classes)
				v = strings.Clone(v)
				classIdx[v] = c
				d.Classes = append(d.Classes, v)
			}
			d.Labels = append(d.Labels, c)
		}
		if weight >= 0 {
			w, err := strconv.ParseFloat(rec[weight], 64)
			if weightErr == nil {
				if err != nil || !(w > 0) || math.IsInf(w, 0) {
					weightErr = dataErr(name, line, "weight %q in column %q is not a positive finite number", rec[weight], header[weight])
				} else if total += w; w > MaxWeight || total > MaxWeight {
					weightErr = dataErr(name, line, "weight %q in column %q brings the total weight above 2^53 (%g), where sums of weights stop being exact", rec[weight], header[weight], float64(MaxWeight))
				}
			}
			d.Weights = append(d.Weights, w)
		}
		for c, col := range cols {
			if col == nil {
				continue
			}
			if v := rec[c]; !col.forced && (v == "" || v == "?") {
				return nil, missingErr(name, line, v, header[c])
			}
			col.add(i, rec[c], line)
		}
	}
	if need := opt.minRows(); rows < need {
		last := 1 // the header
		if rows > 0 {
			last = lastLine
		}
		return nil, dataErr(name, last, "%d data row(s) up to here; need at least %d", rows, need)
	}
	if labelErr != nil {
		return nil, labelErr
	}
	if weightErr != nil {
		return nil, weightErr
	}
	for _, col := range cols {
		if col == nil {
			continue
		}
		// A column of numbers with a NaN or Inf is an error; a column
		// that also holds a non-number is categorical, "inf" being one
		// more level.
		if col.f.Kind == Numeric && col.bad >= 0 {
			return nil, dataErr(name, col.bad, "column %q holds %q, not a finite number", col.name, col.badText)
		}
		col.f.Name = col.name
		d.Features = append(d.Features, col.f)
	}
	return d, nil
}

// checkHeader refuses empty and repeated column names: a model names the
// features it tests, and applying it by name needs one column per name.
func checkHeader(name string, header []string) error {
	first := make(map[string]int, len(header))
	for c, h := range header {
		if h == "" {
			return dataErr(name, 1, "column %d of the header (index %d) has no name; every column needs a distinct name", c+1, c)
		}
		if p, dup := first[h]; dup {
			return dataErr(name, 1, "the header names two columns %q (columns %d and %d); every column needs a distinct name", h, p+1, c+1)
		}
		first[h] = c
	}
	return nil
}

// missingErr is the error of a missing value ("" or "?") in a column not
// declared categorical.
func missingErr(name string, line int, v, col string) error {
	what := fmt.Sprintf("missing value %q", v)
	if v == "" {
		what = "empty cell"
	}
	return dataErr(name, line, "%s in column %q: fill it in or drop the row, or read the column as categories, the missing value one of them, with --categorical %s", what, col, col)
}

// csvCol is one feature column being read: numeric while every value
// parses as a number, categorical from the first one that does not. A
// number's text is kept only when it differs from the number's shortest
// rendering (raw, allocated on the first such value), so that a column
// that turns categorical gets its earlier values back as written.
type csvCol struct {
	name    string
	forced  bool // declared categorical: every value is a level
	f       Feature
	raw     []string // raw[i] when not "", the text of row i's number
	levels  map[string]int
	bad     int // line of the first NaN or Inf, -1 when none
	badText string
	buf     []byte
}

func (c *csvCol) add(i int, text string, line int) {
	if c.f.Kind == Numeric {
		v, err := strconv.ParseFloat(text, 64)
		if err == nil {
			if c.bad < 0 && (math.IsNaN(v) || math.IsInf(v, 0)) {
				c.bad, c.badText = line, strings.Clone(text)
			}
			c.buf = strconv.AppendFloat(c.buf[:0], v, 'g', -1, 64)
			canon := string(c.buf) == text
			if !canon && c.raw == nil {
				c.raw = make([]string, i, max(i+1, cap(c.f.Values)))
			}
			if c.raw != nil {
				t := ""
				if !canon {
					t = strings.Clone(text)
				}
				c.raw = append(c.raw, t)
			}
			c.f.Values = append(c.f.Values, v)
			return
		}
		c.toCategorical()
	}
	l, ok := c.levels[text]
	if !ok {
		l = len(c.f.Levels)
		text = strings.Clone(text)
		c.levels[text] = l
		c.f.Levels = append(c.f.Levels, text)
	}
	c.f.Values = append(c.f.Values, float64(l))
}

// setCategorical makes a column categorical before its first value.
func (c *csvCol) setCategorical() {
	c.forced = true
	c.f.Kind = Categorical
	c.levels = map[string]int{}
}

// toCategorical turns the numbers read so far into levels, in order.
func (c *csvCol) toCategorical() {
	c.f.Kind = Categorical
	c.levels = map[string]int{}
	for i, v := range c.f.Values {
		text := ""
		if c.raw != nil {
			text = c.raw[i]
		}
		if text == "" {
			text = strconv.FormatFloat(v, 'g', -1, 64)
		}
		l, ok := c.levels[text]
		if !ok {
			l = len(c.f.Levels)
			c.levels[text] = l
			c.f.Levels = append(c.f.Levels, text)
		}
		c.f.Values[i] = float64(l)
	}
	c.raw = nil
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

// ReadText reads the whitespace format: one row per line, numbers
// separated by blanks, the label first. Blank lines are skipped. Labels
// are kept as text; features must be finite numbers.
func ReadText(r io.Reader, name string) (*Dataset, error) {
	return readText(context.Background(), r, name, ReadOptions{})
}

// readText is ReadText under a context, with opt's Columns, NoLabel and
// MinRows.
func readText(ctx context.Context, r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	first := 1 // the first feature field
	if opt.NoLabel {
		first = 0
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	d := &Dataset{Name: name}
	classIdx := map[string]int{}
	var (
		cols [][]float64
		keep []bool // with opt.Columns, the features read
		err  error
	)
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
		if len(d.Labels)%checkEvery == checkEvery-1 && ctx.Err() != nil {
			return nil, stopErr(ctx, name, line)
		}
		if ncol < 0 {
			ncol = len(fields)
			if ncol < first+1 {
				return nil, dataErr(name, line, "row has %d field(s); need a label and at least one feature", ncol)
			}
			cols = make([][]float64, ncol-first)
			if opt.Columns != nil {
				if keep, err = textColumns(name, line, opt.Columns, len(cols)); err != nil {
					return nil, err
				}
			}
		} else if len(fields) != ncol {
			return nil, dataErr(name, line, "row has %d fields, earlier rows have %d", len(fields), ncol)
		}
		d.Lines = append(d.Lines, line)
		if opt.NoLabel {
			d.Labels = append(d.Labels, 0)
		} else {
			c, ok := classIdx[fields[0]]
			if !ok {
				c = len(d.Classes)
				classIdx[fields[0]] = c
				d.Classes = append(d.Classes, fields[0])
			}
			d.Labels = append(d.Labels, c)
		}
		for j, s := range fields[first:] {
			if keep != nil && !keep[j] {
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, dataErr(name, line, "field %d is %q, not a number", j+first+1, s)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataErr(name, line, "field %d is %q, not a finite number", j+first+1, s)
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
	if need := opt.minRows(); len(d.Labels) < need {
		return nil, dataErr(name, lastRow, "%d data row(s) up to here; need at least %d", len(d.Labels), need)
	}
	d.Features = make([]Feature, 0, len(cols))
	for j, v := range cols {
		if keep == nil || keep[j] {
			d.Features = append(d.Features, Feature{Name: "f" + strconv.Itoa(j), Values: v})
		}
	}
	return d, nil
}

// textColumns marks which of a text file's n features (f0, f1, ...) are
// wanted; line is the first row's, where an absent one is reported.
func textColumns(name string, line int, want []string, n int) ([]bool, error) {
	keep := make([]bool, n)
	var absent []string
	for _, w := range want {
		j, err := strconv.Atoi(strings.TrimPrefix(w, "f"))
		if !strings.HasPrefix(w, "f") || err != nil || j < 0 || j >= n || "f"+strconv.Itoa(j) != w {
			absent = append(absent, strconv.Quote(w))
			continue
		}
		keep[j] = true
	}
	if len(absent) > 0 {
		return nil, &DataError{File: name, Line: line, Err: ErrMissingColumn,
			Msg: fmt.Sprintf("no feature %s, wanted: the rows have %d features, f0 to f%d", strings.Join(absent, ", "), n, n-1)}
	}
	return keep, nil
}
