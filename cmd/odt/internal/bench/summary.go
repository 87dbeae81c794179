package bench

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// WriteRuns writes runs as JSON lines.
func WriteRuns(w io.Writer, runs []Run) error {
	enc := json.NewEncoder(w)
	for i := range runs {
		if err := enc.Encode(&runs[i]); err != nil {
			return err
		}
	}
	return nil
}

// ReadRuns reads JSON lines written by WriteRuns; name is used in errors.
func ReadRuns(r io.Reader, name string) ([]Run, error) {
	var runs []Run
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var run Run
		if err := json.Unmarshal(sc.Bytes(), &run); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if run.Backend == "" || run.Dataset == "" {
			return nil, fmt.Errorf("%s:%d: not a bench run (no backend or dataset)", name, line)
		}
		runs = append(runs, run)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return runs, nil
}

// ReadRunFiles reads runs from files or from folders holding runs.jsonl,
// keeping one run per cell (a later file wins on a duplicate cell).
func ReadRunFiles(paths []string) ([]Run, error) {
	byKey := map[string]int{}
	var runs []Run
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			p = filepath.Join(p, RunsFile)
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		rs, err := ReadRuns(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if i, ok := byKey[r.Key()]; ok {
				runs[i] = r
				continue
			}
			byKey[r.Key()] = len(runs)
			runs = append(runs, r)
		}
	}
	// Grid order (files written before the index existed all hold 0 and
	// keep their order).
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Index < runs[j].Index })
	return runs, nil
}

// RunsFile is the name of the JSON lines file in an output folder.
const RunsFile = "runs.jsonl"

// Entry summarises the runs of one backend on one dataset and depth
// (averaged over repeats).
type Entry struct {
	Dataset, Backend string
	// Threads is the runs' --threads (0: none given).
	Threads      int
	Depth        int
	Runs, Failed int
	Optimal      int // runs that proved optimality
	// Objective is the best objective over the repeats (NaN when none).
	Objective float64
	// Bound is the best lower bound over the repeats.
	Bound float64
	// ProofSeconds is the mean time to proof over the proven runs (NaN when none).
	ProofSeconds float64
	// Integral is the mean primal integral over the repeats, against the
	// grid's best known objective, up to the time limit.
	Integral float64
	// WallSeconds and CPUSeconds are the means over the runs of the whole
	// process's wall time and CPU time (user + system).
	WallSeconds, CPUSeconds float64
	PeakMB                  float64
	Statuses                []string
	// Tuned entries hold runs that tuned their depth (Depth is 0).
	Tuned bool
	// Goal is the objective the runs optimised ("" when unknown).
	Goal string
}

// Summary is the table of a grid.
type Summary struct {
	Entries []Entry
	// Best is the best known objective per dataset, depth and objective
	// (groupKey: "name/dK", with "/min-depth" etc. for objectives other
	// than the error).
	Best map[string]float64
	// Conflicts lists proven optima that disagree; non-empty means a bug.
	Conflicts []string
	// Backends are the series of the grid in order of appearance: the
	// backends, or with a --threads dimension each backend and thread
	// count (Cell.Series).
	Backends []string
	// Failures describes the runs that produced no result.
	Failures []string
}

// groupKey names the runs of one dataset, depth and objective (goal):
// "name/dK", followed by "/goal" for objectives other than the error.
func groupKey(name string, depth int, goal string) string {
	k := name + "/d" + strconv.Itoa(depth)
	if goal != "" && goal != string(model.MinError) {
		k += "/" + goal
	}
	return k
}

// Summarize builds the table: per dataset, depth and objective, each
// backend's objective, proof time and primal integral (computed with
// model.PrimalIntegral against the best objective found in the grid for
// that objective), and cross-checks the proven optima of each objective.
func Summarize(runs []Run) Summary {
	s := Summary{Best: map[string]float64{}}
	proven := map[string]map[string]float64{} // group -> backend -> objective
	for _, r := range runs {
		if !slices.Contains(s.Backends, r.Series()) {
			s.Backends = append(s.Backends, r.Series())
		}
		if r.Objective == nil {
			s.Failures = append(s.Failures, fmt.Sprintf("%s depth %d %s run %d: %s: %s", r.Name(), r.Depth, r.Series(), r.Repeat, r.Status, r.Message))
			continue
		}
		g := r.group()
		if b, ok := s.Best[g]; !ok || *r.Objective < b {
			s.Best[g] = *r.Objective
		}
		if r.Optimal {
			if proven[g] == nil {
				proven[g] = map[string]float64{}
			}
			if o, ok := proven[g][r.Series()]; ok && o != *r.Objective {
				s.Conflicts = append(s.Conflicts, fmt.Sprintf("%s: %s proved both %v and %v in different repeats", g, r.Series(), o, *r.Objective))
			}
			proven[g][r.Series()] = *r.Objective
		}
	}
	sort.Strings(s.Failures)
	groups := make([]string, 0, len(proven))
	for g := range proven {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		bs := make([]string, 0, len(proven[g]))
		for b := range proven[g] {
			bs = append(bs, b)
		}
		sort.Strings(bs)
		for i := 1; i < len(bs); i++ {
			a, b := proven[g][bs[0]], proven[g][bs[i]]
			if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(a)) {
				s.Conflicts = append(s.Conflicts, fmt.Sprintf("%s: %s proved optimum %v but %s proved %v", g, bs[0], a, bs[i], b))
			}
		}
	}
	type ek struct {
		name, series, goal string
		depth              int
	}
	entries := map[ek]*Entry{}
	sums := map[ek][5]float64{} // proof seconds sum, integral sum, n integral, wall sum, cpu sum
	for i := range runs {
		r := &runs[i]
		k := ek{r.entryName(), r.Series(), r.goal(), r.Depth}
		e := entries[k]
		if e == nil {
			e = &Entry{Dataset: k.name, Backend: r.Backend, Threads: r.Threads, Depth: k.depth, Goal: k.goal, Objective: math.NaN(), Bound: math.NaN()}
			entries[k] = e
		}
		e.Runs++
		e.Tuned = e.Tuned || r.Tuned
		if !slices.Contains(e.Statuses, r.Status) {
			e.Statuses = append(e.Statuses, r.Status)
		}
		e.PeakMB = math.Max(e.PeakMB, r.PeakMB)
		acc := sums[k]
		best, haveBest := s.Best[r.group()]
		if r.Objective == nil {
			e.Failed++
		} else {
			if math.IsNaN(e.Objective) || *r.Objective < e.Objective {
				e.Objective = *r.Objective
			}
			if math.IsNaN(e.Bound) || *r.LowerBound > e.Bound {
				e.Bound = *r.LowerBound
			}
		}
		if r.Optimal && r.TimeToProof != nil {
			e.Optimal++
			acc[0] += *r.TimeToProof
		}
		horizon := r.TimeLimit
		if horizon <= 0 {
			horizon = r.Seconds
		}
		if haveBest {
			acc[1] += model.PrimalIntegral(r.Incumbents, best, horizon)
		} else {
			acc[1] += horizon
		}
		acc[2]++
		acc[3] += r.Seconds
		acc[4] += r.CPUSeconds
		sums[k] = acc
	}
	for k, e := range entries {
		acc := sums[k]
		e.ProofSeconds = math.NaN()
		if e.Optimal > 0 {
			e.ProofSeconds = acc[0] / float64(e.Optimal)
		}
		e.Integral = acc[1] / acc[2]
		e.WallSeconds, e.CPUSeconds = acc[3]/acc[2], acc[4]/acc[2]
		s.Entries = append(s.Entries, *e)
	}
	order := map[string]int{}
	for i, b := range s.Backends {
		order[b] = i
	}
	sort.Slice(s.Entries, func(i, j int) bool {
		a, b := s.Entries[i], s.Entries[j]
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		if a.Depth != b.Depth {
			return a.Depth < b.Depth
		}
		if a.Goal != b.Goal {
			return goalRank(a.Goal) < goalRank(b.Goal)
		}
		return order[a.series()] < order[b.series()]
	})
	return s
}

func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

func fmtSec(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// series is the entry's Cell.Series.
func (e Entry) series() string { return Cell{Backend: e.Backend, Threads: e.Threads}.Series() }

// goalRank orders objectives in tables: the error first, then
// min-depth, min-size, diagram, then any other.
func goalRank(g string) string {
	switch model.Objective(g) {
	case "", model.MinError:
		return "0"
	case model.MinDepth:
		return "1"
	case model.MinSize:
		return "2"
	case model.DiagramError:
		return "3"
	}
	return "4" + g
}

// rows renders the table as header + string rows; a threads column
// follows the backend when the grid has a --threads dimension, and a goal
// column (the objective optimised) the depth when some runs optimised
// another objective than the error.
func (s Summary) rows() ([]string, [][]string) {
	threads := slices.ContainsFunc(s.Entries, func(e Entry) bool { return e.Threads > 0 })
	goals := slices.ContainsFunc(s.Entries, func(e Entry) bool { return e.Goal != "" && e.Goal != string(model.MinError) })
	head := []string{"dataset", "depth", "backend", "objective", "bound", "optimal", "proof_s", "primal_integral", "wall_s", "cpu_s", "peak_mb", "status"}
	if threads {
		head = slices.Insert(head, 3, "threads")
	}
	if goals {
		head = slices.Insert(head, 2, "goal")
	}
	var rows [][]string
	for _, e := range s.Entries {
		row := []string{
			e.Dataset, depthLabel(e), e.Backend, fmtNum(e.Objective), fmtNum(e.Bound),
			fmt.Sprintf("%d/%d", e.Optimal, e.Runs), fmtSec(e.ProofSeconds), fmtSec(e.Integral),
			fmtSec(e.WallSeconds), fmtSec(e.CPUSeconds),
			strconv.FormatFloat(e.PeakMB, 'f', 1, 64), strings.Join(e.Statuses, ","),
		}
		if threads {
			row = slices.Insert(row, 3, strconv.Itoa(e.Threads))
		}
		if goals {
			row = slices.Insert(row, 2, orDash(e.Goal))
		}
		rows = append(rows, row)
	}
	return head, rows
}

// WriteText writes the table with aligned columns.
func (s Summary) WriteText(w io.Writer) error {
	head, rows := s.rows()
	var sb strings.Builder
	writeAligned(&sb, head, rows)
	s.writeConflicts(&sb)
	_, err := io.WriteString(w, sb.String())
	return err
}

func (s Summary) writeConflicts(sb *strings.Builder) {
	if len(s.Failures) > 0 {
		sb.WriteString("\nfailed runs:\n")
		for _, f := range s.Failures {
			sb.WriteString("  " + f + "\n")
		}
	}
	for _, c := range s.Conflicts {
		sb.WriteString("CROSS-CHECK ERROR: " + c + "\n")
	}
}

// WriteMarkdown writes the table as a Markdown table.
func (s Summary) WriteMarkdown(w io.Writer) error {
	head, rows := s.rows()
	var sb strings.Builder
	sb.WriteString("| " + strings.Join(head, " | ") + " |\n")
	sb.WriteString("|" + strings.Repeat("---|", len(head)) + "\n")
	for _, r := range rows {
		sb.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	if len(s.Conflicts)+len(s.Failures) > 0 {
		sb.WriteString("\n")
		s.writeConflicts(&sb)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteCSV writes the table as CSV.
func (s Summary) WriteCSV(w io.Writer) error {
	head, rows := s.rows()
	cw := csv.NewWriter(w)
	cw.Write(head)
	cw.WriteAll(rows)
	return cw.Error()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func depthLabel(e Entry) string {
	if e.Tuned {
		return "tuned"
	}
	return strconv.Itoa(e.Depth)
}
