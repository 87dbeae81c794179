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
	// Format is the form of the output: "" for the evaluations' form
	// ("s", "o" and "v" lines), "z3" for z3's.
	Format string
	// Said is the solver's own status word when it differs from Status
	// (z3's "sat" for an optimization it finished).
	Said string
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
	z3, first := false, true
	var def z3Def // where z3's model is being read
	set := func(v int, val bool) error {
		if v < 1 || v > 1<<30 {
			return fmt.Errorf("line %d: variable %d out of range", lineNo, v)
		}
		if nvars > 0 && v > nvars {
			// A variable the formula does not have (a solver's own
			// auxiliary one) says nothing about the formula's model; it is
			// not stored, so that a number such as 2^30 in a short answer
			// allocates nothing.
			return nil
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
		if first {
			// z3's answer starts with "sat", "unsat", ...
			first = false
			if st, ok := z3Status[line]; ok {
				z3, seen, a.Format, a.Status, a.Said = true, true, "z3", st, line
				continue
			}
		}
		if z3 {
			if err := z3Line(a, &def, line, lineNo, nvars, set); err != nil {
				return nil, err
			}
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
	if def.state != 0 {
		return nil, fmt.Errorf("z3's definition of variable %d is cut short at the end", def.v)
	}
	if !seen {
		return nil, errors.New("no status line (want a MaxSAT or PB solver's \"s OPTIMUM FOUND\", \"s SATISFIABLE\", \"s UNSATISFIABLE\" or \"s UNKNOWN\", or z3's \"sat\", \"unsat\", \"unknown\" or \"timeout\" first)")
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
		if a.Format == "z3" {
			return nil, fmt.Errorf("z3 answered %q but printed no model (run z3 with -model)", a.Said)
		}
		return nil, fmt.Errorf("status %q but no model (\"v\" lines)", a.Status)
	}
	return a, nil
}

// z3Status maps the first line of z3's answer to a WCNF or OPB file to a
// status. z3 prints "sat" once its optimization has ended, so "sat"
// claims the optimum; "timeout" and "unknown" claim nothing.
var z3Status = map[string]OptStatus{
	"sat":     OptOptimum,
	"unsat":   OptUnsatisfiable,
	"unknown": OptUnknown,
	"timeout": OptUnknown,
}

// z3Line reads a line of z3's answer after its status: the model, as
// "(define-fun k!N () Bool true)" definitions (variable N of the file,
// over one or several lines, possibly inside a "(model ...)" or "( ...
// )" wrapper), and the objective's value, a line holding only a whole
// number (the soft clauses' cost for WCNF, the min: objective for
// OPB). A definition is read from its own tokens: define-fun, the name,
// "(", ")", Bool and the value must come in one line each or together.
func z3Line(a *Answer, d *z3Def, line string, lineNo, nvars int, set func(int, bool) error) error {
	if x, err := strconv.ParseInt(line, 10, 64); err == nil {
		if a.HasCost {
			return fmt.Errorf("line %d: a second objective value %q (odtkit's files have one objective)", lineNo, line)
		}
		a.Cost, a.HasCost = x, true
		return nil
	}
	toks := strings.Fields(strings.NewReplacer("(", " ( ", ")", " ) ").Replace(line))
	for _, t := range toks {
		switch d.state {
		case 0: // outside a definition
			switch t {
			case "(", ")", "model":
			case "define-fun":
				d.state = 1
			default:
				return fmt.Errorf("line %d: unexpected %q in z3's model", lineNo, t)
			}
		case 1: // the name
			v, ok := z3Var(t)
			if !ok || nvars > 0 && v > nvars {
				return fmt.Errorf("line %d: z3 names a variable %q (want k!N or xN, variable N of the file's %d)", lineNo, t, nvars)
			}
			d.v, d.state = v, 2
		case 2, 3, 4: // "(", ")", "Bool"
			want := [...]string{"(", ")", "Bool"}[d.state-2]
			if t != want {
				return fmt.Errorf("line %d: want %q in z3's definition of variable %d, got %q", lineNo, want, d.v, t)
			}
			d.state++
		case 5: // the value
			if t != "true" && t != "false" {
				return fmt.Errorf("line %d: variable %d has value %q (want true or false)", lineNo, d.v, t)
			}
			if err := set(d.v, t == "true"); err != nil {
				return err
			}
			d.state = 6
		case 6: // the closing parenthesis
			if t != ")" {
				return fmt.Errorf("line %d: want \")\" after the value of variable %d, got %q", lineNo, d.v, t)
			}
			d.state = 0
		}
	}
	return nil
}

// z3Def is where z3Line is inside a definition.
type z3Def struct {
	state, v int
}

// z3Var reads z3's name of a file's variable N: k!N (its WCNF and OPB
// readers) or xN.
func z3Var(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "k!")
	if !ok {
		s, ok = strings.CutPrefix(name, "x")
	}
	v, err := strconv.Atoi(s)
	if !ok || err != nil || v < 1 || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "0") {
		return 0, false
	}
	return v, true
}
