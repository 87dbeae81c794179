package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// SplitFormat is the "format" field of a split file.
const SplitFormat = "odtkit-split-1"

// SplitFile records the rows of one protocol instance, so that another
// run or tool can reproduce it. Row numbers are 0-based data rows in file
// order (a CSV header is not a row). A split protocol fills Train, Valid
// and Test; cross-validation fills Folds instead.
type SplitFile struct {
	Format string `json:"format"`
	// Data is the data file the rows index, as given; Rows its row count
	// (a split applied to another file is rejected).
	Data string `json:"data"`
	Rows int    `json:"rows"`
	Seed int64  `json:"seed"`
	// Protocol is "split 50/25/25" or "cv 5".
	Protocol string  `json:"protocol"`
	Train    []int   `json:"train,omitempty"`
	Valid    []int   `json:"valid,omitempty"`
	Test     []int   `json:"test,omitempty"`
	Folds    [][]int `json:"folds,omitempty"`
}

// NewSplitFile splits d stratified into parts of the given fractions (2:
// train and test, 3: train, validation and test). It fails when a part
// would get no row.
func NewSplitFile(d *model.Dataset, fractions []float64, seed int64) (*SplitFile, error) {
	if len(fractions) != 2 && len(fractions) != 3 {
		return nil, fmt.Errorf("a split has 2 parts (train/test) or 3 (train/valid/test), not %d", len(fractions))
	}
	parts, err := model.StratifiedSplit(d, fractions, seed)
	if err != nil {
		return nil, err
	}
	for j, p := range parts {
		if len(p) == 0 {
			return nil, fmt.Errorf("%s: split %s leaves part %d without rows (%d rows)", d.Name, FormatFractions(fractions), j+1, d.Rows())
		}
	}
	sf := &SplitFile{Format: SplitFormat, Data: d.Name, Rows: d.Rows(), Seed: seed,
		Protocol: "split " + FormatFractions(fractions), Train: parts[0], Test: parts[len(parts)-1]}
	if len(parts) == 3 {
		sf.Valid = parts[1]
	}
	return sf, nil
}

// NewFoldsFile divides d into k stratified folds.
func NewFoldsFile(d *model.Dataset, k int, seed int64) (*SplitFile, error) {
	folds, err := model.StratifiedFolds(d, k, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	return &SplitFile{Format: SplitFormat, Data: d.Name, Rows: d.Rows(), Seed: seed,
		Protocol: "cv " + strconv.Itoa(k), Folds: folds}, nil
}

// Split returns the split to train on: the file's split for fold 0, or
// for a cross-validation file the split of fold f (1-based).
func (s *SplitFile) Split(fold int) (Split, error) {
	if len(s.Folds) == 0 {
		if fold != 0 {
			return Split{}, fmt.Errorf("fold %d asked of a split that has no folds (%s)", fold, s.Protocol)
		}
		return Split{Train: s.Train, Valid: s.Valid, Test: s.Test}, nil
	}
	if fold < 1 || fold > len(s.Folds) {
		return Split{}, fmt.Errorf("fold %d of a %d-fold split (want 1 to %d)", fold, len(s.Folds), len(s.Folds))
	}
	return FoldSplit(s.Folds, fold-1), nil
}

// Check fails unless the split was made for data of d's size.
func (s *SplitFile) Check(d *model.Dataset) error {
	if s.Rows != d.Rows() {
		return fmt.Errorf("the split is for %d rows (%s), the data %s has %d", s.Rows, s.Data, d.Name, d.Rows())
	}
	return nil
}

// Write writes the split as one line of JSON.
func (s *SplitFile) Write(w io.Writer) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteFile writes the split to path.
func (s *SplitFile) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := s.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadSplitFile reads and checks a split file: its format, row numbers in
// [0, rows) and no row in two parts (or folds).
func ReadSplitFile(path string) (*SplitFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s SplitFile
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not a split file: %w", path, err)
	}
	if s.Format != SplitFormat {
		return nil, fmt.Errorf("%s: split format %q, want %q", path, s.Format, SplitFormat)
	}
	if s.Rows < 1 {
		return nil, fmt.Errorf("%s: rows %d, want the data's row count", path, s.Rows)
	}
	seen := make([]bool, s.Rows)
	check := func(what string, rows []int) error {
		for _, r := range rows {
			if r < 0 || r >= s.Rows {
				return fmt.Errorf("%s: %s row %d out of range [0,%d)", path, what, r, s.Rows)
			}
			if seen[r] {
				return fmt.Errorf("%s: row %d appears twice (last in %s)", path, r, what)
			}
			seen[r] = true
		}
		return nil
	}
	if len(s.Folds) > 0 {
		if len(s.Train)+len(s.Valid)+len(s.Test) > 0 {
			return nil, fmt.Errorf("%s: both folds and train/valid/test", path)
		}
		for i, f := range s.Folds {
			if len(f) == 0 {
				return nil, fmt.Errorf("%s: fold %d is empty", path, i+1)
			}
			if err := check("fold "+strconv.Itoa(i+1), f); err != nil {
				return nil, err
			}
		}
	} else {
		if len(s.Train) == 0 {
			return nil, fmt.Errorf("%s: no training rows", path)
		}
		for _, p := range []struct {
			name string
			rows []int
		}{{"train", s.Train}, {"valid", s.Valid}, {"test", s.Test}} {
			if err := check(p.name, p.rows); err != nil {
				return nil, err
			}
		}
	}
	return &s, nil
}

// ParseFractions reads a split such as "50/25/25" or "0.8/0.2": two or
// three positive numbers separated by '/', scaled to sum to 1.
func ParseFractions(s string) ([]float64, error) {
	fs := strings.Split(s, "/")
	if len(fs) != 2 && len(fs) != 3 {
		return nil, fmt.Errorf("split %q: want TRAIN/TEST or TRAIN/VALID/TEST, e.g. 50/25/25", s)
	}
	out := make([]float64, len(fs))
	sum := 0.0
	for i, f := range fs {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || v > 1e9 {
			return nil, fmt.Errorf("split %q: %q is not a positive number", s, f)
		}
		out[i] = v
		sum += v
	}
	for i := range out {
		out[i] /= sum
	}
	return out, nil
}

// FormatFractions writes fractions as percentages, e.g. "50/25/25".
func FormatFractions(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = strconv.FormatFloat(100*f, 'g', 4, 64)
	}
	return strings.Join(parts, "/")
}

// ParseSeeds reads a list of seeds: comma-separated integers or ranges,
// e.g. "1-5", "1,3,7" or "1-3,10". Ranges go up; duplicates are refused.
func ParseSeeds(s string) ([]int64, error) {
	var out []int64
	seen := map[int64]bool{}
	add := func(v int64) error {
		if seen[v] {
			return fmt.Errorf("seeds %q: %d appears twice", s, v)
		}
		if len(out) >= 100000 {
			return fmt.Errorf("seeds %q: more than 100000 seeds", s)
		}
		seen[v] = true
		out = append(out, v)
		return nil
	}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		lo, hi, isRange := strings.Cut(f[min(1, len(f)):], "-") // a leading '-' is a sign
		if isRange {
			lo = f[:min(1, len(f))] + lo
		} else {
			lo = f
		}
		a, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seeds %q: %q is not an integer or a range A-B", s, f)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(strings.TrimSpace(hi), 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("seeds %q: %q is not a range A-B with A <= B", s, f)
			}
		}
		for v := a; ; v++ {
			if err := add(v); err != nil {
				return nil, err
			}
			if v == b {
				break
			}
		}
	}
	return out, nil
}

// ParseFloats reads a comma-separated list of finite non-negative numbers.
func ParseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0) || v > maxFloat {
			what := "not a number"
			if (err == nil && v == v) || errors.Is(err, strconv.ErrRange) {
				what = "out of range"
			}
			if strings.TrimSpace(f) == strings.TrimSpace(s) {
				return nil, fmt.Errorf("%s: want a number from 0 to %g", what, maxFloat)
			}
			return nil, fmt.Errorf("%q in %q is %s: want numbers from 0 to %g", f, s, what, maxFloat)
		}
		out = append(out, v)
	}
	return out, nil
}

// maxFloat is the largest value ParseFloats takes: beyond it sums and
// products of costs overflow.
const maxFloat = 1e300

// ParseInts reads a comma-separated list of integers of at least least.
func ParseInts(s string, least int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < least {
			return nil, fmt.Errorf("%q: %q is not an integer >= %d", s, f, least)
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseSkeletons reads diagram skeletons separated by ':' (or ';'), each a
// comma-separated list of positive layer widths, e.g. "1,2,2:1,2,4".
func ParseSkeletons(s string) ([][]int, error) {
	var out [][]int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ';' }) {
		sk, err := ParseInts(f, 1)
		if err != nil {
			return nil, fmt.Errorf("skeleton %w", err)
		}
		out = append(out, sk)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q holds no skeleton (want e.g. 1,2,2:1,2,4)", s)
	}
	return out, nil
}
