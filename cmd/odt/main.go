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
//	odt help exit-codes           what each exit code means
//	odt completion bash|zsh|fish  a shell completion script
//
// The result goes to stdout (or --out/-o FILE, written whole or not at
// all; "-" is stdout); progress and errors go to stderr.
//
// Exit codes (odt help exit-codes):
//
//	0    success: the command did its work and printed its result. For
//	     solve this holds whatever the status — optimal, time-limit,
//	     memory-limit, cancelled by a first Ctrl-C or SIGTERM (the best
//	     model so far is printed, or "none found"), infeasible: the
//	     status line says which. For bench it holds when some runs
//	     failed, crashed or were killed (the tables record each run's
//	     fate) and when an interrupt ended the grid early (the tables
//	     cover the runs done).
//	1    runtime failure: the work could not be done (a solver failed, an
//	     output could not be written, an internal error), or bench found
//	     backends whose proven optima disagree.
//	2    bad usage or bad input, found before any work: an unknown flag
//	     or backend, a value out of range, a data or model file that
//	     cannot be read or is malformed (the message names file and
//	     line), a problem no backend accepts, an output path that cannot
//	     be written.
//	130  interrupted with nothing to report: a second Ctrl-C or SIGTERM
//	     (no result is printed, no partial file is left), or a first one
//	     during a command that has no partial result (export, decode, and
//	     eval or predict while reading the data).
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

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
		{"certify", "check the LRAT proofs that odt solve --certify wrote to a directory", runCertify},
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
	fmt.Fprintln(w, "Exit codes: 0 success (optimal or not), 1 runtime failure, 2 bad usage or bad input,")
	fmt.Fprintln(w, "130 interrupted with nothing to report (odt help exit-codes tells more).")
}

// Exit codes of odt; see the package documentation and exitCodesHelp.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// exitCodesHelp is the text of `odt help exit-codes`.
const exitCodesHelp = `Exit codes of odt:

  0    success: the command did its work and printed its result.
       solve: whatever the status - optimal, time-limit, memory-limit,
       cancelled by a first Ctrl-C or SIGTERM (the best model so far is
       printed, or "model: none found"), infeasible. The status line (or
       the JSON "status" and "optimal") says which.
       bench: also when some runs failed, crashed or were killed (the
       tables record each run's fate), and when an interrupt ended the
       grid early (the tables cover the runs done).
  1    runtime failure: the work could not be done (a solver failed, the
       output could not be written - a result is then printed to stdout
       instead, and bench ends keeping the runs written - an internal
       error), or bench found
       backends whose proven optima disagree (CROSS-CHECK ERROR), or a
       proof did not check (solve --certify, certify: the message names
       the file, line and clause of the step).
  2    bad usage or bad input, found before any work: an unknown flag,
       backend or option, a value out of range, a data or model file that
       cannot be read or is malformed (the message names file and line),
       a problem no backend accepts, an output path that cannot be
       written (checked before the solve).
  130  interrupted with nothing to report: a second Ctrl-C or SIGTERM
       (nothing is printed, no partial file is left), or a first one
       during export or decode (no file is written), or during eval or
       predict while they read the data.
`

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
		if len(args) > 1 {
			return help(args[1], stdout, stderr)
		}
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
		prefix := "odt " + name + ": "
		fmt.Fprintf(stderr, "%s%s\n", prefix, strings.TrimPrefix(oneLine(err.Error()), prefix))
		return exitCode(err)
	}
	fmt.Fprintf(stderr, "odt: unknown command %q (commands: %s; see odt --help)\n", name, strings.Join(completionCommands(), ", "))
	return 2
}

// help prints a help topic: exit-codes, or a command's flags.
func help(topic string, stdout, stderr io.Writer) int {
	if topic == "exit-codes" {
		fmt.Fprint(stdout, exitCodesHelp)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == topic {
			c.run(env{stdout: stdout, stderr: stderr}, []string{"--help"})
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "odt help: no help on %q (topics: exit-codes, or a command's name)\n", topic)
	return exitUsage
}

// errInterrupted is the error of a command stopped by a first interrupt
// before it had anything to report (exit code 130).
var errInterrupted = errors.New("interrupted")

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

// exitCode maps an error to the exit codes of the package documentation:
// 130 for an interrupt, 2 for bad usage or bad input, 1 for everything
// else.
func exitCode(err error) int {
	var ue *usageError
	var ie *inputError
	var de *model.DataError
	var pe *fs.PathError
	var of *outputFailure
	switch {
	case errors.Is(err, errInterrupted):
		return exitInterrupted
	case errors.As(err, &of), isIOFailure(err):
		// A result or a file that could not be written: the work was
		// valid, writing it failed.
		return exitFailure
	case errors.As(err, &ue), errors.As(err, &ie), errors.As(err, &de), errors.As(err, &pe):
		return exitUsage
	case errors.Is(err, odtkit.ErrInvalid):
		return exitUsage
	}
	return exitFailure
}

// isIOFailure reports a failure to write (a full disk or quota, a file
// too large, an I/O error, a read-only file system met after the work
// started): runtime failures, not bad input, whatever path they name.
func isIOFailure(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) && (pe.Op == "write" || pe.Op == "close" || pe.Op == "sync") {
		return true
	}
	var le *os.LinkError
	if errors.As(err, &le) && le.Op == "rename" {
		return true
	}
	for _, no := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG, syscall.EIO} {
		if errors.Is(err, no) {
			return true
		}
	}
	return false
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}
