package cpodt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/internal/proc"
)

// ErrOutput wraps every error about a MiniZinc answer: text that is no
// solution stream, a solution that is not one of the model's, an
// objective the solution does not have.
var ErrOutput = errors.New("not a MiniZinc answer for the model")

// errSolver is the error of an answer whose solver says it failed.
var errSolver = errors.New("the solver reports an error")

// The lines MiniZinc ends a solution and a search with.
const (
	lineSolution  = "----------"
	lineComplete  = "=========="
	lineUnsat     = "=====UNSATISFIABLE====="
	lineUnknown   = "=====UNKNOWN====="
	lineError     = "=====ERROR====="
	lineUnbounded = "=====UNBOUNDED====="
	lineUnsatUnb  = "=====UNSATorUNBOUNDED====="
)

// Solution is one solution of the model as MiniZinc prints it: the
// test of every internal position (0: a leaf), the class of every leaf
// position (both numbered from 1, as in the model), and the objective
// it states.
type Solution struct {
	Tests, Classes []int
	Objective      int64
	HasObjective   bool
	// Line is the line of the answer that ends the solution.
	Line int
}

// Answer is what the solver's answer said: its solutions (each passed
// to the stream's callback), and how its search ended. It is not an
// Outcome as the SAT packages have one (their search of several solver
// calls): cp-odt's search is one run of the solver (Run).
type Answer struct {
	// Solutions counts the complete solutions; Last is the last one.
	Solutions int
	Last      *Solution
	// Complete: the search ended with ========== (MiniZinc's word that
	// the last solution is optimal). Unsat: =====UNSATISFIABLE=====.
	// Unknown: =====UNKNOWN===== (stopped without a solution).
	Complete, Unsat, Unknown bool
	// Truncated: the answer ends inside a solution (the last complete
	// one stands, without any claim).
	Truncated bool
	// Format is "dzn" or "json", as the solutions were written.
	Format string
}

// Stream reads a MiniZinc answer as it is written: solutions in the
// default dzn output (name = value; lines) or in --output-mode json
// (one JSON object per solution), each ended by ----------, then the
// search's status line. Comment lines (%) and empty lines are skipped.
// OnSolution is called with each complete solution as its separator
// line arrives; an error from it stops the stream. Limit caps the bytes
// held for one solution (0: none): past it Write fails with an error
// wrapping proc.ErrTooLarge. Stream keeps only the solution being read
// and the last one.
type Stream struct {
	OnSolution func(*Solution) error
	Limit      int64

	out     Answer
	line    int
	partial []byte       // the start of a line not ended yet
	block   bytes.Buffer // the solution being read
	blockAt int          // its first line
	err     error
}

// Write takes the next bytes of the answer.
func (s *Stream) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			if s.Limit > 0 && int64(len(s.partial)+s.block.Len()) > s.Limit {
				s.err = fmt.Errorf("%w: a solution passed %.1f MiB", proc.ErrTooLarge, float64(s.Limit)/(1<<20))
				return n, s.err
			}
			break
		}
		line := p[:i]
		if len(s.partial) > 0 {
			line = append(s.partial, line...)
			s.partial = s.partial[:0]
		}
		p = p[i+1:]
		if err := s.take(string(line)); err != nil {
			s.err = err
			return n, err
		}
	}
	return n, nil
}

// take reads one line.
func (s *Stream) take(line string) error {
	s.line++
	t := strings.TrimSpace(line)
	switch {
	case t == "" || strings.HasPrefix(t, "%"):
		return nil
	case t == lineSolution:
		sol, err := parseSolution(s.block.String(), s.blockAt)
		if err != nil {
			return err
		}
		sol.Line = s.line
		s.out.Format = "dzn"
		if strings.HasPrefix(strings.TrimSpace(s.block.String()), "{") {
			s.out.Format = "json"
		}
		s.block.Reset()
		s.out.Solutions++
		s.out.Last = sol
		if s.OnSolution != nil {
			return s.OnSolution(sol)
		}
		return nil
	case strings.HasPrefix(t, "====="):
		if s.block.Len() > 0 {
			return fmt.Errorf("%w: line %d: %s after an incomplete solution (from line %d)", ErrOutput, s.line, t, s.blockAt)
		}
		switch t {
		case lineComplete:
			if s.out.Last == nil {
				return fmt.Errorf("%w: line %d: search complete (%s) without a solution", ErrOutput, s.line, t)
			}
			s.out.Complete = true
		case lineUnsat:
			if s.out.Last != nil {
				return fmt.Errorf("%w: line %d: %s after a solution", ErrOutput, s.line, t)
			}
			s.out.Unsat = true
		case lineUnknown:
			s.out.Unknown = true
		case lineError:
			return fmt.Errorf("line %d: %w (%s)", s.line, errSolver, t)
		case lineUnbounded, lineUnsatUnb:
			return fmt.Errorf("%w: line %d: %s: the model's objective is bounded", ErrOutput, s.line, t)
		default:
			return fmt.Errorf("%w: line %d: unknown status line %q", ErrOutput, s.line, t)
		}
		return nil
	}
	if s.out.Complete || s.out.Unsat {
		return fmt.Errorf("%w: line %d: %q after the search's end", ErrOutput, s.line, clip(t))
	}
	if s.block.Len() == 0 {
		if !solutionStart(t) {
			return notAnswer(s.line, t)
		}
		s.blockAt = s.line
	}
	s.block.WriteString(t)
	s.block.WriteByte('\n')
	if s.Limit > 0 && int64(s.block.Len()) > s.Limit {
		return fmt.Errorf("%w: a solution passed %.1f MiB", proc.ErrTooLarge, float64(s.Limit)/(1<<20))
	}
	return nil
}

// Close ends the answer: a line not ended, or a solution without its
// ---------- line, is a truncated answer (Answer.Truncated).
func (s *Stream) Close() (*Answer, error) {
	if s.err != nil {
		return nil, s.err
	}
	if len(s.partial) > 0 {
		t := strings.TrimSpace(string(s.partial))
		s.partial = nil
		switch {
		case t == lineSolution || strings.HasPrefix(t, "====="):
			if err := s.take(t); err != nil {
				return nil, err
			}
		case t != "" && !strings.HasPrefix(t, "%"):
			// Cut short: the start of a solution, of its first name,
			// or of the separator.
			if s.block.Len() == 0 && !solutionStart(t) && !solutionStart(t+"=") && !strings.HasPrefix(lineSolution, t) {
				return nil, notAnswer(s.line+1, t)
			}
			s.out.Truncated = true
		}
	}
	if s.block.Len() > 0 {
		s.out.Truncated = true
	}
	out := s.out
	return &out, nil
}

// solutionStart tells whether line t may begin a solution: a JSON
// object, or a dzn assignment (an identifier, then =). Anything else
// outside a solution (another solver's answer, binary bytes) is no
// MiniZinc answer, rather than a solution cut short.
func solutionStart(t string) bool {
	if strings.HasPrefix(t, "{") {
		return true
	}
	name, _, ok := strings.Cut(t, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// notAnswer is the error of line n, t, which begins no solution.
func notAnswer(n int, t string) error {
	return fmt.Errorf("%w: line %d: %q is neither the start of a solution (name = value; or a JSON object) nor a status line", ErrOutput, n, clip(t))
}

// ReadAnswer reads a whole MiniZinc answer (see Stream).
func ReadAnswer(r io.Reader, onSolution func(*Solution) error) (*Answer, error) {
	s := &Stream{OnSolution: onSolution}
	br := bufio.NewReader(r)
	if _, err := io.Copy(s, br); err != nil {
		return nil, err
	}
	return s.Close()
}

// parseSolution reads one solution block: JSON ({...}) or dzn
// assignments.
func parseSolution(text string, line int) (*Solution, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, fmt.Errorf("%w: line %d: ---------- ends an empty solution", ErrOutput, line)
	}
	var sol *Solution
	var err error
	if strings.HasPrefix(t, "{") {
		sol, err = parseJSON(t)
	} else {
		sol, err = parseDZN(t)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the solution from line %d: %w", ErrOutput, line, err)
	}
	return sol, nil
}

func parseJSON(t string) (*Solution, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(t), &m); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	sol := &Solution{}
	for _, name := range []string{"node_test", "leaf_class"} {
		raw, ok := m[name]
		if !ok {
			return nil, fmt.Errorf("no %s", name)
		}
		var a []int
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if name == "node_test" {
			sol.Tests = a
		} else {
			sol.Classes = a
		}
	}
	for _, name := range []string{"objective", "_objective"} {
		raw, ok := m[name]
		if !ok {
			continue
		}
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := sol.state(name, v); err != nil {
			return nil, err
		}
	}
	return sol, nil
}

// state records a stated objective; two that differ are an error.
func (sol *Solution) state(name string, v int64) error {
	if sol.HasObjective && sol.Objective != v {
		return fmt.Errorf("%s = %d, but the objective was stated as %d", name, v, sol.Objective)
	}
	sol.Objective, sol.HasObjective = v, true
	return nil
}

func parseDZN(t string) (*Solution, error) {
	sol := &Solution{}
	var seenTests, seenClasses bool
	for _, item := range strings.Split(t, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("%q is no assignment", clip(item))
		}
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		switch name {
		case "node_test", "leaf_class":
			a, err := parseArray(val)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if name == "node_test" {
				sol.Tests, seenTests = a, true
			} else {
				sol.Classes, seenClasses = a, true
			}
		case "objective", "_objective":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s = %q: not an integer", name, clip(val))
			}
			if err := sol.state(name, v); err != nil {
				return nil, err
			}
		}
	}
	if !seenTests || !seenClasses {
		return nil, fmt.Errorf("no node_test or no leaf_class")
	}
	return sol, nil
}

// parseArray reads [a, b, ...] or array1d(lo..hi, [a, b, ...]).
func parseArray(v string) ([]int, error) {
	if rest, ok := strings.CutPrefix(v, "array1d("); ok {
		i := strings.Index(rest, "[")
		if i < 0 || !strings.HasSuffix(rest, ")") {
			return nil, fmt.Errorf("%q is no array", clip(v))
		}
		v = strings.TrimSpace(strings.TrimSuffix(rest[i:], ")"))
	}
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return nil, fmt.Errorf("%q is no array", clip(v))
	}
	body := strings.TrimSpace(v[1 : len(v)-1])
	if body == "" {
		return []int{}, nil
	}
	var out []int
	for _, f := range strings.Split(body, ",") {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", clip(f))
		}
		out = append(out, x)
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
