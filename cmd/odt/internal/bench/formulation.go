package bench

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Formulation is the size of the formulation a run solved, as its
// backend reported it (SAT: variables and clauses; MILP: columns, rows,
// non-zeros and the root LP bound), the size of its proof and the time
// to check it when the result has them, and, with --export-sizes, the
// size of the same cell's formulation as exported. Fields a backend does
// not report are nil.
type Formulation struct {
	Variables         *float64  `json:"variables,omitempty"`
	Clauses           *float64  `json:"clauses,omitempty"`
	Columns           *float64  `json:"columns,omitempty"`
	Rows              *float64  `json:"rows,omitempty"`
	Nonzeros          *float64  `json:"nonzeros,omitempty"`
	RootBound         *float64  `json:"root_bound,omitempty"`
	ProofBytes        *float64  `json:"proof_bytes,omitempty"`
	ProofCheckSeconds *float64  `json:"proof_check_seconds,omitempty"`
	Exported          *Exported `json:"exported,omitempty"`
}

// formulationOf reads a result's statistics; nil when it reports none.
func formulationOf(stats map[string]any) *Formulation {
	num := func(keys ...string) *float64 {
		for _, k := range keys {
			switch v := stats[k].(type) {
			case float64:
				return &v
			case int:
				f := float64(v)
				return &f
			}
		}
		return nil
	}
	f := &Formulation{
		Variables: num("variables"), Clauses: num("clauses"),
		Columns: num("columns"), Rows: num("rows"), Nonzeros: num("nonzeros"),
		RootBound:  num("root_bound", "root_lp_bound", "lp_bound"),
		ProofBytes: num("proof_bytes"), ProofCheckSeconds: num("proof_check_seconds"),
	}
	if *f == (Formulation{}) {
		return nil
	}
	return f
}

// formulationHead names the fields of a formulation row.
var formulationHead = []string{"variables", "clauses", "columns", "rows", "nonzeros", "root_bound", "proof_bytes", "proof_check_s"}

// nFields is the number of fields of a formulation row.
const nFields = 8

// solvedFields are the run's fields as its backend reported them, and
// whether the run built no formula (every size reported is zero: the
// backend answered without one, e.g. a zero-error tree found first).
func (f *Formulation) solvedFields() (fields [nFields]*float64, trivial bool) {
	fields = [nFields]*float64{f.Variables, f.Clauses, f.Columns, f.Rows, f.Nonzeros, f.RootBound, f.ProofBytes, f.ProofCheckSeconds}
	sizes, zero := 0, 0
	for _, v := range fields[:5] {
		if v != nil {
			sizes++
			if *v == 0 {
				zero++
			}
		}
	}
	return fields, sizes > 0 && zero == sizes
}

// exportedFields are the exported file's sizes in the columns of its
// kind of format: variables and clauses (constraints) of SAT formats,
// columns, rows and non-zeros of MILP ones.
func (e *Exported) exportedFields() [nFields]*float64 {
	var fields [nFields]*float64
	switch e.Format {
	case "mps", "lp":
		fields[2], fields[3], fields[4] = e.Variables, e.Constraints, e.Nonzeros
	default:
		fields[0], fields[1] = e.Variables, e.Constraints
	}
	return fields
}

// FormulationRow summarises the formulation sizes of one series at one
// depth in one view ("solved": as the backend reported the formula it
// solved; "exported FORMAT": the file odt export writes): the mean and
// the largest of each field over the runs that reported it (NaN when
// none did). Trivial counts the runs that built no formula, left out of
// the means.
type FormulationRow struct {
	Backend, Depth, View string
	Runs, Trivial        int
	Mean, Max            [nFields]float64
}

// FormulationTable summarises formulation sizes per series, depth and
// view; nil when no run reported a size.
func FormulationTable(runs []Run) []FormulationRow {
	type key struct{ series, depth, view string }
	var order []key
	sums := map[key]*[nFields][]float64{}
	trivial := map[key]int{}
	add := func(k key, fields [nFields]*float64, isTrivial bool) {
		if sums[k] == nil {
			sums[k] = &[nFields][]float64{}
			order = append(order, k)
		}
		if isTrivial {
			trivial[k]++
			return
		}
		for j, v := range fields {
			if v != nil {
				sums[k][j] = append(sums[k][j], *v)
			}
		}
	}
	for i := range runs {
		r := &runs[i]
		f := r.Formulation
		if f == nil {
			continue
		}
		fields, isTrivial := f.solvedFields()
		if slices.ContainsFunc(fields[:], func(v *float64) bool { return v != nil }) {
			add(key{r.Series(), runDepth(r), "solved"}, fields, isTrivial)
		}
		if e := f.Exported; e != nil && e.Message == "" {
			add(key{r.Series(), runDepth(r), "exported " + e.Format}, e.exportedFields(), isTrivial)
		}
	}
	var rows []FormulationRow
	for _, k := range order {
		row := FormulationRow{Backend: k.series, Depth: k.depth, View: k.view, Trivial: trivial[k]}
		for j, vs := range sums[k] {
			row.Runs = max(row.Runs, len(vs))
			row.Mean[j], row.Max[j] = math.NaN(), math.NaN()
			if len(vs) > 0 {
				s := 0.0
				for _, v := range vs {
					s += v
				}
				row.Mean[j], row.Max[j] = s/float64(len(vs)), slices.Max(vs)
			}
		}
		rows = append(rows, row)
	}
	first := map[string]int{}
	for i, k := range order {
		if _, ok := first[k.series]; !ok {
			first[k.series] = i
		}
	}
	slices.SortStableFunc(rows, func(a, b FormulationRow) int {
		switch {
		case first[a.Backend] != first[b.Backend]:
			return first[a.Backend] - first[b.Backend]
		case depthLess(a.Depth, b.Depth):
			return -1
		case depthLess(b.Depth, a.Depth):
			return 1
		}
		return strings.Compare(a.View, b.View) * -1 // solved before exported
	})
	return rows
}

// formulationRows renders the table, leaving out the fields no row has.
func formulationRows(rows []FormulationRow, num func(float64) string) ([]string, [][]string) {
	head := []string{"backend", "depth", "view", "runs", "trivial"}
	var used []int
	for j, h := range formulationHead {
		if slices.ContainsFunc(rows, func(r FormulationRow) bool { return !math.IsNaN(r.Mean[j]) }) {
			used = append(used, j)
			head = append(head, h+"_mean", h+"_max")
		}
	}
	var out [][]string
	for _, r := range rows {
		row := []string{r.Backend, r.Depth, r.View, strconv.Itoa(r.Runs), strconv.Itoa(r.Trivial)}
		for _, j := range used {
			row = append(row, num(r.Mean[j]), num(r.Max[j]))
		}
		out = append(out, row)
	}
	return head, out
}

// formulationNote says what the formulation table measures.
const formulationNote = "view solved: the formula the backend solved, as it reports it (sat-odt: its in-process formula with per-leaf counters); " +
	"view exported FORMAT: the file odt export writes for the same cell (--export-sizes); " +
	"runs: runs in the means; trivial: runs that built no formula (every size zero), left out of the means"

// WriteFormulationCSV writes the formulation table as CSV at full precision.
func WriteFormulationCSV(w io.Writer, rows []FormulationRow) error {
	head, out := formulationRows(rows, fmtNum)
	cw := csv.NewWriter(w)
	cw.Write(head)
	cw.WriteAll(out)
	return cw.Error()
}

// WriteFormulationText writes the formulation table with aligned columns.
func WriteFormulationText(w io.Writer, rows []FormulationRow) error {
	head, out := formulationRows(rows, roundNum)
	var sb strings.Builder
	writeAligned(&sb, head, out)
	sb.WriteString("(" + formulationNote + ")\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteFormulationMarkdown writes the formulation table as Markdown.
func WriteFormulationMarkdown(w io.Writer, rows []FormulationRow) error {
	head, out := formulationRows(rows, roundNum)
	var sb strings.Builder
	writeMarkdownTable(&sb, head, out)
	sb.WriteString("\n" + formulationNote + ".\n")
	_, err := io.WriteString(w, sb.String())
	return err
}
