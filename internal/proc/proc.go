// Package proc runs external solver programs (SAT and MILP solvers given
// by command line): each in a process group of its own, so that a
// cancelled context, and the solver's own exit, kill every process it
// started.
package proc

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Run runs argv in directory dir ("" = the current one) with the given
// standard output and error until it exits
// or ctx ends. When ctx ends the solver's whole process group is killed
// (Run then returns ctx's error wrapped); once the solver exits, any
// process it left behind in its group is killed too. A non-zero exit is
// returned as an *exec.ExitError, which callers reading an answer file
// may ignore (solvers use exit codes for their answers).
func Run(ctx context.Context, dir string, argv []string, stdout, stderr io.Writer) error {
	if len(argv) == 0 {
		return fmt.Errorf("empty command line")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Cancelling kills the solver's whole process group; output pipes a
	// stray child keeps open are abandoned shortly after.
	ownGroup(cmd)
	cmd.WaitDelay = 200 * time.Millisecond
	err := cmd.Run()
	// No process of the solver's outlives the call.
	_ = killGroup(cmd)
	if ctx.Err() != nil {
		return fmt.Errorf("%s stopped: %w", argv[0], context.Cause(ctx))
	}
	return err
}

// Substitute replaces the placeholders of a command line's words (e.g.
// "{in}" → a path) and reports which placeholders occurred.
func Substitute(argv []string, repl map[string]string) ([]string, map[string]bool) {
	// Longest placeholders first, so that {in.lp} is not read as {in}.
	keys := slices.Collect(maps.Keys(repl))
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	res := make([]string, len(argv))
	seen := map[string]bool{}
	for i, a := range argv {
		for _, k := range keys {
			if strings.Contains(a, k) {
				seen[k] = true
				a = strings.ReplaceAll(a, k, repl[k])
			}
		}
		res[i] = a
	}
	return res, seen
}

// Clip shortens a solver's output for an error message.
func Clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// SplitCommand splits a command line into words: whitespace separates
// words, single quotes keep everything literally, double quotes keep
// everything but a backslash-escaped " or \.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command line %q: unterminated single quote", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("command line %q: unterminated double quote", s)
			}
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
