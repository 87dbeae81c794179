package sat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WeightedLit is a soft literal of an objective: making Lit true costs
// Weight.
type WeightedLit struct {
	Lit    Lit
	Weight int64
}

// writeHeader writes the formula's comments and variable groups with
// the given comment prefix ("c" for WCNF, "*" for OPB).
func (c *CNF) writeHeader(bw *bufio.Writer, prefix string) {
	for _, line := range c.Comments {
		for l := range strings.SplitSeq(line, "\n") {
			fmt.Fprintf(bw, "%s %s\n", prefix, l)
		}
	}
	for _, g := range c.Groups {
		shape := make([]string, len(g.Shape))
		for i, s := range g.Shape {
			shape[i] = strconv.Itoa(s)
		}
		sh := strings.Join(shape, "x")
		if sh == "" {
			sh = "-"
		}
		fmt.Fprintf(bw, "%s %s%s %d..%d %s %s\n", prefix, groupPrefix, g.Name, g.First, g.First+g.Count-1, sh, strings.ReplaceAll(g.Meaning, "\n", " "))
	}
}

// WriteWCNF writes the clauses as hard clauses and each soft literal as
// a soft unit clause of its negation (the cost is paid when the literal
// is true), in weighted MaxSAT format: the classic form with the header
// "p wcnf VARS CLAUSES TOP" and every clause prefixed by its weight
// (TOP for a hard clause) when classic, else the form of the MaxSAT
// evaluations since 2022 (no header; "h" before a hard clause, the
// weight before a soft one).
func (c *CNF) WriteWCNF(w io.Writer, soft []WeightedLit, classic bool) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	c.writeHeader(bw, "c")
	var top int64 = 1
	for _, s := range soft {
		if s.Weight <= 0 {
			return fmt.Errorf("sat: soft literal %d has weight %d", s.Lit, s.Weight)
		}
		top += s.Weight
	}
	hard := "h"
	if classic {
		fmt.Fprintf(bw, "p wcnf %d %d %d\n", c.NumVars, c.NumClauses()+len(soft), top)
		hard = strconv.FormatInt(top, 10)
	}
	buf := make([]byte, 0, 4096)
	for i := range c.NumClauses() {
		buf = append(buf[:0], hard...)
		for _, l := range c.Clause(i) {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(l), 10)
		}
		buf = append(buf, " 0\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	for _, s := range soft {
		fmt.Fprintf(bw, "%d %d 0\n", s.Weight, -s.Lit)
	}
	return bw.Flush()
}

// WriteOPB writes the clauses as linear constraints and the soft
// literals as the objective "min: w x ..." in the pseudo-Boolean
// competition format (variable v is xv). A clause with negated literals
// is written over positive literals only (¬x = 1 − x moves to the right
// side), which every PB solver reads.
func (c *CNF) WriteOPB(w io.Writer, soft []WeightedLit) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "* #variable= %d #constraint= %d\n", c.NumVars, c.NumClauses())
	c.writeHeader(bw, "*")
	bw.WriteString("min:")
	for _, s := range soft {
		if s.Weight <= 0 {
			return fmt.Errorf("sat: soft literal %d has weight %d", s.Lit, s.Weight)
		}
		if s.Lit > 0 {
			fmt.Fprintf(bw, " +%d x%d", s.Weight, s.Lit)
		} else {
			// w·¬x = w − w·x: the constant changes no optimum's model.
			fmt.Fprintf(bw, " -%d x%d", s.Weight, -s.Lit)
		}
	}
	bw.WriteString(" ;\n")
	buf := make([]byte, 0, 4096)
	for i := range c.NumClauses() {
		buf = buf[:0]
		rhs := 1
		for _, l := range c.Clause(i) {
			if l > 0 {
				buf = append(buf, "+1 x"...)
			} else {
				buf = append(buf, "-1 x"...)
				rhs--
			}
			buf = strconv.AppendInt(buf, int64(l.Var()), 10)
			buf = append(buf, ' ')
		}
		buf = append(buf, ">= "...)
		buf = strconv.AppendInt(buf, int64(rhs), 10)
		buf = append(buf, " ;\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// OptStatus is the status line of a MaxSAT or pseudo-Boolean solver.
type OptStatus string

// The status lines of the MaxSAT and PB evaluations.
const (
	OptOptimum       OptStatus = "OPTIMUM FOUND"
	OptSatisfiable   OptStatus = "SATISFIABLE"
	OptUnsatisfiable OptStatus = "UNSATISFIABLE"
	OptUnknown       OptStatus = "UNKNOWN"
)

// Answer is a MaxSAT or PB solver's answer.
type Answer struct {
	Status OptStatus
	// Model is the last model given (indexed by variable; nil if none).
	Model []bool
	// Cost is the last "o" line's value (HasCost false without one).
	Cost    int64
	HasCost bool
}

// ParseAnswer reads the answer of a MaxSAT or pseudo-Boolean solver: an
// "s" status line (OPTIMUM FOUND, SATISFIABLE, UNSATISFIABLE, UNKNOWN),
// "o" cost lines, and "v" model lines in any of the usual forms:
// integer literals with or without a closing 0 (over one or several
// lines), one string of 0/1 characters (variable i at position i, the
// MaxSAT evaluations' form since 2022), or named literals x3 / -x3 / ~x3
// (PB solvers such as minisat+). A solver that prints a block of "v"
// lines per improving model (clasp) is read at its last block: a "v"
// line after any other line starts a new model. "c" and other lines are
// ignored. nvars, the formula's number of variables, tells a 0/1 string
// (exactly nvars characters) from a line of one literal such as "v 10"
// (0: any 0/1 token of two or more characters is a string). A model
// must give every variable 1..nvars a value: an answer cut short is an
// error naming the first variable without one. Errors wrap ErrOutput
// and name the line.
func ParseAnswer(r io.Reader, nvars int) (*Answer, error) {
	a, err := parseAnswer(r, nvars)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return a, nil
}

func parseAnswer(r io.Reader, nvars int) (*Answer, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<28)
	a := &Answer{Status: OptUnknown}
	seen := false
	var model, has []bool
	inBlock := false
	lineNo := 0
	set := func(v int, val bool) error {
		if v < 1 || v > 1<<30 {
			return fmt.Errorf("line %d: variable %d out of range", lineNo, v)
		}
		for len(model) <= v {
			model = append(model, false)
		}
		for len(has) <= v {
			has = append(has, false)
		}
		model[v], has[v] = val, true
		return nil
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if f[0] != "v" {
			inBlock = false
		}
		switch f[0] {
		case "s":
			if seen {
				return nil, fmt.Errorf("line %d: second status line", lineNo)
			}
			seen = true
			switch st := OptStatus(strings.Join(f[1:], " ")); st {
			case OptOptimum, OptSatisfiable, OptUnsatisfiable, OptUnknown:
				a.Status = st
			case "INDETERMINATE":
				a.Status = OptUnknown
			default:
				return nil, fmt.Errorf("line %d: unknown status %q", lineNo, line)
			}
		case "o":
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: want \"o COST\", got %q", lineNo, line)
			}
			x, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: cost %q is not an integer", lineNo, f[1])
			}
			a.Cost, a.HasCost = x, true
		case "v":
			if !inBlock {
				model, has, inBlock = model[:0], has[:0], true
				model = append(model, false)
			}
			vals := f[1:]
			if len(vals) == 1 && len(vals[0]) > 1 && strings.Trim(vals[0], "01") == "" && (nvars <= 0 || len(vals[0]) == nvars) {
				// One 0/1 string: variable i+1 at position i.
				for i, ch := range vals[0] {
					if err := set(i+1, ch == '1'); err != nil {
						return nil, err
					}
				}
				continue
			}
			for _, t := range vals {
				neg := false
				s := t
				if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "~") {
					neg, s = true, s[1:]
				}
				s = strings.TrimPrefix(s, "x")
				v, err := strconv.Atoi(s)
				if err != nil || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
					return nil, fmt.Errorf("line %d: %q is not a literal", lineNo, t)
				}
				if v == 0 {
					if neg || s != "0" || t != "0" {
						return nil, fmt.Errorf("line %d: %q is not a literal", lineNo, t)
					}
					continue // the closing 0
				}
				if err := set(v, !neg); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading solver output: %w", err)
	}
	if !seen {
		return nil, errors.New("no status line (\"s OPTIMUM FOUND\", \"s SATISFIABLE\", \"s UNSATISFIABLE\" or \"s UNKNOWN\")")
	}
	if len(model) > 0 {
		a.Model = model
		for v := 1; v <= nvars; v++ {
			if v >= len(has) || !has[v] {
				return nil, fmt.Errorf("the last model gives no value to variable %d of %d (is the answer cut short?)", v, nvars)
			}
		}
	}
	if (a.Status == OptOptimum || a.Status == OptSatisfiable) && a.Model == nil {
		return nil, fmt.Errorf("status %q but no model (\"v\" lines)", a.Status)
	}
	return a, nil
}
