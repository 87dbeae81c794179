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
// non-zeros and the root LP bound). Fields a backend does not report are
// nil.
type Formulation struct {
	Variables *float64 `json:"variables,omitempty"`
	Clauses   *float64 `json:"clauses,omitempty"`
	Columns   *float64 `json:"columns,omitempty"`
	Rows      *float64 `json:"rows,omitempty"`
	Nonzeros  *float64 `json:"nonzeros,omitempty"`
	RootBound *float64 `json:"root_bound,omitempty"`
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
		RootBound: num("root_bound", "root_lp_bound", "lp_bound"),
	}
	if *f == (Formulation{}) {
		return nil
	}
	return f
}

func (f *Formulation) fields() []*float64 {
	return []*float64{f.Variables, f.Clauses, f.Columns, f.Rows, f.Nonzeros, f.RootBound}
}

var formulationHead = []string{"variables", "clauses", "columns", "rows", "nonzeros", "root_bound"}

// FormulationRow summarises the formulation sizes of one series at one
// depth: the mean and the largest of each field over the runs that
// reported it (NaN when none did).
type FormulationRow struct {
	Backend, Depth string
	Runs           int
	Mean, Max      [6]float64
}

// FormulationTable summarises formulation sizes per series and depth;
// nil when no run reported a size.
func FormulationTable(runs []Run) []FormulationRow {
	type key struct{ series, depth string }
	var order []key
	sums := map[key]*[6][]float64{}
	for i := range runs {
		r := &runs[i]
		if r.Formulation == nil {
			continue
		}
		k := key{r.Series(), runDepth(r)}
		if sums[k] == nil {
			sums[k] = &[6][]float64{}
			order = append(order, k)
		}
		for j, v := range r.Formulation.fields() {
			if v != nil {
				sums[k][j] = append(sums[k][j], *v)
			}
		}
	}
	var rows []FormulationRow
	for _, k := range order {
		row := FormulationRow{Backend: k.series, Depth: k.depth}
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
		return 0
	})
	return rows
}

// formulationRows renders the table, leaving out the fields no row has.
func formulationRows(rows []FormulationRow, num func(float64) string) ([]string, [][]string) {
	head := []string{"backend", "depth", "runs"}
	var used []int
	for j, h := range formulationHead {
		if slices.ContainsFunc(rows, func(r FormulationRow) bool { return !math.IsNaN(r.Mean[j]) }) {
			used = append(used, j)
			head = append(head, h+"_mean", h+"_max")
		}
	}
	var out [][]string
	for _, r := range rows {
		row := []string{r.Backend, r.Depth, strconv.Itoa(r.Runs)}
		for _, j := range used {
			row = append(row, num(r.Mean[j]), num(r.Max[j]))
		}
		out = append(out, row)
	}
	return head, out
}

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
	_, err := io.WriteString(w, sb.String())
	return err
}

// WriteFormulationMarkdown writes the formulation table as Markdown.
func WriteFormulationMarkdown(w io.Writer, rows []FormulationRow) error {
	head, out := formulationRows(rows, roundNum)
	var sb strings.Builder
	writeMarkdownTable(&sb, head, out)
	_, err := io.WriteString(w, sb.String())
	return err
}
