// Command odt learns provably optimal decision trees and diagrams from a
// data file, evaluates and applies learned models, lists the solver
// backends, and exports encodings for external SAT and MILP solvers.
//
// Usage:
//
//	odt solve [flags] DATA        learn a model (see odt solve --help)
//	odt eval --model FILE DATA    errors, accuracy and confusion matrix
//	odt predict --model FILE DATA one predicted label per row
//	odt backends                  the registered backends and their options
//	odt export --to dimacs|mps --backend NAME [flags] DATA -o FILE
//	odt decode --backend NAME [flags] DATA SOLVER_OUTPUT
//	odt bench --backends A,B [flags] DATA...   compare backends (odt bench --help)
//	odt version                   module version and build tags
//	odt completion bash|zsh|fish  a shell completion script
//
// Exit codes: 0 success (optimal or not), 1 runtime failure, 2 bad usage
// or bad input. The result goes to stdout (or --out/-o FILE); progress
// and errors go to stderr.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/model"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// env carries the program's output streams, so tests can run commands
// in process.
type env struct {
	stdout, stderr io.Writer
}

type command struct {
	name, summary string
	run           func(e env, args []string) error
}

func commands() []command {
	return []command{
		{"solve", "learn a decision tree or diagram from a data file", runSolve},
		{"eval", "evaluate a model on a data file (errors, accuracy, confusion matrix)", runEval},
		{"predict", "print the model's predicted label for every row of a data file", runPredict},
		{"backends", "list the solver backends and what each accepts", runBackends},
		{"export", "write a SAT (DIMACS) or MILP (MPS) encoding of a problem for an external solver", runExport},
		{"decode", "read an external solver's output back into a verified model", runDecode},
		{"bench", "run backends × datasets × depths, cross-check optima, tables and anytime pictures", runBench},
		{"version", "print the module version, revision and build tags (with or without HiGHS)", runVersion},
		{"completion", "print a shell completion script (bash, zsh or fish)", runCompletion},
	}
}

func mainUsage(w io.Writer) {
	fmt.Fprintln(w, "odt learns provably optimal decision trees and diagrams.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: odt COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `odt COMMAND --help` for a command's flags.")
	fmt.Fprintln(w, "Exit codes: 0 success (optimal or not), 1 runtime failure, 2 bad usage or bad input.")
}

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	e := env{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		mainUsage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		mainUsage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		err := c.run(e, args[1:])
		if err == nil {
			return 0
		}
		if errors.Is(err, errHelpShown) {
			return 0
		}
		fmt.Fprintf(stderr, "odt %s: %s\n", name, oneLine(err.Error()))
		return exitCode(err)
	}
	fmt.Fprintf(stderr, "odt: unknown command %q (commands: %s; see odt --help)\n", name, strings.Join(completionCommands(), ", "))
	return 2
}

// errHelpShown is returned after --help printed a command's usage.
var errHelpShown = errors.New("help shown")

// usageError is bad usage of the command line (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

// inputError marks a problem with an input file (exit code 2).
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err}
}

// exitCode maps an error to the documented exit codes: 2 for bad usage
// or bad input, 1 for everything else.
func exitCode(err error) int {
	var ue *usageError
	var ie *inputError
	var de *model.DataError
	var pe *fs.PathError
	switch {
	case errors.As(err, &ue), errors.As(err, &ie), errors.As(err, &de), errors.As(err, &pe):
		return 2
	case errors.Is(err, odtkit.ErrInvalid):
		return 2
	}
	return 1
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}
