package model

import (
	"fmt"
	"strconv"
	"strings"
)

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

func (g *Graph) featureName(f int) string {
	if f >= 0 && f < len(g.Features) {
		return g.Features[f]
	}
	return "x" + strconv.Itoa(f)
}

func (g *Graph) className(c int) string {
	if c >= 0 && c < len(g.Classes) {
		return g.Classes[c]
	}
	return strconv.Itoa(c)
}

// Condition renders the condition under which a row of internal node n
// goes to its low (high=false) or high successor, e.g. "petal_width <= 0.8".
func (g *Graph) Condition(n Node, high bool) string {
	switch {
	case n.Weights != nil:
		var sb strings.Builder
		for i, f := range sortedWeights(n.Weights) {
			w := n.Weights[f]
			switch {
			case i == 0 && w < 0:
				sb.WriteString("-")
			case i > 0 && w < 0:
				sb.WriteString(" - ")
			case i > 0:
				sb.WriteString(" + ")
			}
			if w < 0 {
				w = -w
			}
			fmt.Fprintf(&sb, "%s*%s", fmtFloat(w), g.featureName(f))
		}
		op := " <= "
		if high {
			op = " > "
		}
		return sb.String() + op + fmtFloat(n.Threshold)
	case n.IsCategory:
		op := " != "
		if high {
			op = " == "
		}
		return g.featureName(n.Feature) + op + n.Category
	default:
		op := " <= "
		if high {
			op = " > "
		}
		return g.featureName(n.Feature) + op + fmtFloat(n.Threshold)
	}
}

// Text renders the graph as indented text, one condition per line:
//
//	petal_width <= 0.8
//	  class: setosa
//	petal_width > 0.8
//	  ...
//
// A node shared by several parents (diagrams) is printed once, labelled
// [nK], and referred to as "-> [nK]" afterwards. A leaf holding class
// counts shows them after its class, e.g. "class: setosa [50 0 0]".
func (g *Graph) Text() string {
	indeg := make([]int, len(g.Nodes))
	for _, n := range g.Nodes {
		if !n.Leaf {
			indeg[n.Low]++
			indeg[n.High]++
		}
	}
	printed := make([]bool, len(g.Nodes))
	var sb strings.Builder
	var walk func(i, depth int)
	walk = func(i, depth int) {
		pad := strings.Repeat("  ", depth)
		n := g.Nodes[i]
		label := ""
		if indeg[i] > 1 && !n.Leaf {
			if printed[i] {
				fmt.Fprintf(&sb, "%s-> [n%d]\n", pad, i)
				return
			}
			printed[i] = true
			label = fmt.Sprintf(" [n%d]", i)
		}
		if n.Leaf {
			fmt.Fprintf(&sb, "%sclass: %s%s\n", pad, g.className(n.Class), countsText(n.Counts, " "))
			return
		}
		fmt.Fprintf(&sb, "%s%s%s\n", pad, g.Condition(n, false), label)
		walk(n.Low, depth+1)
		fmt.Fprintf(&sb, "%s%s%s\n", pad, g.Condition(n, true), label)
		walk(n.High, depth+1)
	}
	walk(g.Root, 0)
	return sb.String()
}

// DOT renders the graph in Graphviz DOT; edges are labelled with the
// condition that leads along them.
func (g *Graph) DOT() string {
	var sb strings.Builder
	sb.WriteString("digraph odtkit {\n  node [fontname=\"Helvetica\"];\n")
	for i, n := range g.Nodes {
		if n.Leaf {
			fmt.Fprintf(&sb, "  n%d [shape=box, style=rounded, label=%q];\n", i, g.className(n.Class)+countsText(n.Counts, "\n"))
			continue
		}
		fmt.Fprintf(&sb, "  n%d [shape=ellipse, label=%q];\n", i, g.Condition(n, true)+" ?")
		fmt.Fprintf(&sb, "  n%d -> n%d [label=\"no\", style=dashed];\n", i, n.Low)
		fmt.Fprintf(&sb, "  n%d -> n%d [label=\"yes\"];\n", i, n.High)
	}
	sb.WriteString("}\n")
	return sb.String()
}

// countsText renders leaf class counts briefly, e.g. " [50 0 3]" (sep
// first), or "" when there are none.
func countsText(counts []float64, sep string) string {
	if counts == nil {
		return ""
	}
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmtFloat(c)
	}
	return sep + "[" + strings.Join(parts, " ") + "]"
}
