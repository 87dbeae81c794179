package bench

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// The verdicts of a run against an expected optimum.
const (
	// Correct: the run proved the expected optimum.
	Correct = "correct"
	// Incorrect: the run contradicts the expected optimum: it proved
	// another value, found a model better than it, proved a bound above
	// it, or proved the problem infeasible.
	Incorrect = "incorrect"
	// Unknown: no expectation for the run's instance, or a run that
	// proved nothing and contradicts nothing.
	Unknown = "unknown"
)

// Expectations are the known optima of instances, read from a
// tab-separated table (ReadExpectations).
type Expectations struct {
	// Path is the file the table was read from.
	Path   string
	optima map[expectKey]float64
}

type expectKey struct {
	dataset   string
	depth     int
	objective string
}

// ReadExpectations reads a tab-separated table of known optima. Lines
// starting with # are comments; the first other line is the header,
// whose columns are found by name: dataset (a data file's name without
// folder and extension), depth (a whole number, or - for none), optimum
// and, optionally, objective (error, min-depth, min-size, min-nodes or diagram;
// error when absent or empty; another name is an error). Other columns are ignored. A row whose
// optimum is -, ? or empty states nothing; a negative optimum is an
// error (no objective is below 0). Errors name the file, line
// and column.
func ReadExpectations(path string) (*Expectations, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ex := &Expectations{Path: path, optima: map[expectKey]float64{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	col := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(col) == 0 {
			for i, h := range fields {
				h = strings.ToLower(strings.TrimSpace(h))
				if _, dup := col[h]; dup && h != "" {
					return nil, fmt.Errorf("%s:%d: column %q appears twice", path, line, h)
				}
				col[h] = i
			}
			for _, need := range []string{"dataset", "depth", "optimum"} {
				if _, ok := col[need]; !ok {
					return nil, fmt.Errorf("%s:%d: the header has no column %q (want tab-separated columns dataset, depth, optimum and optionally objective)", path, line, need)
				}
			}
			continue
		}
		get := func(name string) (string, bool) {
			i, ok := col[name]
			if !ok || i >= len(fields) {
				return "", ok
			}
			return strings.TrimSpace(fields[i]), true
		}
		for _, need := range []string{"dataset", "depth", "optimum"} {
			if col[need] >= len(fields) {
				return nil, fmt.Errorf("%s:%d: %d fields, no column %s (is the file tab-separated?)", path, line, len(fields), need)
			}
		}
		opt, _ := get("optimum")
		if opt == "-" || opt == "?" || opt == "" {
			continue
		}
		value, err := strconv.ParseFloat(opt, 64)
		if err != nil || math.IsNaN(value) || math.IsInf(value, 0) {
			return nil, fmt.Errorf("%s:%d: optimum %q is not a finite number", path, line, opt)
		}
		if value < 0 {
			return nil, fmt.Errorf("%s:%d: optimum %q is negative: every objective (errors, depth, size, the diagram objective) is at least 0", path, line, opt)
		}
		name, _ := get("dataset")
		if name == "" {
			return nil, fmt.Errorf("%s:%d: empty dataset", path, line)
		}
		ds, _ := get("depth")
		depth := NoDepth
		if ds != "-" {
			d, err := strconv.Atoi(ds)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("%s:%d: depth %q is not a whole number of at least 0 (or - for none)", path, line, ds)
			}
			depth = d
		}
		obj, _ := get("objective")
		switch model.Objective(obj) {
		case "":
			obj = string(model.MinError)
		case model.MinError, model.MinDepth, model.MinSize, model.DiagramError:
		default:
			return nil, fmt.Errorf("%s:%d: unknown objective %q (want %s, %s, %s or %s; empty for error)", path, line, obj, model.MinError, model.MinDepth, model.MinSize, model.DiagramError)
		}
		k := expectKey{name, depth, obj}
		if old, ok := ex.optima[k]; ok && old != value {
			return nil, fmt.Errorf("%s:%d: %s depth %s %s: optimum %v, but an earlier line says %v", path, line, name, ds, obj, value, old)
		}
		ex.optima[k] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(col) == 0 {
		return nil, fmt.Errorf("%s: no header line (want tab-separated columns dataset, depth, optimum and optionally objective)", path)
	}
	return ex, nil
}

// Len is the number of instances the table states an optimum for.
func (ex *Expectations) Len() int { return len(ex.optima) }

// Mark sets the run's Expected and Verdict. Runs of learning protocols
// (trained on part of the rows) and tuned runs have no expectation.
func (ex *Expectations) Mark(r *Run) {
	r.Expected, r.Verdict = nil, Unknown
	if r.Protocol != "" || r.Tuned {
		return
	}
	obj := r.ObjectiveName
	if obj == "" {
		obj = "error"
	}
	opt, ok := ex.optima[expectKey{r.Name(), r.Depth, obj}]
	if !ok {
		return
	}
	r.Expected = &opt
	tol := 1e-9 * math.Max(1, math.Abs(opt))
	switch {
	case r.Status == "infeasible":
		r.Verdict = Incorrect
	case r.Objective == nil:
	case *r.Objective < opt-tol, *r.LowerBound > opt+tol:
		r.Verdict = Incorrect
	case r.Optimal && *r.Objective > opt+tol:
		r.Verdict = Incorrect
	case r.Optimal:
		r.Verdict = Correct
	}
}

// verdictText says why a run is incorrect against its expected optimum.
func verdictText(r *Run) string {
	what := "proved the problem infeasible"
	switch {
	case r.Objective == nil:
	case r.Optimal && *r.Objective != *r.Expected:
		what = fmt.Sprintf("claims optimum %v", *r.Objective)
	case *r.Objective < *r.Expected:
		what = fmt.Sprintf("found a model of objective %v", *r.Objective)
	default:
		what = fmt.Sprintf("claims lower bound %v", *r.LowerBound)
	}
	return fmt.Sprintf("%s depth %s %s run %d: %s, the expected optimum is %v", r.Name(), depthText(r.Depth), r.Series(), r.Repeat, what, *r.Expected)
}
