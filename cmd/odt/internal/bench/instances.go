package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
)

// InstanceTable is the wide per-instance table: one row per data set and
// depth (and objective, when the grid mixes them), and for each series
// its objective, bound, status and time there (over repeats: the best
// objective and bound, the statuses met, the mean time).
type InstanceTable struct {
	// Series are the column groups, in the grid's order.
	Series []string
	// Mixed says the rows differ in objective (a problem column).
	Mixed bool
	Rows  []InstanceRow
	// Clock is the time the Time fields are on.
	Clock Clock
}

// InstanceRow is one instance of the wide table; Cells[i] is Series[i]'s
// (nil where the series did not run it).
type InstanceRow struct {
	Dataset, Depth, Problem string
	Cells                   []*Entry
}

// Instances builds the wide table from the summary's entries.
func Instances(s Summary, clock Clock) InstanceTable {
	t := InstanceTable{Series: s.Backends, Clock: clock}
	t.Mixed = slices.ContainsFunc(s.Entries, func(e Entry) bool { return e.ObjectiveName != s.Entries[0].ObjectiveName })
	index := map[string]int{}
	for i := range s.Entries {
		e := &s.Entries[i]
		k := e.Dataset + "\x00" + depthLabel(*e) + "\x00" + e.ObjectiveName
		r, ok := index[k]
		if !ok {
			r = len(t.Rows)
			index[k] = r
			t.Rows = append(t.Rows, InstanceRow{Dataset: e.Dataset, Depth: depthLabel(*e), Problem: e.ObjectiveName, Cells: make([]*Entry, len(t.Series))})
		}
		if j := slices.Index(t.Series, e.series()); j >= 0 {
			t.Rows[r].Cells[j] = e
		}
	}
	return t
}

// instanceFields are the fields of each series in the wide table.
var instanceFields = []string{"objective", "bound", "status", "time"}

// time is the entry's mean time on the clock.
func (t InstanceTable) time(e *Entry) float64 {
	if t.Clock == CPU {
		return e.CPUSeconds
	}
	return e.WallSeconds
}

// rows renders the table: the header (one column per series and field)
// and string rows, numbers written by num and times by sec; status
// names are passed through statusText.
func (t InstanceTable) rows(num, sec func(float64) string, statusText func(string) string) ([]string, [][]string) {
	timeName := "time_s"
	if t.Clock == CPU {
		timeName = "cpu_s"
	}
	head := []string{"dataset", "depth"}
	if t.Mixed {
		head = append(head, "problem")
	}
	for _, s := range t.Series {
		for _, f := range instanceFields {
			if f == "time" {
				f = timeName
			}
			head = append(head, s+" "+f)
		}
	}
	var out [][]string
	for _, r := range t.Rows {
		row := []string{r.Dataset, r.Depth}
		if t.Mixed {
			row = append(row, orDash(r.Problem))
		}
		for _, e := range r.Cells {
			if e == nil {
				row = append(row, "-", "-", "-", "-")
				continue
			}
			var st []string
			for _, s := range e.Statuses {
				st = append(st, statusText(s))
			}
			row = append(row, num(e.Objective), num(e.Bound), strings.Join(st, ","), sec(t.time(e)))
		}
		out = append(out, row)
	}
	return head, out
}

func sameText(s string) string { return s }

// WriteCSV writes the wide table as CSV at full precision.
func (t InstanceTable) WriteCSV(w io.Writer) error {
	head, rows := t.rows(fmtNum, fullSec, sameText)
	cw := csv.NewWriter(w)
	cw.Write(head)
	cw.WriteAll(rows)
	return cw.Error()
}

// WriteMarkdown writes the wide table as Markdown.
func (t InstanceTable) WriteMarkdown(w io.Writer) error {
	head, rows := t.rows(roundNum, roundSec, sameText)
	var sb strings.Builder
	writeMarkdownTable(&sb, head, rows)
	fmt.Fprintf(&sb, "\nPer instance and series: best objective and lower bound over the repeats, the statuses, the mean time in %s.\n", t.Clock.text())
	_, err := io.WriteString(w, sb.String())
	return err
}

// shortStatus abbreviates statuses for the LaTeX table (the caption
// spells them out).
func shortStatus(s string) string {
	switch s {
	case "optimal":
		return "opt"
	case "time-limit":
		return "TL"
	case "memory-limit":
		return "ML"
	case "infeasible":
		return "inf"
	case "feasible":
		return "feas"
	case "failed":
		return "fail"
	case "killed":
		return "kill"
	case "crashed":
		return "crash"
	case "cancelled":
		return "canc"
	case "no-solution":
		return "none"
	}
	return s
}

// WriteLaTeX writes the wide table as a booktabs table: a column group
// per series (objective, bound, status, time), numbers aligned on the
// decimal point by siunitx.
func (t InstanceTable) WriteLaTeX(w io.Writer) error {
	_, rows := t.rows(roundNum, roundSec, shortStatus)
	lead := 2
	if t.Mixed {
		lead = 3
	}
	var cols []latexColumn
	for j := 0; j < lead; j++ {
		cols = append(cols, latexColumn{spec: "l"})
	}
	for j := lead; j < lead+4*len(t.Series); j++ {
		if (j-lead)%4 == 2 {
			cols = append(cols, latexColumn{spec: "l"})
			continue
		}
		cols = append(cols, numericColumn(rows, j))
	}
	var sb strings.Builder
	sb.WriteString("% needs \\usepackage{booktabs} and \\usepackage{siunitx}; with many series, wrap the tabular in\n" +
		"% \\resizebox{\\textwidth}{!}{...} (\\usepackage{graphicx}) or use a landscape page\n\\begin{table}\n\\centering\n\\small\n")
	sb.WriteString("\\begin{tabular}{")
	for _, c := range cols {
		sb.WriteString(c.spec)
	}
	sb.WriteString("}\n\\toprule\n")
	// First header row: the series over their four columns.
	groups := make([]string, lead)
	var rules []string
	for i, s := range t.Series {
		groups = append(groups, fmt.Sprintf("\\multicolumn{4}{c}{%s}", latexEscape(s)))
		from := lead + 4*i + 1
		rules = append(rules, fmt.Sprintf("\\cmidrule(lr){%d-%d}", from, from+3))
	}
	sb.WriteString(strings.Join(groups, " & ") + " \\\\\n" + strings.Join(rules, " ") + "\n")
	sub := []string{"Data set", "Depth"}
	if t.Mixed {
		sub = append(sub, "Problem")
	}
	timeHead := "{Time (s)}"
	if t.Clock == CPU {
		timeHead = "{CPU (s)}"
	}
	for range t.Series {
		sub = append(sub, "{Obj.}", "{Bound}", "Status", timeHead)
	}
	sb.WriteString(strings.Join(sub, " & ") + " \\\\\n\\midrule\n")
	for _, r := range rows {
		writeLaTeXRow(&sb, cols, r)
	}
	fmt.Fprintf(&sb, "\\bottomrule\n\\end{tabular}\n\\caption{%s}\n\\end{table}\n", latexEscape(fmt.Sprintf(
		"Per instance and series: best objective and lower bound over the repeats, status (opt: proven optimal, TL: time limit, ML: memory limit, inf: proven infeasible, feas: feasible, unproven) and mean time in %s.", t.Clock.text())))
	_, err := io.WriteString(w, sb.String())
	return err
}

// latexColumn is how a LaTeX table sets a column: its tabular spec (l,
// r, or an siunitx S column with its table-format).
type latexColumn struct {
	spec    string
	numeric bool
}

// numericColumn is an S column sized for the numbers of column j of
// rows, or an l column when some cell is not a number or "-".
func numericColumn(rows [][]string, j int) latexColumn {
	intDigits, decimals, negative, any := 1, 0, false, false
	for _, r := range rows {
		v := r[j]
		if v == "-" {
			continue
		}
		if !plainNumber(v) {
			return latexColumn{spec: "l"}
		}
		any = true
		if strings.HasPrefix(v, "-") {
			negative, v = true, v[1:]
		}
		whole, frac, _ := strings.Cut(v, ".")
		intDigits, decimals = max(intDigits, len(whole)), max(decimals, len(frac))
	}
	if !any {
		return latexColumn{spec: "l"}
	}
	format := fmt.Sprintf("%d.%d", intDigits, decimals)
	if negative {
		format = "-" + format
	}
	return latexColumn{spec: "S[table-format=" + format + "]", numeric: true}
}

// plainNumber reports whether s is a decimal number without exponent.
func plainNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" {
		return false
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// writeLaTeXRow writes one row: numbers as they are in S columns (a "-"
// there as a braced dash), other text escaped.
func writeLaTeXRow(sb *strings.Builder, cols []latexColumn, row []string) {
	cells := make([]string, len(row))
	for j, v := range row {
		switch {
		case cols[j].numeric && v == "-":
			cells[j] = "{--}"
		case cols[j].numeric:
			cells[j] = v
		default:
			cells[j] = latexEscape(v)
		}
	}
	sb.WriteString(strings.Join(cells, " & ") + " \\\\\n")
}

// latexHeads are the readable headers of the LaTeX tables for the
// identifiers of the CSV columns.
var latexHeads = map[string]string{
	"backend": "Series", "depth": "Depth", "runs": "Runs", "solved": "Solved", "timeouts": "Time-outs",
	"memouts": "Mem.-outs", "failures": "Failures", "par2_s": "PAR-2 (s)", "sgm_s": "SGM (s)", "wins": "Wins",
	"solved_only": "Only solver", "certified": "Certified", "correct": "Correct", "incorrect": "Incorrect", "unknown": "Unknown",
	"dataset": "Data set", "threads": "Threads", "problem": "Problem", "objective": "Objective", "bound": "Bound",
	"optimal": "Proven", "proof_s": "Proof (s)", "primal_integral": "Primal integral (s)", "primal_gap": "Primal gap",
	"wall_s": "Wall (s)", "cpu_s": "CPU (s)", "peak_mb": "Peak (MiB)", "status": "Status", "expected": "Expected", "verdict": "Verdict",
}

// latexHead is the readable header of a column identifier (the
// identifier, escaped, when it has none).
func latexHead(id string) string {
	if h, ok := latexHeads[id]; ok {
		return h
	}
	return latexEscape(id)
}

// writeLaTeXTable writes a booktabs table with readable headers: text
// columns left aligned, number columns aligned on the decimal point
// (siunitx S columns), a rule between groups of rows when the first
// column changes and groups is set.
func writeLaTeXTable(w io.Writer, head []string, rows [][]string, caption string, groups bool) error {
	cols := make([]latexColumn, len(head))
	for j := range head {
		cols[j] = latexColumn{spec: "l"}
		if j >= 2 {
			cols[j] = numericColumn(rows, j)
		}
	}
	var sb strings.Builder
	sb.WriteString("% needs \\usepackage{booktabs} and \\usepackage{siunitx}\n\\begin{table}\n\\centering\n\\small\n\\begin{tabular}{")
	for _, c := range cols {
		sb.WriteString(c.spec)
	}
	sb.WriteString("}\n\\toprule\n")
	hs := make([]string, len(head))
	for j, h := range head {
		hs[j] = latexHead(h)
		if cols[j].numeric {
			hs[j] = "{" + hs[j] + "}"
		}
	}
	sb.WriteString(strings.Join(hs, " & ") + " \\\\\n\\midrule\n")
	for i, r := range rows {
		if groups && i > 0 && r[0] != rows[i-1][0] {
			sb.WriteString("\\midrule\n")
		}
		writeLaTeXRow(&sb, cols, r)
	}
	fmt.Fprintf(&sb, "\\bottomrule\n\\end{tabular}\n\\caption{%s}\n\\end{table}\n", latexEscape(caption))
	_, err := io.WriteString(w, sb.String())
	return err
}
