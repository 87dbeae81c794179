package milp

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
)

// LPName is the name a column or row of m gets in a CPLEX LP file: the
// model's name when it is a valid LP name, otherwise that name with '-'
// written as "m", '+' as "p" and any other character LP names cannot
// hold as '_' (and "n_" in front of a name that could read as a number:
// a leading digit or '.', or an 'e' or 'E' alone or before a digit).
// ReadSolution accepts either name.
func LPName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-':
			b.WriteByte('m')
		case c == '+':
			b.WriteByte('p')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			strings.IndexByte("!\"#$%&()/,.;?@_`'{}|~", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	r := b.String()
	// No name may read as a number (12, .5, e3).
	if r == "" || strings.IndexByte("0123456789.", r[0]) >= 0 ||
		(r[0] == 'e' || r[0] == 'E') && (len(r) == 1 || strings.IndexByte("0123456789.", r[1]) >= 0) {
		r = "n_" + r
	}
	return r
}

// lpTermsPerLine keeps LP lines short (some readers limit line length).
const lpTermsPerLine = 8

// WriteLP writes m in CPLEX LP format, for people to read and for HiGHS,
// CBC and GLPK (glpsol --lp) to solve. Rows and columns keep their names
// (see LPName); every column appears in the objective, in model order
// (with a zero coefficient where it has none), so that solvers number
// the columns as the model does and a solution file reads back with
// ReadSolution. A row with two different finite bounds is written as two
// rows, NAME_lo and NAME_hi. The objective's constant offset is left out
// (GLPK's reader takes none), stated in a comment. Comments are written
// as '\' lines at the top.
func WriteLP(w io.Writer, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if len(m.Columns) == 0 {
		return fmt.Errorf("milp: model has no columns")
	}
	bw := bufio.NewWriter(w)
	for _, c := range m.Comments {
		for _, l := range strings.Split(c, "\n") {
			fmt.Fprintf(bw, "\\ %s\n", l)
		}
	}
	if m.Name != "" {
		fmt.Fprintf(bw, "\\ model %s\n", m.Name)
	}
	cols := make([]string, len(m.Columns))
	used := map[string]bool{}
	unique := func(s string) string {
		n, k := s, 1
		for used[n] {
			k++
			n = fmt.Sprintf("%s~%d", s, k)
		}
		used[n] = true
		return n
	}
	for j, c := range m.Columns {
		cols[j] = unique(LPName(c.Name))
	}
	if m.Offset != 0 {
		// GLPK's LP reader takes no constant in the objective (CBC's
		// drops it): the solvers' objective values lack it.
		fmt.Fprintf(bw, "\\ objective constant %s, left out: add it to the solver's objective value\n", fmtFloat(m.Offset))
	}
	if m.Sense == Maximize {
		bw.WriteString("Maximize\n")
	} else {
		bw.WriteString("Minimize\n")
	}
	obj := m.ObjName
	if obj == "" {
		obj = "obj"
	}
	fmt.Fprintf(bw, " %s:", unique(LPName(obj)))
	for j, c := range m.Columns {
		if j > 0 && j%lpTermsPerLine == 0 {
			bw.WriteString("\n   ")
		}
		writeTerm(bw, c.Cost, cols[j])
	}
	bw.WriteString("\nSubject To\n")
	written := 0
	for _, r := range m.Rows {
		if !math.IsInf(r.Lower, -1) || !math.IsInf(r.Upper, 1) {
			written++
		}
	}
	if written == 0 {
		// GLPK's reader wants a constraint: one that holds always.
		fmt.Fprintf(bw, " %s: 0 %s >= 0\n", unique("no_rows"), cols[0])
	}
	for _, r := range m.Rows {
		name := LPName(r.Name)
		switch {
		case r.Lower == r.Upper:
			writeRow(bw, unique(name), r, cols, "=", r.Lower)
		case math.IsInf(r.Lower, -1) && math.IsInf(r.Upper, 1):
			// A free row constrains nothing: written as ≥ −1e30 would be
			// noise; keep it readable as a comment.
			fmt.Fprintf(bw, "\\ %s: free row\n", name)
		case math.IsInf(r.Lower, -1):
			writeRow(bw, unique(name), r, cols, "<=", r.Upper)
		case math.IsInf(r.Upper, 1):
			writeRow(bw, unique(name), r, cols, ">=", r.Lower)
		default:
			writeRow(bw, unique(name+"_lo"), r, cols, ">=", r.Lower)
			writeRow(bw, unique(name+"_hi"), r, cols, "<=", r.Upper)
		}
	}
	bw.WriteString("Bounds\n")
	var bins, gens []string
	for j, c := range m.Columns {
		if c.Integer && c.Lower == 0 && c.Upper == 1 {
			bins = append(bins, cols[j])
			continue
		}
		if c.Integer {
			gens = append(gens, cols[j])
		}
		lo, up := c.Lower, c.Upper
		switch {
		case lo == 0 && math.IsInf(up, 1):
			// the LP default
		case math.IsInf(lo, -1) && math.IsInf(up, 1):
			fmt.Fprintf(bw, " %s free\n", cols[j])
		case lo == up:
			fmt.Fprintf(bw, " %s = %s\n", cols[j], fmtFloat(lo))
		case math.IsInf(up, 1):
			fmt.Fprintf(bw, " %s >= %s\n", cols[j], fmtFloat(lo))
		case math.IsInf(lo, -1):
			fmt.Fprintf(bw, " -inf <= %s <= %s\n", cols[j], fmtFloat(up))
		default:
			fmt.Fprintf(bw, " %s <= %s <= %s\n", fmtFloat(lo), cols[j], fmtFloat(up))
		}
	}
	writeList(bw, "Binaries", bins)
	writeList(bw, "Generals", gens)
	bw.WriteString("End\n")
	return bw.Flush()
}

func writeTerm(w *bufio.Writer, v float64, name string) {
	switch {
	case v < 0:
		fmt.Fprintf(w, " - %s %s", fmtFloat(-v), name)
	default:
		fmt.Fprintf(w, " + %s %s", fmtFloat(v), name)
	}
}

func writeRow(w *bufio.Writer, name string, r Row, cols []string, op string, rhs float64) {
	fmt.Fprintf(w, " %s:", name)
	if len(r.Index) == 0 {
		// An empty row still needs a term: 0 times the first column.
		fmt.Fprintf(w, " 0 %s", cols[0])
	}
	for k, j := range r.Index {
		if k > 0 && k%lpTermsPerLine == 0 {
			w.WriteString("\n   ")
		}
		writeTerm(w, r.Value[k], cols[j])
	}
	fmt.Fprintf(w, " %s %s\n", op, fmtFloat(rhs))
}

func writeList(w *bufio.Writer, head string, names []string) {
	if len(names) == 0 {
		return
	}
	w.WriteString(head + "\n")
	for i, n := range names {
		if i%lpTermsPerLine == 0 {
			if i > 0 {
				w.WriteString("\n")
			}
			w.WriteString(" ")
		}
		w.WriteString(" " + n)
	}
	w.WriteString("\n")
}

// Write writes m in a named format: "mps" (WriteMPS) or "lp" (WriteLP).
func Write(w io.Writer, m *Model, format string) error {
	switch format {
	case "mps":
		return WriteMPS(w, m)
	case "lp":
		return WriteLP(w, m)
	}
	return fmt.Errorf("milp: unknown format %q (want mps or lp)", format)
}
