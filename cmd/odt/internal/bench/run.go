package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/odtkit/odtkit/model"
)

// Run is the outcome of one cell: one JSON line of runs.jsonl.
type Run struct {
	Cell
	// TimeLimit is the limit the run was given, in seconds.
	TimeLimit float64 `json:"time_limit"`
	// Status is the solver's status (optimal, time-limit, ...) or, when
	// the run failed, one of: failed (exited with an error), crashed
	// (killed by a signal), killed (exceeded the time limit plus grace),
	// memory-limit (exceeded the memory limit).
	Status     string   `json:"status"`
	Optimal    bool     `json:"optimal"`
	Errors     *int     `json:"errors"`
	Objective  *float64 `json:"objective"`
	LowerBound *float64 `json:"lower_bound"`
	// Seconds is the wall time of the whole process (reading included).
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the process's user plus system CPU time (with its
	// waited-for children), from its rusage.
	CPUSeconds float64 `json:"cpu_seconds"`
	// TimeToBest is the solver time of the last incumbent; TimeToProof the
	// solver time to the proof of optimality (nil when not proven).
	TimeToBest  *float64          `json:"time_to_best"`
	TimeToProof *float64          `json:"time_to_proof"`
	PeakMB      float64           `json:"peak_mb"`
	ExitCode    int               `json:"exit_code"`
	Message     string            `json:"message,omitempty"`
	Incumbents  []model.Incumbent `json:"incumbents"`
	// Bounds are the rises of the proven lower bound during the run, for
	// the backends that report them (the result's bounds).
	Bounds []model.BoundPoint `json:"bounds,omitempty"`
	// Formulation is the size of the formulation solved, when the backend
	// reports one.
	Formulation *Formulation `json:"formulation,omitempty"`
	// Command is the run's odt command line (without the program) and
	// Revision the odt revision that ran it ("" when unknown).
	Command  []string `json:"command,omitempty"`
	Revision string   `json:"revision,omitempty"`
	// Output is the file, relative to the result folder, that holds what
	// the run's process printed: its result JSON, or its messages when
	// it gave no result ("" when not kept).
	Output string `json:"output,omitempty"`
	// Certified is the result's own "certified" field: its optimality
	// proof was checked.
	Certified bool `json:"certified"`
	// Proofs is the folder, relative to the result folder, where the run
	// wrote its proofs (bench --certify; "" when none).
	Proofs string `json:"proofs,omitempty"`
	// Expected is the optimum an --expect table gives for the run's
	// instance and Verdict the run's verdict against it (Correct,
	// Incorrect or Unknown; "" when no table was given).
	Expected *float64 `json:"expected,omitempty"`
	Verdict  string   `json:"verdict,omitempty"`
	Learning

	// stdout and stderr are what the process printed (not recorded in
	// runs.jsonl; Execute keeps them in Output).
	stdout, stderr []byte
	// file is the runs.jsonl the run was read from ("" for a run made
	// here), which Output is relative to the folder of.
	file string
}

// Failed reports whether the run produced no result.
func (r *Run) Failed() bool { return r.Objective == nil }

// Runner runs cells as separate `odt solve` processes.
type Runner struct {
	// Exe is the odt binary.
	Exe       string
	TimeLimit time.Duration
	// MemoryLimitMB kills a run whose resident memory exceeds it (0 = none).
	MemoryLimitMB int
	// Args are extra arguments for every solve (e.g. --opt k=v).
	Args []string
	// Prepare, when set, gives a cell's own extra arguments and how many
	// solves the run makes (a tuning run makes several; its time budget
	// is that many time limits).
	Prepare func(Cell) (args []string, solves int)
	// Validate makes Execute check the grid before its first run (see
	// Validate).
	Validate bool
	// Revision is the odt revision recorded in every run.
	Revision string
	// Expect, when set, marks every run against its expected optimum.
	Expect *Expectations
	// ExportFormats, when set, also export the formulation of the first
	// repeat of every plain cell in the first of these formats its
	// backend writes (odt export --to) and record the file's size in the
	// run (Formulation.Exported).
	ExportFormats []string
	// ProofDir, when set, has every run of a backend that Certifies
	// write and check the proofs of its optimum (the backend option
	// certify) in a folder of its own under ProofDir, named as its
	// output; the run records the folder in Proofs.
	ProofDir  string
	Certifies func(backend string) bool

	mu  sync.Mutex
	cur *os.Process // the running solve, nil between runs
}

// running is the running solve's process, or nil.
func (rn *Runner) running() *os.Process {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.cur
}

func (rn *Runner) setRunning(p *os.Process) {
	rn.mu.Lock()
	rn.cur = p
	rn.mu.Unlock()
}

// solveMemoryMB is the --memory-limit given to each solve of a grid
// whose runs are killed above limitMB of resident memory: 80 % of it.
func solveMemoryMB(limitMB int) int { return max(1, limitMB*8/10) }

// stopGrace is how long a run interrupted by a signal may take to print
// its best model before its process group is killed.
const stopGrace = 3 * time.Second

// grace is how long past its time limit a run may take to return its
// best model before it is killed.
func (rn *Runner) grace() time.Duration {
	return max(5*time.Second, rn.TimeLimit/2)
}

// Run executes one cell. It never returns an error: a failure of the run
// is recorded in the Run, so a grid always completes.
func (rn *Runner) Run(ctx context.Context, c Cell) Run {
	run := Run{Cell: c, TimeLimit: rn.TimeLimit.Seconds(), Incumbents: []model.Incumbent{}}
	args := append(c.solveArgs(), "--format", "json", "--quiet", "--seed", strconv.Itoa(c.Repeat))
	if rn.TimeLimit > 0 {
		args = append(args, "--time-limit", rn.TimeLimit.String())
	}
	if c.Threads > 0 {
		args = append(args, "--threads", strconv.Itoa(c.Threads))
	}
	if rn.MemoryLimitMB > 0 {
		// The solve caps itself below the kill threshold (its cap is on
		// the heap; the resident set also holds the runtime and
		// fragmentation), so it ends with status memory-limit and its
		// best model instead of being killed.
		args = append(args, "--memory-limit", strconv.Itoa(solveMemoryMB(rn.MemoryLimitMB)))
	}
	args = append(args, rn.Args...)
	if rn.ProofDir != "" && rn.Certifies != nil && rn.Certifies(c.Backend) {
		name := outputName(&run)
		// A run done again (a resumed bench) replaces its certificate.
		args = append(args, "--opt", "certify="+filepath.Join(rn.ProofDir, name), "--opt", "certify-force=true")
		run.Proofs = ProofDir + "/" + name
	}
	solves := 1
	if rn.Prepare != nil {
		extra, n := rn.Prepare(c)
		args, solves = append(args, extra...), max(n, 1)
	}
	args = append(args, c.Dataset)
	run.Command, run.Revision = args, rn.Revision
	cmd := exec.Command(rn.Exe, args...)
	// Its own process group, so that stopping a run stops whatever it
	// started (process groups on unix, the process alone elsewhere).
	newGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		run.Status, run.Message, run.ExitCode = "failed", err.Error(), -1
		return run
	}
	overMemory := make(chan struct{})
	stopWatch := make(chan struct{})
	if rn.MemoryLimitMB > 0 {
		go watchMemory(cmd.Process, float64(rn.MemoryLimitMB), overMemory, stopWatch)
	}
	killed := make(chan struct{}) // closed when the run overran its limit
	go rn.supervise(ctx, cmd.Process, rn.TimeLimit*time.Duration(solves)+rn.grace(), killed, stopWatch)
	rn.setRunning(cmd.Process)
	err := cmd.Wait()
	rn.setRunning(nil)
	close(stopWatch)
	run.Seconds = time.Since(start).Seconds()
	run.stdout, run.stderr = stdout.Bytes(), stderr.Bytes()
	if ps := cmd.ProcessState; ps != nil {
		run.PeakMB = peakMB(ps)
		run.ExitCode = ps.ExitCode()
		run.CPUSeconds = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	select {
	case <-overMemory:
		run.Status = "memory-limit"
		run.Message = fmt.Sprintf("resident memory exceeded %d MB", rn.MemoryLimitMB)
		return run
	default:
	}
	overran := false
	select {
	case <-killed:
		overran = true
	default:
	}
	if err != nil {
		switch {
		case overran:
			run.Status = "killed"
			run.Message = fmt.Sprintf("no answer within the time limit plus %s grace", rn.grace())
		case run.ExitCode < 0:
			run.Status = "crashed"
			run.Message = err.Error()
		default:
			run.Status = "failed"
			run.Message = lastLine(stderr.String())
			if run.Message == "" {
				run.Message = err.Error()
			}
		}
		return run
	}
	var res model.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		run.Status, run.Message = "failed", "unreadable result: "+err.Error()
		return run
	}
	run.Status, run.Optimal = string(res.Status), res.Optimal
	var claims struct {
		Certified bool `json:"certified"`
	}
	if json.Unmarshal(stdout.Bytes(), &claims) == nil {
		run.Certified = claims.Certified
	}
	if res.Status == model.StatusInfeasible && res.Model == nil {
		run.Message = "proven infeasible: no model satisfies the problem as stated (" + problemText(res.Problem) + ")"
	}
	if res.Model != nil {
		e, o, lb := res.Errors, res.Objective, res.LowerBound
		run.Errors, run.Objective, run.LowerBound = &e, &o, &lb
	}
	if res.Incumbents != nil {
		run.Incumbents = res.Incumbents
	}
	run.Bounds = res.Bounds
	run.Learning = learningOf(&res)
	run.Formulation = formulationOf(res.Stats)
	if len(rn.ExportFormats) > 0 && c.Repeat == 1 && c.Protocol == "" {
		ex := rn.exportSize(ctx, c)
		if run.Formulation == nil {
			run.Formulation = &Formulation{}
		}
		run.Formulation.Exported = &ex
	}
	if n := len(run.Incumbents); n > 0 {
		t := run.Incumbents[n-1].Seconds
		run.TimeToBest = &t
	}
	if res.Optimal {
		t := res.Seconds
		run.TimeToProof = &t
	}
	return run
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// supervise stops the run's process group: with SIGKILL when it overruns
// budget (its time limits plus grace); when ctx ends (the grid is interrupted),
// with the signal that interrupted it (SIGINT unless ctx's cause is a
// Signal), then SIGKILL after stopGrace. It returns when done is closed.
func (rn *Runner) supervise(ctx context.Context, p *os.Process, budget time.Duration, killed chan<- struct{}, done <-chan struct{}) {
	var limit <-chan time.Time
	if rn.TimeLimit > 0 {
		t := time.NewTimer(budget)
		defer t.Stop()
		limit = t.C
	}
	select {
	case <-done:
		return
	case <-limit:
		close(killed)
		killGroup(p)
		return
	case <-ctx.Done():
	}
	var sig Signal
	if !errors.As(context.Cause(ctx), &sig) {
		sig = Signal{os.Interrupt}
	}
	signalGroup(p, sig.Sig)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		killGroup(p)
	}
}

// Signal is the cause of a grid stopped by a signal, forwarded to the
// running solve.
type Signal struct{ Sig os.Signal }

func (s Signal) Error() string { return "stopped by " + s.Sig.String() }

// watchMemory polls the process's resident set size and kills it when it
// exceeds limitMB.
func watchMemory(p *os.Process, limitMB float64, over chan<- struct{}, stop <-chan struct{}) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			if mb, ok := residentMB(p.Pid); ok && mb > limitMB {
				close(over)
				killGroup(p)
				return
			}
		}
	}
}

// residentMB reads VmRSS from /proc (Linux).
func residentMB(pid int) (float64, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				kb, err := strconv.ParseFloat(fs[0], 64)
				return kb / 1024, err == nil
			}
		}
	}
	return 0, false
}

// problemText states a problem's objective and limits in a few words.
func problemText(p model.Problem) string {
	parts := []string{"objective " + string(p.Objective)}
	if len(p.Skeleton) > 0 {
		parts = append(parts, fmt.Sprintf("skeleton %v", p.Skeleton))
	} else if d, ok := p.DepthLimit(); ok {
		parts = append(parts, fmt.Sprintf("max depth %d", d))
	}
	if p.MaxNodes > 0 {
		parts = append(parts, fmt.Sprintf("at most %d internal nodes", p.MaxNodes))
	}
	if p.MinSupport > 1 {
		parts = append(parts, fmt.Sprintf("at least %d rows per leaf", p.MinSupport))
	}
	return strings.Join(parts, ", ")
}
