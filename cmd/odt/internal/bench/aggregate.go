package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// DefaultSGMShift is the shift of the shifted geometric mean of times, in
// seconds (the value of Mittelmann's MILP benchmarks).
const DefaultSGMShift = 10.0

// VBS names the virtual best solver's rows: on each instance, the fastest
// series that solved it.
const VBS = "VBS"

// AggRow is one row of the aggregate table: one series (backend, or
// backend and thread count) over the instances of one depth, or of every
// depth ("all").
//
// An instance is a data file at a depth (and, for learning protocols, a
// seed and fold; for repeats, a repeat): every series of the grid runs it
// once. A run is solved when it proved its answer (optimal, or proven
// infeasible); its time is the wall time of its whole process. Unsolved
// runs count at the time limit in the shifted geometric mean and at twice
// the time limit in PAR-2.
type AggRow struct {
	Backend string
	// Depth is the depth as a table shows it: "3", "tuned" or "all".
	Depth string
	Runs  int
	// Solved counts the proven runs; Timeouts the runs that ended without
	// a proof and without running out of memory or failing (the time
	// limit, a run killed for overrunning it, or a backend that proves
	// nothing); Memouts the runs stopped by the memory limit; Failures the
	// runs that gave no result for another reason (an error, a crash).
	Solved, Timeouts, Memouts, Failures int
	// Gaps counts the runs that stopped once their model was proven
	// within the gap they were given (status gap): neither solved nor
	// time-outs; they count at the time limit in PAR-2 and SGM, as the
	// other unsolved runs.
	Gaps int
	// PAR2 is the penalised average runtime (s): the mean of the solved
	// runs' times and twice the time limit for every other run.
	PAR2 float64
	// SGM is the shifted geometric mean of times (s), unsolved runs at
	// the time limit: exp(mean(ln(t + shift))) − shift.
	SGM float64
	// Wins counts the instances this series solved fastest (ties credit
	// every tied series); SolvedOnly the instances no other series solved.
	Wins, SolvedOnly int
	// Certified counts the runs whose result is certified (a proof
	// checked). Correct, Incorrect and Unknown count the runs by their
	// verdict against expected optima (--expect); an incorrect run is
	// counted there and not as solved, a time-out or a failure.
	Certified, Correct, Incorrect, Unknown int
}

// Clock is the time tables, aggregates and pictures count a run with.
type Clock string

const (
	// Wall is the wall time of the run's whole odt solve process.
	Wall Clock = "wall"
	// CPU is the process's user plus system CPU time, with its children
	// (external solvers).
	CPU Clock = "cpu"
)

// ParseClock reads a --time value: wall or cpu ("" is wall).
func ParseClock(s string) (Clock, error) {
	switch Clock(strings.ToLower(s)) {
	case "", Wall:
		return Wall, nil
	case CPU:
		return CPU, nil
	}
	return "", fmt.Errorf("%q: want wall or cpu", s)
}

// of is the run's time on this clock.
func (c Clock) of(r *Run) float64 {
	if c == CPU {
		return r.CPUSeconds
	}
	return r.Seconds
}

// text says what the clock's seconds are.
func (c Clock) text() string {
	if c == CPU {
		return "CPU seconds (user + system, with child processes)"
	}
	return "wall-clock seconds"
}

// solvedRun reports whether a run proved its answer (and the answer is
// not contradicted by an expected optimum).
func solvedRun(r *Run) bool {
	return r.Verdict != Incorrect && (r.Status == "infeasible" || (!r.Failed() && r.Optimal))
}

// outcome classes a run for the aggregate: solved, incorrect (against an
// expected optimum), memory-out, failed (no result for another reason
// than a limit) or time-out (no proof within the limit, or a backend
// that proves nothing).
func outcome(r *Run) string {
	switch {
	case r.Verdict == Incorrect:
		return Incorrect
	case solvedRun(r):
		return "solved"
	case r.Status == "memory-limit":
		return "memory-out"
	case r.Status == "gap" && !r.Failed():
		return "gap"
	case r.Failed() && r.Status != "killed" && r.Status != "infeasible":
		return "failed"
	}
	return "time-out"
}

// instanceKey identifies the instance a run solves: its cell without the
// series (backend, configuration, thread count).
func instanceKey(r *Run) string {
	c := r.Cell
	c.Backend, c.Config, c.Threads, c.Index = "", "", 0, 0
	return c.Key()
}

// runTime is the time a run counts with in the aggregate: its time on
// clock when solved, else the time limit (or its time when it had none).
func runTime(r *Run, clock Clock) float64 {
	if solvedRun(r) || r.TimeLimit <= 0 {
		return clock.of(r)
	}
	return r.TimeLimit
}

// Aggregate builds the aggregate table: for each series one row per depth
// and, when there are several depths, one row over all of them, then the
// virtual best solver's rows. shift is the SGM shift in seconds
// (DefaultSGMShift when ≤ 0); times are on clock.
func Aggregate(runs []Run, shift float64, clock Clock) []AggRow {
	if shift <= 0 {
		shift = DefaultSGMShift
	}
	var series []string
	for i := range runs {
		if s := runs[i].Series(); !slices.Contains(series, s) {
			series = append(series, s)
		}
	}
	// Per instance: the fastest solved time and the series that solved it.
	type inst struct {
		best   float64
		solved []string
		limit  float64
		depth  string
	}
	insts := map[string]*inst{}
	var order []string
	for i := range runs {
		r := &runs[i]
		k := instanceKey(r)
		in := insts[k]
		if in == nil {
			in = &inst{best: math.Inf(1), depth: runDepth(r)}
			insts[k] = in
			order = append(order, k)
		}
		in.limit = math.Max(in.limit, r.TimeLimit)
		if solvedRun(r) {
			in.solved = append(in.solved, r.Series())
			in.best = math.Min(in.best, clock.of(r))
		}
	}
	var depths []string
	for _, k := range order {
		if d := insts[k].depth; !slices.Contains(depths, d) {
			depths = append(depths, d)
		}
	}
	sort.Slice(depths, func(i, j int) bool { return depthLess(depths[i], depths[j]) })

	row := func(name, depth string, pick func(*Run) bool) AggRow {
		a := AggRow{Backend: name, Depth: depth}
		var tm times
		for i := range runs {
			r := &runs[i]
			if r.Series() != name || !pick(r) {
				continue
			}
			solved := solvedRun(r)
			tm.add(runTime(r, clock), solved, r.TimeLimit, shift)
			switch outcome(r) {
			case "solved":
				a.Solved++
				in := insts[instanceKey(r)]
				if clock.of(r) <= in.best*(1+1e-9) {
					a.Wins++
				}
				if len(in.solved) == 1 {
					a.SolvedOnly++
				}
			case Incorrect:
				a.Incorrect++
			case "memory-out":
				a.Memouts++
			case "gap":
				a.Gaps++
			case "failed":
				a.Failures++
			default:
				a.Timeouts++
			}
			if r.Certified {
				a.Certified++
			}
			switch r.Verdict {
			case Correct:
				a.Correct++
			case Unknown:
				a.Unknown++
			}
		}
		a.Runs, a.PAR2, a.SGM = tm.n, tm.par2(), tm.sgm(shift)
		return a
	}
	vbs := func(depth string) AggRow {
		a := AggRow{Backend: VBS, Depth: depth}
		var tm times
		for _, k := range order {
			in := insts[k]
			if depth != "all" && in.depth != depth {
				continue
			}
			if solved := len(in.solved) > 0; solved {
				a.Solved++
				a.Wins++
				tm.add(in.best, true, in.limit, shift)
			} else {
				a.Timeouts++
				tm.add(in.limit, false, in.limit, shift)
			}
		}
		a.Runs, a.PAR2, a.SGM = tm.n, tm.par2(), tm.sgm(shift)
		return a
	}
	var rows []AggRow
	for _, s := range series {
		for _, d := range depths {
			if r := row(s, d, func(r *Run) bool { return runDepth(r) == d }); r.Runs > 0 {
				rows = append(rows, r)
			}
		}
		if len(depths) > 1 {
			rows = append(rows, row(s, "all", func(*Run) bool { return true }))
		}
	}
	if len(series) > 1 {
		for _, d := range depths {
			rows = append(rows, vbs(d))
		}
		if len(depths) > 1 {
			rows = append(rows, vbs("all"))
		}
	}
	return rows
}

// times accumulates the runs of an aggregate row for PAR-2 and the
// shifted geometric mean.
type times struct {
	n              int
	parSum, logSum float64
}

// add counts a run of time t (its time when solved, else its time limit
// limit) with SGM shift.
func (tm *times) add(t float64, solved bool, limit, shift float64) {
	tm.n++
	if solved {
		tm.parSum += t
	} else {
		tm.parSum += 2 * limit
	}
	tm.logSum += math.Log(t + shift)
}

func (tm times) par2() float64 {
	if tm.n == 0 {
		return 0
	}
	return tm.parSum / float64(tm.n)
}

func (tm times) sgm(shift float64) float64 {
	if tm.n == 0 {
		return 0
	}
	return math.Exp(tm.logSum/float64(tm.n)) - shift
}

// runDepth is the run's depth as tables show it.
func runDepth(r *Run) string {
	if r.Tuned {
		return "tuned"
	}
	return depthText(r.Depth)
}

// depthLess orders depths numerically, "tuned" last.
func depthLess(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return x < y
	case errA == nil:
		return true
	case errB == nil:
		return false
	}
	return a < b
}

// aggHead is the aggregate table's header; verdict columns (correct,
// incorrect, unknown) end it when runs were checked against expected
// optima.
func aggHead(rows []AggRow) []string {
	head := []string{"backend", "depth", "runs", "solved", "timeouts", "memouts", "failures", "par2_s", "sgm_s", "wins", "solved_only", "certified"}
	if hasGaps(rows) {
		head = append(head, "gaps")
	}
	if hasVerdicts(rows) {
		head = append(head, "correct", "incorrect", "unknown")
	}
	return head
}

// hasGaps reports whether any run of rows stopped within its gap.
func hasGaps(rows []AggRow) bool {
	return slices.ContainsFunc(rows, func(a AggRow) bool { return a.Gaps > 0 })
}

// hasVerdicts reports whether any run of rows was checked against an
// expected optimum.
func hasVerdicts(rows []AggRow) bool {
	return slices.ContainsFunc(rows, func(a AggRow) bool { return a.Correct+a.Incorrect+a.Unknown > 0 })
}

// aggRows renders rows with times formatted by sec.
func aggRows(rows []AggRow, sec func(float64) string) [][]string {
	verdicts, gaps := hasVerdicts(rows), hasGaps(rows)
	out := make([][]string, len(rows))
	for i, a := range rows {
		row := []string{a.Backend, a.Depth, strconv.Itoa(a.Runs), strconv.Itoa(a.Solved), strconv.Itoa(a.Timeouts),
			strconv.Itoa(a.Memouts), strconv.Itoa(a.Failures), sec(a.PAR2), sec(a.SGM), strconv.Itoa(a.Wins), strconv.Itoa(a.SolvedOnly),
			strconv.Itoa(a.Certified)}
		if gaps {
			row = append(row, strconv.Itoa(a.Gaps))
		}
		if verdicts {
			row = append(row, strconv.Itoa(a.Correct), strconv.Itoa(a.Incorrect), strconv.Itoa(a.Unknown))
		}
		if a.Backend == VBS {
			for j := 11; j < len(row); j++ {
				row[j] = "-"
			}
		}
		out[i] = row
	}
	return out
}

// fullSec writes seconds at full precision (the CSV).
func fullSec(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// roundSec writes seconds rounded for reading: three significant digits,
// at least millisecond resolution.
func roundSec(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case x >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// WriteAggregateCSV writes the aggregate table as CSV at full precision.
func WriteAggregateCSV(w io.Writer, rows []AggRow) error {
	cw := csv.NewWriter(w)
	cw.Write(aggHead(rows))
	cw.WriteAll(aggRows(rows, fullSec))
	return cw.Error()
}

// aggNote explains the aggregate's columns.
func aggNote(shift float64, clock Clock) string {
	return fmt.Sprintf("solved = proven; times in %s; par2_s: unsolved at 2 × the time limit; sgm_s: shifted geometric mean, shift %s s, unsolved at the limit; certified: runs whose proof was checked",
		clock.text(), fullSec(shift))
}

// WriteAggregateText writes the aggregate table with aligned columns.
func WriteAggregateText(w io.Writer, rows []AggRow, shift float64, clock Clock) error {
	var sb strings.Builder
	writeAligned(&sb, aggHead(rows), aggRows(rows, roundSec))
	fmt.Fprintf(&sb, "(%s)\n", aggNote(shift, clock))
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteAggregateMarkdown writes the aggregate table as a Markdown table.
func WriteAggregateMarkdown(w io.Writer, rows []AggRow, shift float64, clock Clock) error {
	var sb strings.Builder
	writeMarkdownTable(&sb, aggHead(rows), aggRows(rows, roundSec))
	fmt.Fprintf(&sb, "\n%s.\n", aggNote(shift, clock))
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeMarkdownTable writes head and rows as a Markdown table, every
// cell escaped (mdEscape).
func writeMarkdownTable(sb *strings.Builder, head []string, rows [][]string) {
	line := func(cells []string) {
		sb.WriteString("|")
		for _, c := range cells {
			sb.WriteString(" " + mdEscape(c) + " |")
		}
		sb.WriteString("\n")
	}
	line(head)
	sb.WriteString("|" + strings.Repeat("---|", len(head)) + "\n")
	for _, r := range rows {
		line(r)
	}
}

// mdEscaper escapes text for Markdown: the HTML a renderer would pass
// through (&, <, >) as entities, the table's cell separator (|) with a
// backslash, and line breaks (which would end a table row) as spaces.
var mdEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

// mdEscape escapes s for a Markdown file (see mdEscaper).
func mdEscape(s string) string { return mdEscaper.Replace(s) }

// latexEscape escapes the characters LaTeX treats specially.
func latexEscape(s string) string {
	r := strings.NewReplacer(`\`, `\textbackslash{}`, "_", `\_`, "%", `\%`, "&", `\&`, "#", `\#`, "$", `\$`, "{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)
	return r.Replace(s)
}

// WriteAggregateLaTeX writes the aggregate table as a booktabs table.
func WriteAggregateLaTeX(w io.Writer, rows []AggRow, shift float64, clock Clock) error {
	return writeLaTeXTable(w, aggHead(rows), aggRows(rows, roundSec), fmt.Sprintf(
		"Per series and depth: runs, proven (solved), time-outs, memory-outs, failures, PAR-2 (unsolved at twice the time limit), shifted geometric mean of times (shift %s s, unsolved at the limit), instances solved fastest (wins) and by this series only, certified runs; times in %s.", fullSec(shift), clock.text()), true)
}
