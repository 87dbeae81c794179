package bench

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
		if err := run.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		runs = append(runs, run)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return runs, nil
}

// MaxSeconds is the largest time a run may record (about 31 years): a
// larger one is not a measurement.
const MaxSeconds = 1e9

// check refuses a run whose numbers no measurement gives: a time that is
// negative, not finite or above MaxSeconds; a memory peak that is
// negative or not finite; an objective or bound that is not finite.
func (r *Run) check() error {
	secs := []struct {
		name string
		v    *float64
	}{{"seconds", &r.Seconds}, {"cpu_seconds", &r.CPUSeconds}, {"time_limit", &r.TimeLimit},
		{"time_to_best", r.TimeToBest}, {"time_to_proof", r.TimeToProof}}
	for i, inc := range r.Incumbents {
		secs = append(secs, struct {
			name string
			v    *float64
		}{fmt.Sprintf("incumbents[%d].seconds", i), &inc.Seconds})
		if math.IsNaN(inc.Objective) || math.IsInf(inc.Objective, 0) {
			return fmt.Errorf("incumbents[%d].objective %v: not a finite number", i, inc.Objective)
		}
	}
	for _, s := range secs {
		if s.v != nil && (!(*s.v >= 0) || *s.v > MaxSeconds) {
			return fmt.Errorf("%s %v: a time must be a number of seconds from 0 to %g", s.name, *s.v, float64(MaxSeconds))
		}
	}
	if !(r.PeakMB >= 0) || math.IsInf(r.PeakMB, 0) {
		return fmt.Errorf("peak_mb %v: want a finite, non-negative number", r.PeakMB)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"objective", r.Objective}, {"lower_bound", r.LowerBound}} {
		if f.v != nil && (math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			return fmt.Errorf("%s %v: not a finite number", f.name, *f.v)
		}
	}
	if r.Objective != nil && r.LowerBound == nil {
		return fmt.Errorf("objective without lower_bound")
	}
	switch r.Verdict {
	case "", Unknown:
	case Correct, Incorrect:
		if r.Expected == nil || math.IsNaN(*r.Expected) || math.IsInf(*r.Expected, 0) {
			return fmt.Errorf("verdict %q without a finite expected optimum", r.Verdict)
		}
	default:
		return fmt.Errorf("verdict %q: want correct, incorrect or unknown", r.Verdict)
	}
	return nil
}

// ReadRunFiles reads runs from files or from folders holding runs.jsonl.
// A cell met twice keeps its later run when both ran the same options on
// the same odt revision (a shard run again); when they differ, merging
// would mix two variants into one row, and ReadRunFiles refuses with an
// error naming both files (give the variants --config names instead).
func ReadRunFiles(paths []string) ([]Run, error) {
	byKey := map[string]int{}
	var runs []Run
	var from []string
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
			r.file = p
			if i, ok := byKey[r.Key()]; ok {
				if old := runs[i]; !slices.Equal(old.Options, r.Options) || old.Revision != r.Revision {
					return nil, fmt.Errorf("%s and %s both hold %s %s %s with different %s: merging would make one row of two variants; "+
						"run them as named configurations (--config NAME=BACKEND:key=value,...)",
						from[i], p, r.Series(), r.Name(), r.where(), differs(old, r))
				}
				runs[i], from[i] = r, p
				continue
			}
			byKey[r.Key()] = len(runs)
			runs = append(runs, r)
			from = append(from, p)
		}
	}
	// Grid order (files written before the index existed all hold 0 and
	// keep their order).
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Index < runs[j].Index })
	LabelRuns(runs)
	return runs, nil
}

// LabelRuns sets every run's Label from the data files of all the runs
// (see Labels): runs read from files written before labels existed, or
// merged from several grids, name each file apart.
func LabelRuns(runs []Run) {
	paths := make([]string, len(runs))
	for i := range runs {
		paths[i] = runs[i].Dataset
	}
	labels := Labels(paths)
	for i := range runs {
		runs[i].Label = labels[runs[i].Dataset]
	}
}

// RunDifferences lists the settings the runs record in which the files
// they were read from differ: the time limit and the odt revision. Runs
// of one grid share both, whatever their shard.
func RunDifferences(runs []Run) []string {
	type field struct {
		name string
		of   func(*Run) string
	}
	fields := []field{
		{"time limit", func(r *Run) string { return fullSec(r.TimeLimit) + " s" }},
		{"odt revision", func(r *Run) string { return orDash(r.Revision) }},
	}
	var diffs []string
	for _, f := range fields {
		var first, firstFile string
		var other []string
		seen := map[string]bool{}
		for i := range runs {
			r := &runs[i]
			v := f.of(r)
			switch {
			case firstFile == "":
				first, firstFile = v, r.file
			case v != first && !seen[v+"\x00"+r.file]:
				seen[v+"\x00"+r.file] = true
				other = append(other, fmt.Sprintf("%s in %s", v, r.file))
			}
		}
		if len(other) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s of the runs: %s in %s, but %s", f.name, first, firstFile, strings.Join(other, ", ")))
		}
	}
	return diffs
}

// CarryOutputs copies the files of every run read from another folder —
// its output (Run.Output, under runs/) and its proofs (Run.Proofs, under
// proofs/) — into dir, so that the links of dir's report resolve and the
// proofs can be checked there. A run whose file is missing from its
// folder loses its link; the returned notes say which.
func CarryOutputs(dir string, runs []Run) ([]string, error) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	to := abs(dir)
	var notes []string
	for i := range runs {
		r := &runs[i]
		if r.file == "" {
			continue
		}
		from := abs(filepath.Dir(r.file))
		if from == to {
			continue
		}
		for _, rel := range []*string{&r.Output, &r.Proofs} {
			if *rel == "" {
				continue
			}
			p := filepath.FromSlash(*rel)
			if !filepath.IsLocal(p) {
				notes = append(notes, fmt.Sprintf("%s: %q is not a file of its folder; link left out", r.file, *rel))
				*rel = ""
				continue
			}
			if err := copyTree(filepath.Join(from, p), filepath.Join(to, p)); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					notes = append(notes, fmt.Sprintf("%s: %v; link left out", r.file, err))
					*rel = ""
					continue
				}
				return notes, err
			}
		}
	}
	return notes, nil
}

// copyTree copies the file or folder src to dst.
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// differs says what differs between two runs of one cell.
func differs(a, b Run) string {
	var d []string
	if !slices.Equal(a.Options, b.Options) {
		d = append(d, fmt.Sprintf("options (%s vs %s)", orNone(a.Options), orNone(b.Options)))
	}
	if a.Revision != b.Revision {
		d = append(d, fmt.Sprintf("odt revisions (%s vs %s)", orDash(a.Revision), orDash(b.Revision)))
	}
	return strings.Join(d, " and ")
}

func orNone(opts []string) string {
	if len(opts) == 0 {
		return "none"
	}
	return strings.Join(opts, " ")
}

// RunsFile is the name of the JSON lines file in an output folder.
const RunsFile = "runs.jsonl"

// Entry summarises the runs of one backend on one dataset and depth
// (averaged over repeats).
type Entry struct {
	Dataset, Backend string
	// Config is the runs' configuration name ("" for a plain backend) and
	// ObjectiveName the objective they solve ("" = the backend's main one).
	Config, ObjectiveName string
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
	// Gap is the mean primal gap at the end of the runs against the
	// grid's best known objective (1 for a run without a model).
	Gap float64
	// WallSeconds and CPUSeconds are the means over the runs of the whole
	// process's wall time and CPU time (user + system).
	WallSeconds, CPUSeconds float64
	PeakMB                  float64
	Statuses                []string
	// Tuned entries hold runs that tuned their depth (Depth is 0).
	Tuned bool
	// Expected is the expected optimum (NaN when none was given) and
	// Correct, Incorrect and Unknown count the runs by their verdict.
	Expected                    float64
	Correct, Incorrect, Unknown int
}

// Summary is the table of a grid.
type Summary struct {
	Entries []Entry
	// Best is the best known objective per dataset and depth ("name/depth").
	Best map[string]float64
	// Conflicts lists proven optima that disagree; non-empty means a bug.
	Conflicts []string
	// Backends are the series of the grid in order of appearance: the
	// backends, or with a --threads dimension each backend and thread
	// count (Cell.Series).
	Backends []string
	// Failures describes the runs that produced no result.
	Failures []string
	// Incorrect describes the runs that contradict an expected optimum.
	Incorrect []string
}

// groupKey names the runs of one problem: the data set, the depth and,
// unless it is the error of a depth-bounded tree, the objective. Only runs
// of one group are compared (cross-checks, best objective, primal gaps).
func groupKey(name string, depth int, objective string) string {
	g := name + "/d" + depthText(depth)
	if objective != "" && objective != "error" {
		g += "/" + objective
	}
	return g
}

// Summarize builds the table: per dataset and depth, each backend's
// objective, proof time and primal integral (computed with
// model.PrimalIntegral against the best objective found in the grid),
// and cross-checks proven optima.
func Summarize(runs []Run) Summary {
	s := Summary{Best: map[string]float64{}}
	proven := map[string]map[string]float64{} // group -> backend -> objective
	infeasible := map[string][]string{}       // group -> series that proved it infeasible
	found := map[string][]string{}            // group -> series that found a model
	for _, r := range runs {
		if !slices.Contains(s.Backends, r.Series()) {
			s.Backends = append(s.Backends, r.Series())
		}
		if r.Verdict == Incorrect {
			s.Incorrect = append(s.Incorrect, verdictText(&r))
		}
		g := r.group()
		if r.Objective == nil {
			if r.Status == "infeasible" {
				infeasible[g] = append(infeasible[g], r.Series())
				continue
			}
			s.Failures = append(s.Failures, fmt.Sprintf("%s depth %s %s run %d: %s: %s", r.Name(), depthText(r.Depth), r.Series(), r.Repeat, r.Status, r.Message))
			continue
		}
		found[g] = append(found[g], r.Series())
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
	for g, inf := range infeasible {
		if f := found[g]; len(f) > 0 {
			slices.Sort(f)
			s.Conflicts = append(s.Conflicts, fmt.Sprintf("%s: %s proved the problem infeasible but %s found a model", g, inf[0], strings.Join(slices.Compact(f), ", ")))
		}
	}
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
	sort.Strings(s.Conflicts)
	type ek struct {
		name, series, objective string
		depth                   int
	}
	entries := map[ek]*Entry{}
	sums := map[ek][6]float64{} // proof seconds sum, integral sum, n integral, wall sum, cpu sum, final gap sum
	for i := range runs {
		r := &runs[i]
		k := ek{r.entryName(), r.Series(), r.ObjectiveName, r.Depth}
		e := entries[k]
		if e == nil {
			e = &Entry{Dataset: k.name, Backend: r.Backend, Config: r.Config, ObjectiveName: r.ObjectiveName,
				Objective: math.NaN(), Bound: math.NaN(), Threads: r.Threads, Depth: k.depth, Expected: math.NaN()}
			entries[k] = e
		}
		e.Runs++
		e.Tuned = e.Tuned || r.Tuned
		if !slices.Contains(e.Statuses, r.Status) {
			e.Statuses = append(e.Statuses, r.Status)
		}
		e.PeakMB = math.Max(e.PeakMB, r.PeakMB)
		if r.Expected != nil {
			e.Expected = *r.Expected
		}
		switch r.Verdict {
		case Correct:
			e.Correct++
		case Incorrect:
			e.Incorrect++
		case Unknown:
			e.Unknown++
		}
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
		switch {
		case r.Objective != nil && haveBest:
			acc[5] += model.PrimalGap(*r.Objective, best)
		case r.Status != "infeasible":
			acc[5]++
		}
		sums[k] = acc
	}
	for k, e := range entries {
		acc := sums[k]
		e.ProofSeconds = math.NaN()
		if e.Optimal > 0 {
			e.ProofSeconds = acc[0] / float64(e.Optimal)
		}
		e.Integral = acc[1] / acc[2]
		e.Gap = acc[5] / acc[2]
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
		return order[a.series()] < order[b.series()]
	})
	return s
}

// fmtNum writes a number at full precision (the CSV tables).
func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// roundNum writes a number for reading: whole numbers as they are, others
// to six significant digits.
func roundNum(x float64) string {
	if math.IsNaN(x) || x == math.Trunc(x) {
		return fmtNum(x)
	}
	return strconv.FormatFloat(roundSig(x, 6), 'f', -1, 64)
}

// roundSig rounds x to n significant digits.
func roundSig(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

func fmtSec(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// series is the entry's Cell.Series.
func (e Entry) series() string {
	return Cell{Backend: e.Backend, Config: e.Config, Threads: e.Threads}.Series()
}

// name is the entry's backend, or its configuration's name.
func (e Entry) name() string {
	if e.Config != "" {
		return e.Config
	}
	return e.Backend
}

// group is the entry's groupKey.
func (e Entry) group() string { return groupKey(e.Dataset, e.Depth, e.ObjectiveName) }

// rows renders the table as header + string rows; a threads column
// follows the backend when the grid has a --threads dimension.
// Numbers are written by num; a problem column (the objective solved)
// follows the backend when the grid mixes objectives.
func (s Summary) rows(num func(float64) string) ([]string, [][]string) {
	threads := slices.ContainsFunc(s.Entries, func(e Entry) bool { return e.Threads > 0 })
	verdicts := slices.ContainsFunc(s.Entries, func(e Entry) bool { return e.Correct+e.Incorrect+e.Unknown > 0 })
	mixed := slices.ContainsFunc(s.Entries, func(e Entry) bool { return e.ObjectiveName != s.Entries[0].ObjectiveName })
	head := []string{"dataset", "depth", "backend", "objective", "bound", "optimal", "proof_s", "primal_integral", "primal_gap", "wall_s", "cpu_s", "peak_mb", "status"}
	if verdicts {
		head = append(head, "expected", "verdict")
	}
	if mixed {
		head = slices.Insert(head, 3, "problem")
	}
	if threads {
		head = slices.Insert(head, 3, "threads")
	}
	var rows [][]string
	for _, e := range s.Entries {
		row := []string{
			e.Dataset, depthLabel(e), e.name(), num(e.Objective), num(e.Bound),
			fmt.Sprintf("%d/%d", e.Optimal, e.Runs), fmtSec(e.ProofSeconds), fmtSec(e.Integral), num(e.Gap),
			fmtSec(e.WallSeconds), fmtSec(e.CPUSeconds),
			strconv.FormatFloat(e.PeakMB, 'f', 1, 64), strings.Join(e.Statuses, ","),
		}
		if verdicts {
			row = append(row, num(e.Expected), e.verdict())
		}
		if mixed {
			obj := e.ObjectiveName
			if obj == "" {
				obj = "-"
			}
			row = slices.Insert(row, 3, obj)
		}
		if threads {
			row = slices.Insert(row, 3, strconv.Itoa(e.Threads))
		}
		rows = append(rows, row)
	}
	return head, rows
}

// WriteText writes the table with aligned columns.
func (s Summary) WriteText(w io.Writer) error {
	head, rows := s.rows(roundNum)
	var sb strings.Builder
	writeAligned(&sb, head, rows)
	s.writeConflicts(&sb)
	_, err := io.WriteString(w, sb.String())
	return err
}

// verdict sums up the entry's runs' verdicts: INCORRECT when any run is,
// correct when every run is, else how many are.
func (e Entry) verdict() string {
	switch {
	case e.Incorrect > 0:
		return "INCORRECT"
	case e.Correct == e.Runs:
		return Correct
	case e.Correct > 0:
		return fmt.Sprintf("%d/%d correct", e.Correct, e.Runs)
	case e.Unknown > 0:
		return Unknown
	}
	return "-"
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
	for _, c := range s.Incorrect {
		sb.WriteString("INCORRECT: " + c + "\n")
	}
}

// WriteMarkdown writes the table as a Markdown table.
func (s Summary) WriteMarkdown(w io.Writer) error {
	head, rows := s.rows(roundNum)
	var sb strings.Builder
	writeMarkdownTable(&sb, head, rows)
	if len(s.Conflicts)+len(s.Failures)+len(s.Incorrect) > 0 {
		var notes strings.Builder
		s.writeConflicts(&notes)
		sb.WriteString("\n")
		for _, l := range strings.SplitAfter(notes.String(), "\n") {
			if l != "" {
				sb.WriteString(mdEscape(strings.TrimSuffix(l, "\n")) + "\n")
			}
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteCSV writes the table as CSV.
func (s Summary) WriteCSV(w io.Writer) error {
	head, rows := s.rows(fmtNum)
	cw := csv.NewWriter(w)
	cw.Write(head)
	cw.WriteAll(rows)
	return cw.Error()
}

func depthLabel(e Entry) string {
	if e.Tuned {
		return "tuned"
	}
	return depthText(e.Depth)
}

// WriteLaTeX writes the per-cell table as a booktabs table.
func (s Summary) WriteLaTeX(w io.Writer) error {
	head, rows := s.rows(roundNum)
	return writeLaTeXTable(w, head, rows, "Per data set and depth: each series' objective, lower bound, proven runs, time to proof, primal integral, primal gap at the end, mean wall and CPU time, peak memory and status.", true)
}
