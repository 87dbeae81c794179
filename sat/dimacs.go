package sat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// groupPrefix starts the comment lines that record variable groups, e.g.
//
//	c var F 1..5052 7x1263 F[node][feature]: node tests feature
//
// ReadDIMACS turns them back into Groups.
const groupPrefix = "var "

// WriteDIMACS writes the formula in DIMACS CNF: the comments, one comment
// line per variable group (name, variable range, shape, meaning), the
// problem line and one clause per line.
func (c *CNF) WriteDIMACS(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, line := range c.Comments {
		for l := range strings.SplitSeq(line, "\n") {
			fmt.Fprintf(bw, "c %s\n", l)
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
		meaning := strings.ReplaceAll(g.Meaning, "\n", " ")
		fmt.Fprintf(bw, "c %s%s %d..%d %s %s\n", groupPrefix, g.Name, g.First, g.First+g.Count-1, sh, meaning)
	}
	fmt.Fprintf(bw, "p cnf %d %d\n", c.NumVars, c.NumClauses())
	buf := make([]byte, 0, 64)
	for _, l := range c.lits {
		if l == 0 {
			buf = append(buf, '0', '\n')
		} else {
			buf = strconv.AppendInt(buf, int64(l), 10)
			buf = append(buf, ' ')
		}
		if len(buf) > 4000 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// ErrDIMACS marks malformed DIMACS input.
var ErrDIMACS = errors.New("malformed DIMACS")

// ReadDIMACS parses a DIMACS CNF formula. Comment lines (starting with
// 'c') may appear anywhere; those written by WriteDIMACS for variable
// groups become Groups again, the others Comments. The input must have
// exactly one problem line "p cnf VARS CLAUSES" before the first clause,
// every literal within ±VARS, every clause terminated by 0, and exactly
// CLAUSES clauses. Errors name the offending line and wrap ErrDIMACS.
func ReadDIMACS(r io.Reader) (*CNF, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	c := &CNF{}
	fail := func(line int, format string, a ...any) error {
		return fmt.Errorf("%w: line %d: %s", ErrDIMACS, line, fmt.Sprintf(format, a...))
	}
	header := false
	declVars, declClauses := 0, 0
	open := false // a clause has started and not yet ended
	lineNo := 0
	var groups []Group
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if line[0] == 'c' && (len(line) == 1 || line[1] == ' ' || line[1] == '\t') {
			text := strings.TrimSpace(line[1:])
			if rest, ok := strings.CutPrefix(text, groupPrefix); ok {
				g, err := parseGroup(rest)
				if err != nil {
					return nil, fail(lineNo, "%v", err)
				}
				groups = append(groups, g)
			} else {
				c.Comments = append(c.Comments, text)
			}
			continue
		}
		if line[0] == 'p' {
			if header {
				return nil, fail(lineNo, "second problem line")
			}
			f := strings.Fields(line)
			if len(f) != 4 || f[0] != "p" || f[1] != "cnf" {
				return nil, fail(lineNo, "problem line %q is not \"p cnf VARS CLAUSES\"", line)
			}
			var err1, err2 error
			declVars, err1 = strconv.Atoi(f[2])
			declClauses, err2 = strconv.Atoi(f[3])
			if err1 != nil || err2 != nil || declVars < 0 || declClauses < 0 {
				return nil, fail(lineNo, "problem line %q: counts must be non-negative integers", line)
			}
			if declVars > 1<<30 {
				return nil, fail(lineNo, "%d variables is too many", declVars)
			}
			header = true
			continue
		}
		if !header {
			return nil, fail(lineNo, "clause before the problem line \"p cnf VARS CLAUSES\"")
		}
		for _, tok := range strings.Fields(line) {
			x, err := strconv.ParseInt(tok, 10, 32)
			if err != nil {
				return nil, fail(lineNo, "%q is not an integer literal", tok)
			}
			if x == 0 {
				if !open {
					c.starts = append(c.starts, len(c.lits))
				}
				c.lits = append(c.lits, 0)
				open = false
				if c.NumClauses() > declClauses {
					return nil, fail(lineNo, "more clauses than the %d declared", declClauses)
				}
				continue
			}
			if x > int64(declVars) || -x > int64(declVars) {
				return nil, fail(lineNo, "literal %d out of range for %d variables", x, declVars)
			}
			if !open {
				c.starts = append(c.starts, len(c.lits))
				open = true
			}
			c.lits = append(c.lits, Lit(x))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading DIMACS: line %d: %w", lineNo+1, err)
	}
	if !header {
		return nil, fmt.Errorf("%w: no problem line \"p cnf VARS CLAUSES\"", ErrDIMACS)
	}
	if open {
		return nil, fail(lineNo, "last clause not terminated by 0")
	}
	if c.NumClauses() != declClauses {
		return nil, fail(lineNo, "%d clauses, %d declared", c.NumClauses(), declClauses)
	}
	c.NumVars = declVars
	for _, g := range groups {
		if g.First+g.Count-1 > declVars {
			return nil, fmt.Errorf("%w: group %s ends at variable %d, beyond the %d declared", ErrDIMACS, g.Name, g.First+g.Count-1, declVars)
		}
	}
	c.Groups = groups
	return c, nil
}

// parseGroup reads "NAME FIRST..LAST SHAPE MEANING".
func parseGroup(s string) (Group, error) {
	f := strings.SplitN(s, " ", 4)
	if len(f) < 3 {
		return Group{}, fmt.Errorf("variable group comment %q is not \"var NAME FIRST..LAST SHAPE MEANING\"", s)
	}
	g := Group{Name: f[0]}
	if len(f) == 4 {
		g.Meaning = f[3]
	}
	a, b, ok := strings.Cut(f[1], "..")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || first < 1 || last < first-1 {
		return Group{}, fmt.Errorf("variable group %s: bad range %q", g.Name, f[1])
	}
	g.First, g.Count = first, last-first+1
	if f[2] != "-" {
		n := 1
		for p := range strings.SplitSeq(f[2], "x") {
			d, err := strconv.Atoi(p)
			if err != nil || d < 0 {
				return Group{}, fmt.Errorf("variable group %s: bad shape %q", g.Name, f[2])
			}
			g.Shape = append(g.Shape, d)
			n *= d
			if n > 1<<30 {
				return Group{}, fmt.Errorf("variable group %s: shape %q too large", g.Name, f[2])
			}
		}
		if n != g.Count {
			return Group{}, fmt.Errorf("variable group %s: shape %q holds %d variables, the range %d", g.Name, f[2], n, g.Count)
		}
	}
	return g, nil
}
