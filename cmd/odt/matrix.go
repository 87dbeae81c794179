package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// matrix is the objective × family table of the backends: for each
// objective (in the order error, min-depth, min-size, min-nodes, diagram, then any
// other in order of appearance) and each family (backend.Families), the
// backends of that family that solve it, in registry order.
type matrix struct {
	Objectives []string                       `json:"objectives"`
	Families   []string                       `json:"families"`
	Cells      map[string]map[string][]string `json:"cells"`
}

func newMatrix(infos []backend.Info) matrix {
	m := matrix{Cells: map[string]map[string][]string{}}
	for _, o := range []model.Objective{model.MinError, model.MinDepth, model.MinSize, model.MinNodes, model.DiagramError} {
		m.Objectives = append(m.Objectives, string(o))
	}
	for _, f := range backend.Families() {
		m.Families = append(m.Families, string(f))
	}
	for _, in := range infos {
		for _, o := range in.Objectives {
			if !slices.Contains(m.Objectives, string(o)) {
				m.Objectives = append(m.Objectives, string(o))
			}
		}
		if !slices.Contains(m.Families, string(in.Family)) {
			m.Families = append(m.Families, string(in.Family))
		}
	}
	for _, o := range m.Objectives {
		m.Cells[o] = map[string][]string{}
		for _, f := range m.Families {
			m.Cells[o][f] = []string{}
		}
	}
	for _, in := range infos {
		for _, o := range in.Objectives {
			c := m.Cells[string(o)]
			c[string(in.Family)] = append(c[string(in.Family)], in.Name)
		}
	}
	return m
}

// cell is the backends of one cell, comma-separated, or "-".
func (m matrix) cell(o, f string) string {
	if bs := m.Cells[o][f]; len(bs) > 0 {
		return strings.Join(bs, ", ")
	}
	return "-"
}

// write renders the matrix as text (aligned columns), markdown or json.
func (m matrix) write(w io.Writer, format string) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "markdown":
		fmt.Fprintf(w, "| objective | %s |\n", strings.Join(m.Families, " | "))
		fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---|", len(m.Families)))
		for _, o := range m.Objectives {
			row := make([]string, len(m.Families))
			for i, f := range m.Families {
				row[i] = m.cell(o, f)
				if row[i] != "-" {
					row[i] = "`" + strings.ReplaceAll(row[i], ", ", "`, `") + "`"
				}
			}
			fmt.Fprintf(w, "| %s | %s |\n", o, strings.Join(row, " | "))
		}
		return nil
	}
	rows := [][]string{append([]string{"objective"}, m.Families...)}
	for _, o := range m.Objectives {
		row := []string{o}
		for _, f := range m.Families {
			row = append(row, m.cell(o, f))
		}
		rows = append(rows, row)
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range rows {
		var sb strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				sb.WriteString(c)
				break
			}
			sb.WriteString(c + strings.Repeat(" ", width[i]-len(c)+2))
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(sb.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}
