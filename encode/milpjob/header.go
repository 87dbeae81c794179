package milpjob

import (
	"fmt"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// SolveLine is the comment line of an exported MILP that names the
// solvers that take it and how.
const SolveLine = "solve it with one of: highs --solution_file SOL FILE; cbc FILE solve solu SOL; glpsol --freemps FILE.mps -w SOL (or glpsol --lp FILE.lp -w SOL)"

// DecodeLine is the comment line of an exported MILP that gives the odt
// decode command of backend name, with the flags that state its problem.
func DecodeLine(name string, flags []string) string {
	return fmt.Sprintf("decode a solution with: odt decode --backend %s %s DATA SOL", name, strings.Join(flags, " "))
}

// TreeFlags are the command's flags of a Tree problem: its depth, and
// its cap on the splits, leaf cost and minimum leaf size where set.
func TreeFlags(p model.Problem) []string {
	flags := []string{fmt.Sprintf("--depth %d", p.MaxDepth)}
	if p.MaxNodes > 0 {
		flags = append(flags, fmt.Sprintf("--max-nodes %d", p.MaxNodes))
	}
	if p.LeafCost > 0 {
		flags = append(flags, fmt.Sprintf("--leaf-cost %v", p.LeafCost))
	}
	if p.MinSupport > 1 {
		flags = append(flags, fmt.Sprintf("--min-support %d", p.MinSupport))
	}
	return flags
}

// ColumnLines are the comment lines that map the columns of d a MILP
// splits on: "j=NAME" then detail's text for column j, six columns a
// line (CBC reads a long comment line as data).
func ColumnLines(d *model.Dataset, cols []Column, detail func(j int, c Column) string) []string {
	var cs []string
	for j, c := range cols {
		f := d.Features[c.Feature]
		name := f.Name
		if c.Level >= 0 {
			name += "==" + f.Levels[c.Level]
		}
		cs = append(cs, fmt.Sprintf("%d=%s%s", j, name, detail(j, c)))
	}
	var lines []string
	for k := 0; k < len(cs); k += 6 {
		lines = append(lines, "columns j: "+strings.Join(cs[k:min(k+6, len(cs))], " "))
	}
	return lines
}
