// Package sat holds propositional formulas in conjunctive normal form,
// their DIMACS text form, and SAT solvers behind one small interface:
// odtkit's own CDCL solver and gini in process (incremental, with
// assumptions and cancellation), and any external DIMACS solver binary.
//
// Variables are numbered from 1 and literals use the DIMACS convention:
// the literal v is variable v, -v its negation.
package sat

import (
	"fmt"
	"slices"
	"strings"
)

// Lit is a literal in DIMACS convention: v > 0 is variable v, -v its
// negation. 0 is no literal.
type Lit int32

// Var returns the literal's variable (positive).
func (l Lit) Var() int {
	if l < 0 {
		return int(-l)
	}
	return int(l)
}

// Not returns the negated literal.
func (l Lit) Not() Lit { return -l }

// Sign reports whether the literal is positive.
func (l Lit) Sign() bool { return l > 0 }

// Group is a named, contiguous range of variables with a meaning, e.g.
// "F" = "F[node][feature]: node tests feature". Shape gives the index
// dimensions (row-major) when the group is an array.
type Group struct {
	Name    string
	Meaning string
	First   int // first variable
	Count   int
	Shape   []int
}

// Lit returns the positive literal of the variable at the given index
// (row-major over Shape; a flat index when Shape is empty).
func (g Group) Lit(idx ...int) Lit {
	off := 0
	if len(g.Shape) == 0 {
		if len(idx) != 1 {
			panic("sat: flat group indexed with several indices")
		}
		off = idx[0]
	} else {
		if len(idx) != len(g.Shape) {
			panic(fmt.Sprintf("sat: group %s indexed with %d indices, has %d dimensions", g.Name, len(idx), len(g.Shape)))
		}
		for i, x := range idx {
			off = off*g.Shape[i] + x
		}
	}
	if off < 0 || off >= g.Count {
		// A copy: idx itself must not escape, or every call allocates it.
		panic(fmt.Sprintf("sat: index %v out of group %s", slices.Clone(idx), g.Name))
	}
	return Lit(g.First + off)
}

// Contains reports whether variable v belongs to the group.
func (g Group) Contains(v int) bool { return v >= g.First && v < g.First+g.Count }

// CNF is a formula: a number of variables, clauses and named variable
// groups (for decoding a model and for the comment header of DIMACS).
// Clauses are stored flat, each terminated by 0.
type CNF struct {
	NumVars  int
	lits     []Lit
	starts   []int
	Groups   []Group
	Comments []string
}

// NewVar allocates a fresh variable and returns its positive literal.
func (c *CNF) NewVar() Lit {
	c.NumVars++
	return Lit(c.NumVars)
}

// NewGroup allocates a named group of prod(shape) fresh variables (one
// variable per index tuple, row-major).
func (c *CNF) NewGroup(name, meaning string, shape ...int) Group {
	n := 1
	for _, s := range shape {
		if s < 0 {
			panic("sat: negative group dimension")
		}
		n *= s
	}
	g := Group{Name: name, Meaning: meaning, First: c.NumVars + 1, Count: n, Shape: append([]int(nil), shape...)}
	c.NumVars += n
	c.Groups = append(c.Groups, g)
	return g
}

// Add appends the clause made of lits (copied). Variables beyond NumVars
// grow it. An empty call adds the empty clause (the formula is then
// unsatisfiable).
func (c *CNF) Add(lits ...Lit) {
	c.starts = append(reserve(c.starts, 1), len(c.lits))
	for _, l := range lits {
		if l == 0 {
			panic("sat: literal 0 in a clause")
		}
		if v := l.Var(); v > c.NumVars {
			c.NumVars = v
		}
	}
	c.lits = reserve(c.lits, len(lits)+1)
	c.lits = append(c.lits, lits...)
	c.lits = append(c.lits, 0)
}

// AddClause is Add, so that a CNF can receive clauses like a Solver.
func (c *CNF) AddClause(lits ...Lit) { c.Add(lits...) }

// NumClauses is the number of clauses.
func (c *CNF) NumClauses() int { return len(c.starts) }

// NumLits is the total number of literal occurrences.
func (c *CNF) NumLits() int { return len(c.lits) - len(c.starts) }

// Clause returns clause i (without its terminating 0). The slice aliases
// the formula's storage: do not modify it.
func (c *CNF) Clause(i int) []Lit {
	s, e := c.starts[i], len(c.lits)-1
	if i+1 < len(c.starts) {
		e = c.starts[i+1] - 1
	}
	return c.lits[s:e:e]
}

// Group returns the group of that name.
func (c *CNF) Group(name string) (Group, bool) {
	for _, g := range c.Groups {
		if g.Name == name {
			return g, true
		}
	}
	return Group{}, false
}

// Satisfies reports whether the assignment (indexed by variable, entry 0
// unused, variables beyond its end false) satisfies every clause, and if not the index of the first
// falsified clause.
func (c *CNF) Satisfies(model []bool) (bool, int) {
	for i := range c.starts {
		ok := false
		for _, l := range c.Clause(i) {
			v := l.Var()
			if (v < len(model) && model[v]) == l.Sign() {
				ok = true
				break
			}
		}
		if !ok {
			return false, i
		}
	}
	return true, -1
}

// Describe summarises the formula in one line.
func (c *CNF) Describe() string {
	var parts []string
	for _, g := range c.Groups {
		parts = append(parts, fmt.Sprintf("%s:%d", g.Name, g.Count))
	}
	return fmt.Sprintf("%d variables (%s), %d clauses, %d literals", c.NumVars, strings.Join(parts, " "), c.NumClauses(), c.NumLits())
}
