package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Exported is the size of a cell's formulation as odt export writes it
// in Format (FileSizes): Variables, Constraints and Nonzeros as the file
// states them (nil where it does not), or Message when the export
// failed (a backend without that format, a limit).
type Exported struct {
	Format      string   `json:"format"`
	Variables   *float64 `json:"variables,omitempty"`
	Constraints *float64 `json:"constraints,omitempty"`
	Nonzeros    *float64 `json:"nonzeros,omitempty"`
	Message     string   `json:"message,omitempty"`
}

// exportSize exports the cell's formulation in the first of
// rn.ExportFormats its backend writes, to a temporary file, within the
// run's time limit (a minute without one) and memory cap, and reads its
// size; the file is removed.
func (rn *Runner) exportSize(ctx context.Context, c Cell) Exported {
	var ex Exported
	for _, f := range rn.ExportFormats {
		if ex = rn.exportAs(ctx, c, f); ex.Message == "" {
			break
		}
	}
	return ex
}

// exportAs is exportSize in one format.
func (rn *Runner) exportAs(ctx context.Context, c Cell, format string) Exported {
	ex := Exported{Format: format}
	tmp, err := os.MkdirTemp("", "odt-bench-export-")
	if err != nil {
		ex.Message = err.Error()
		return ex
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "formulation")
	args := c.solveArgs()
	args[0] = "export"
	args = append(args, "--to", format)
	if rn.MemoryLimitMB > 0 {
		args = append(args, "--memory-limit", strconv.Itoa(solveMemoryMB(rn.MemoryLimitMB)))
	}
	args = append(args, rn.Args...)
	args = append(args, "-o", file, c.Dataset)
	limit := rn.TimeLimit
	if limit <= 0 {
		limit = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, rn.Exe, args...)
	newGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd.Process); return nil }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		ex.Message = strings.TrimPrefix(lastLine(stderr.String()), "odt export: ")
		if ctx.Err() != nil {
			ex.Message = fmt.Sprintf("the export did not end within %s", limit)
		}
		if ex.Message == "" {
			ex.Message = err.Error()
		}
		return ex
	}
	sz, _, err := FileSizes(file, format)
	if err != nil {
		ex.Message = err.Error()
		return ex
	}
	for i, p := range []**float64{&ex.Variables, &ex.Constraints, &ex.Nonzeros} {
		if v, err := strconv.ParseFloat(sz[i], 64); err == nil {
			*p = &v
		}
	}
	return ex
}

// FileSizes reads the size of a formulation file written by odt export
// (variables, constraints, non-zeros; "" where the format does not state
// it) and the odt decode command its comment header gives.
//
// DIMACS: "p cnf V C"; classic WCNF: "p wcnf V C TOP"; OPB: "* #variable= V
// #constraint= C". MPS: the ROWS section's constraint rows, the COLUMNS
// section's distinct columns and its non-zero coefficients of constraint
// rows. CPLEX LP: the objective's columns (odt writes every column
// there), the constraints of the Subject To section (a row bounded on
// both sides is two) and their non-zero coefficients.
func FileSizes(path, format string) ([3]string, string, error) {
	var sz [3]string
	f, err := os.Open(path)
	if err != nil {
		return sz, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	decode := ""
	section := ""
	objRows := map[string]bool{}
	rows, nz := 0, 0
	cols := map[string]bool{}
	for sc.Scan() {
		line := sc.Text()
		if decode == "" {
			if i := strings.Index(line, "odt decode "); i >= 0 && (strings.HasPrefix(line, "c ") || strings.HasPrefix(line, "*") || strings.HasPrefix(line, "\\")) {
				decode = strings.TrimSpace(line[i:])
			}
		}
		switch format {
		case "dimacs":
			if f := strings.Fields(line); len(f) == 4 && f[0] == "p" && f[1] == "cnf" {
				sz[0], sz[1] = f[2], f[3]
				return sz, decode, nil
			}
		case "wcnf":
			if f := strings.Fields(line); len(f) >= 4 && f[0] == "p" && f[1] == "wcnf" {
				sz[0], sz[1] = f[2], f[3]
				return sz, decode, nil
			}
		case "opb":
			// "* #variable= V #constraint= C"
			if f := strings.Fields(line); len(f) >= 5 && f[0] == "*" && f[1] == "#variable=" && f[3] == "#constraint=" {
				sz[0], sz[1] = f[2], f[4]
			} else if !strings.HasPrefix(line, "*") && sz[0] != "" {
				return sz, decode, nil // past the comment header
			}
		case "mps":
			if line == "" || line[0] == '*' {
				continue
			}
			if line[0] != ' ' {
				section = strings.Fields(line)[0]
				continue
			}
			fs := strings.Fields(line)
			switch section {
			case "ROWS":
				if len(fs) == 2 {
					if fs[0] == "N" {
						objRows[fs[1]] = true
					} else {
						rows++
					}
				}
			case "COLUMNS":
				if len(fs) >= 3 && fs[1] != "'MARKER'" {
					cols[fs[0]] = true
					for i := 1; i+1 < len(fs); i += 2 {
						if !objRows[fs[i]] {
							nz++
						}
					}
				}
			}
		case "lp":
			if line == "" || line[0] == '\\' {
				continue
			}
			if line[0] != ' ' {
				section = strings.ToLower(strings.TrimSpace(line))
				continue
			}
			fs := strings.Fields(line)
			if len(fs) > 0 && strings.HasSuffix(fs[0], ":") {
				if section == "subject to" {
					rows++
				}
				fs = fs[1:]
			}
			// Terms are "+ c name" or "- c name"; a constraint ends with
			// its sense and right-hand side.
			coef := ""
			for i := 0; i < len(fs); i++ {
				t := fs[i]
				switch {
				case t == "+" || t == "-":
				case t == "<=" || t == ">=" || t == "=" || t == "=<" || t == "=>":
					i++ // the right-hand side
				case isNumber(t):
					coef = t
				default:
					switch section {
					case "minimize", "maximize", "minimise", "maximise":
						cols[t] = true
					case "subject to":
						if v, err := strconv.ParseFloat(coef, 64); err != nil || v != 0 {
							nz++
						}
					}
					coef = ""
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return sz, "", fmt.Errorf("%s: %w", path, err)
	}
	if format == "mps" || format == "lp" {
		sz = [3]string{strconv.Itoa(len(cols)), strconv.Itoa(rows), strconv.Itoa(nz)}
	}
	return sz, decode, nil
}

// isNumber reports whether s reads as a number.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
