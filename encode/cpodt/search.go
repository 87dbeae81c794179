package cpodt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/internal/memcap"
	"github.com/odtkit/odtkit/internal/proc"
)

// Command is the MiniZinc driver run for a solver ID.
const Command = "minizinc"

// CheckSpec validates a cp-solver option: a MiniZinc solver ID (a word:
// gecode, chuffed, cp-sat, org.gecode.gecode, ...) or external:"CMD
// ARGS" with the placeholders {model} and {data}.
func CheckSpec(spec string) error {
	_, _, err := parseSpec(spec)
	return err
}

// parseSpec splits a cp-solver option into a solver ID or an external
// command line.
func parseSpec(spec string) (id string, argv []string, err error) {
	spec = strings.TrimSpace(spec)
	if rest, ok := strings.CutPrefix(spec, "external:"); ok {
		argv, err := proc.SplitCommand(rest)
		if err != nil {
			return "", nil, err
		}
		if t := strings.TrimSpace(rest); len(argv) == 1 && strings.ContainsAny(argv[0], " \t") && len(t) > 1 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
			// The whole command line in one pair of quotes, as the
			// option's help writes it: the words are inside (unless the
			// quoted text names a program itself).
			if _, err := exec.LookPath(argv[0]); err != nil {
				if argv, err = proc.SplitCommand(argv[0]); err != nil {
					return "", nil, err
				}
			}
		}
		if len(argv) == 0 {
			return "", nil, errors.New(`external solver: empty command line (e.g. external:"minizinc --solver chuffed -a {model} {data}")`)
		}
		return "", argv, nil
	}
	if spec == "" || strings.ContainsAny(spec, " \t\"'") {
		return "", nil, fmt.Errorf("want a MiniZinc solver ID (minizinc --solvers lists them, e.g. gecode) or external:\"CMD {model} {data}\"")
	}
	return spec, nil, nil
}

// Settings say how one model is run.
type Settings struct {
	// Spec is the cp-solver option.
	Spec string
	// OutputLimit caps the bytes held of one solution and the memory of
	// the solver's processes (0: none).
	OutputLimit int64
	// OnSolution receives each complete solution as the solver prints it.
	OnSolution func(*Solution) error
	// Threads is given to a solver ID as minizinc -p (0: not given, the
	// solver's default).
	Threads int
}

// Run is what a run of the solver gave.
type Run struct {
	Answer *Answer
	// Argv is the command line run.
	Argv []string
	// Stopped: the context ended the run.
	Stopped bool
	// Stderr is the start of the solver's standard error.
	Stderr string
	// Seconds is the run's wall time.
	Seconds float64
}

// Solve writes the model and the instance's data to a temporary folder
// and runs the solver on them until it ends or ctx does (its processes
// killed then), reading its answer as it comes (see Stream). MiniZinc
// is asked for every improving solution (-a), for the time left
// before ctx's deadline (--time-limit) and for the threads of the
// settings (-p); with a memory cap, the solver's
// processes may not map more than it (ulimit -v). An answer that is not
// one, or an error of the callback, is an error; a stopped run keeps
// what was read (Run.Stopped).
func Solve(ctx context.Context, in *Instance, s Settings) (*Run, error) {
	id, ext, err := parseSpec(s.Spec)
	if err != nil {
		return nil, backend.Invalid(fmt.Errorf("%s: %w", OptSolver, err))
	}
	dir, err := os.MkdirTemp("", "odtkit-cp-")
	if err != nil {
		return nil, fmt.Errorf("cp-odt: %w", err)
	}
	defer os.RemoveAll(dir)
	mzn, dzn := filepath.Join(dir, "odt.mzn"), filepath.Join(dir, "odt.dzn")
	if err := os.WriteFile(mzn, []byte(Model), 0o644); err != nil {
		return nil, fmt.Errorf("cp-odt: %w", err)
	}
	f, err := os.Create(dzn)
	if err != nil {
		return nil, fmt.Errorf("cp-odt: %w", err)
	}
	err = in.WriteData(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("cp-odt: writing %s: %w", dzn, err)
	}
	var argv []string
	hasTimeLimit := false
	if ext != nil {
		var seen map[string]bool
		argv, seen = proc.Substitute(ext, map[string]string{"{model}": mzn, "{data}": dzn})
		if !seen["{model}"] {
			argv = append(argv, mzn)
		}
		if !seen["{data}"] {
			argv = append(argv, dzn)
		}
	} else {
		if _, err := exec.LookPath(Command); err != nil {
			return nil, backend.Invalidf("cp-odt: %s is not installed (Debian: apt-get install minizinc flatzinc; or give cp-solver=external:\"CMD {model} {data}\"): %v", Command, err)
		}
		argv = []string{Command, "--solver", id, "-a"}
		if dl, ok := ctx.Deadline(); ok {
			hasTimeLimit = true
			// MiniZinc stops by itself a little before the deadline and
			// says so; the deadline kills it otherwise.
			left := time.Until(dl)
			ms := max(left.Milliseconds()-min(left.Milliseconds()/10, 500), 1)
			argv = append(argv, "--time-limit", strconv.FormatInt(ms, 10))
		}
		if s.Threads > 0 {
			argv = append(argv, "-p", strconv.Itoa(s.Threads))
		}
		argv = append(argv, mzn, dzn)
	}
	run := &Run{Argv: argv}
	if s.OutputLimit > 0 {
		argv = limitMemory(argv, s.OutputLimit)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := &Stream{OnSolution: s.OnSolution, Limit: s.OutputLimit}
	se := &proc.Head{N: 4096}
	start := time.Now()
	runErr := proc.Run(rctx, "", argv, stream, se)
	run.Seconds = time.Since(start).Seconds()
	run.Stderr = string(se.Bytes())
	run.Stopped = ctx.Err() != nil
	if stream.err != nil && !run.Stopped {
		if errors.Is(stream.err, errSolver) {
			return run, solverError(run, s.OutputLimit, stream.err)
		}
		return run, fmt.Errorf("cp-odt: solver %q: %w", run.Argv[0], stream.err)
	}
	out, err := stream.Close()
	if err != nil {
		if run.Stopped {
			out = &stream.out
		} else {
			return run, fmt.Errorf("cp-odt: solver %q: %w", run.Argv[0], err)
		}
	}
	run.Answer = out
	if hasTimeLimit && !out.Complete && !out.Unsat {
		// MiniZinc stopped at the time limit it was given: the search
		// ended as the deadline would have ended it.
		run.Stopped = true
	}
	var exitErr *exec.ExitError
	if runErr != nil && !run.Stopped && !errors.As(runErr, &exitErr) {
		return run, fmt.Errorf("cp-odt: solver %q: %w", run.Argv[0], runErr)
	}
	if !run.Stopped && out.Solutions == 0 && !out.Unsat && !out.Unknown {
		what := "it printed no solution and no status"
		if exitErr != nil {
			what += " (" + exitErr.Error() + ")"
		}
		return run, solverError(run, s.OutputLimit, errors.New(what))
	}
	return run, nil
}

// limitMemory runs argv under a shell that caps each process's virtual
// memory at limit bytes (ulimit -v, inherited by the processes it
// starts): a solver that needs more fails instead of taking the machine.
func limitMemory(argv []string, limit int64) []string {
	if _, err := exec.LookPath("sh"); err != nil {
		return argv
	}
	kb := max(limit>>10, 1)
	return append([]string{"sh", "-c", `ulimit -v ` + strconv.FormatInt(kb, 10) + ` 2>/dev/null; exec "$@"`, "odt-cp"}, argv...)
}

// solverError is the error of a solver that failed: a failure to get
// memory under a memory cap is the cap's (model.ErrMemoryLimit), so
// that the solve stops with status memory-limit and its best tree.
func solverError(run *Run, limit int64, err error) error {
	low := strings.ToLower(run.Stderr)
	if limit > 0 {
		for _, hint := range []string{"bad_alloc", "out of memory", "cannot allocate", "failed to map", "memory exhausted"} {
			if strings.Contains(low, hint) {
				return fmt.Errorf("cp-odt: solver %q: %w: its processes may map at most %s (stderr: %s)", run.Argv[0], memcap.ErrLimit, backend.MB(limit), proc.Clip(run.Stderr))
			}
		}
	}
	return fmt.Errorf("cp-odt: solver %q: %w; stderr: %s", run.Argv[0], err, proc.Clip(run.Stderr))
}
