//go:build highs

package milp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bruteForce enumerates the integer box of a pure integer model.
func bruteForce(m *Model) (best float64, found bool) {
	n := len(m.Columns)
	x := make([]float64, n)
	best = math.Inf(1)
	var rec func(j int)
	rec = func(j int) {
		if j == n {
			if m.CheckPoint(x, 1e-9) == nil {
				if v := m.Objective(x); v < best {
					best, found = v, true
				}
			}
			return
		}
		for v := m.Columns[j].Lower; v <= m.Columns[j].Upper; v++ {
			x[j] = v
			rec(j + 1)
		}
	}
	rec(0)
	return best, found
}

func TestHiGHSMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := range 60 {
		m := &Model{Offset: float64(r.IntN(3))}
		n := 2 + r.IntN(3)
		for j := range n {
			m.AddColumn(fmt.Sprintf("x%d", j), float64(-r.IntN(2)), float64(1+r.IntN(3)), float64(r.IntN(11)-5), true)
		}
		for i := range 1 + r.IntN(3) {
			var idx []int
			var val []float64
			for j := range n {
				idx, val = append(idx, j), append(val, float64(r.IntN(7)-3))
			}
			m.AddRow(fmt.Sprintf("r%d", i), float64(-r.IntN(6)), float64(r.IntN(6)), idx, val)
		}
		want, feasible := bruteForce(m)
		sol, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !feasible {
			if sol.Status != StatusInfeasible {
				t.Fatalf("model %d: infeasible by enumeration, HiGHS says %s", k, sol.Status)
			}
			continue
		}
		if sol.Status != StatusOptimal || math.Abs(sol.Objective-want) > 1e-6 {
			t.Fatalf("model %d: HiGHS %s %v, enumeration %v", k, sol.Status, sol.Objective, want)
		}
		if err := m.CheckPoint(sol.X, 1e-6); err != nil {
			t.Fatalf("model %d: HiGHS solution: %v", k, err)
		}
		// A cutoff just below the optimum leaves nothing; at it, the optimum.
		below, err := HiGHS().Solve(context.Background(), m, Params{Cutoff: want - 0.5, HasCutoff: true})
		if err != nil {
			t.Fatal(err)
		}
		if below.Status != StatusInfeasible {
			t.Fatalf("model %d: cutoff below the optimum %v: status %s (%v)", k, want, below.Status, below.Objective)
		}
	}
}

// knapsacks is a model HiGHS does not solve in a few milliseconds.
func knapsacks(n, k int) *Model {
	r := rand.New(rand.NewPCG(1, 1))
	m := &Model{Sense: Maximize}
	for j := range n {
		m.AddBinary(fmt.Sprintf("x%d", j), float64(r.IntN(1000)+1))
	}
	for i := range k {
		idx := make([]int, n)
		val := make([]float64, n)
		sum := 0.0
		for j := range n {
			idx[j], val[j] = j, float64(r.IntN(1000)+1)
			sum += val[j]
		}
		m.AddRow(fmt.Sprintf("c%d", i), -Inf, math.Round(sum/3), idx, val)
	}
	return m
}

func TestHiGHSTimeLimitKeepsIncumbent(t *testing.T) {
	m := knapsacks(60, 30)
	sol, err := HiGHS().Solve(context.Background(), m, Params{TimeLimit: 300 * time.Millisecond, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status == StatusOptimal {
		t.Skip("solved to optimality within the time limit; nothing to check")
	}
	if sol.Status != StatusFeasible || sol.X == nil || !sol.TimeLimit {
		t.Fatalf("status %s (%s, time limit %v) without incumbent after the time limit", sol.Status, sol.SolverStatus, sol.TimeLimit)
	}
	if err := m.CheckPoint(sol.X, 1e-6); err != nil {
		t.Fatal(err)
	}
	if sol.Bound < sol.Objective-1e-6 {
		t.Fatalf("maximising: bound %v below objective %v", sol.Bound, sol.Objective)
	}
	if math.Abs(m.Objective(sol.X)-sol.Objective) > 1e-6 {
		t.Fatalf("objective %v, the point gives %v", sol.Objective, m.Objective(sol.X))
	}
}

func TestHiGHSCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sol, err := HiGHS().Solve(ctx, knapsacks(10, 2), Params{})
	if err != nil || sol.Status != StatusNoSolution || sol.TimeLimit {
		t.Fatalf("cancelled context: %v %v", sol, err)
	}
}

// Cancelling the context interrupts HiGHS (no time limit set): Solve
// returns its incumbent and bound instead of leaving it running.
// TestHiGHSCancelInterruptsTheRun: a cancel stops HiGHS through the
// interrupt callback; Solve returns promptly (generous bound: 2 s after
// the cancel, the contract asks 1 s) and leaves no goroutine behind.
func TestHiGHSCancelInterruptsTheRun(t *testing.T) {
	m := knapsacks(60, 30)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	time.AfterFunc(300*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	begin := time.Now()
	sol, err := HiGHS().Solve(ctx, m, Params{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		if lat := time.Since(cancelled); lat > 2*time.Second {
			t.Fatalf("Solve returned %v after the cancel", lat)
		} else {
			t.Logf("Solve returned %v after the cancel", lat)
		}
	}
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond) // the timer's goroutine ends
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Solve, %d before", n, before)
	}
	if sol.Status == StatusOptimal {
		t.Skip("solved before the cancellation")
	}
	if !strings.Contains(sol.SolverStatus, "interrupt") || sol.TimeLimit {
		t.Fatalf("after %v: %s (%s), time limit %v; want HiGHS interrupted", time.Since(begin), sol.Status, sol.SolverStatus, sol.TimeLimit)
	}
	if sol.X != nil {
		if err := m.CheckPoint(sol.X, 1e-6); err != nil {
			t.Fatal(err)
		}
		if sol.Status != StatusFeasible || sol.Bound < sol.Objective-1e-6 {
			t.Fatalf("%s: objective %v, bound %v (maximising)", sol.Status, sol.Objective, sol.Bound)
		}
	}
	t.Logf("%s (%s) after %v: objective %v, bound %v", sol.Status, sol.SolverStatus, time.Since(begin), sol.Objective, sol.Bound)
}

func TestHiGHSCutoffWithTimeLimitProvesNothing(t *testing.T) {
	m := knapsacks(60, 30)
	first, err := HiGHS().Solve(context.Background(), m, Params{TimeLimit: 300 * time.Millisecond, Threads: 1})
	if err != nil || first.X == nil {
		t.Fatalf("%v %v", first, err)
	}
	if first.Status == StatusOptimal {
		t.Skip("solved within the time limit")
	}
	// Maximising: ask for better than the incumbent. Unless HiGHS finishes
	// before the time limit, "infeasible" would be a false proof.
	sol, err := HiGHS().Solve(context.Background(), m, Params{TimeLimit: 300 * time.Millisecond, Threads: 1, Cutoff: first.Objective + 1, HasCutoff: true})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status == StatusInfeasible && sol.Seconds >= 0.29 {
		t.Fatalf("status infeasible (%s) after hitting the time limit", sol.SolverStatus)
	}
	if sol.X != nil && sol.Objective < first.Objective+1-1e-6 {
		t.Fatalf("a solution %v not better than the cutoff %v", sol.Objective, first.Objective+1)
	}
	t.Logf("%s (%s) in %.2fs", sol.Status, sol.SolverStatus, sol.Seconds)
}

func TestHiGHSMIPStart(t *testing.T) {
	m := knapsacks(60, 30)
	// A feasible point: the greedy fill of item 0, 1, … while it fits.
	x := make([]float64, len(m.Columns))
	for j := range x {
		x[j] = 1
		if m.CheckPoint(x, 0) != nil {
			x[j] = 0
		}
	}
	start := m.Objective(x)
	sol, err := HiGHS().Solve(context.Background(), m, Params{TimeLimit: time.Millisecond, Threads: 1, Start: x})
	if err != nil {
		t.Fatal(err)
	}
	if sol.X == nil || sol.Objective < start-1e-9 {
		t.Fatalf("with a start of value %v: %s %v", start, sol.Status, sol.Objective)
	}
	if err := m.CheckPoint(sol.X, 1e-6); err != nil {
		t.Fatal(err)
	}
}

// HiGHS says "optimal" once the gap is within mip_rel_gap; with a gap
// asked for, only a closed gap is a proof.
func TestHiGHSRelativeGapIsNotAProof(t *testing.T) {
	m := knapsacks(30, 10)
	exact, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1})
	if err != nil || exact.Status != StatusOptimal {
		t.Fatalf("exact solve: %v %v", exact, err)
	}
	stoppedEarly := false
	for _, gap := range []float64{0.01, 0.05, 0.2, 0.5} {
		sol, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1, RelGap: gap})
		if err != nil {
			t.Fatal(err)
		}
		if sol.X == nil || m.CheckPoint(sol.X, 1e-6) != nil {
			t.Fatalf("gap %v: %s without a feasible point", gap, sol.Status)
		}
		switch sol.Status {
		case StatusOptimal:
			if math.Abs(sol.Objective-exact.Objective) > 1e-6 {
				t.Fatalf("gap %v: claims optimal %v, the optimum is %v", gap, sol.Objective, exact.Objective)
			}
		case StatusFeasible:
			stoppedEarly = true
			// Maximising: the bound is above the optimum, within the gap.
			if sol.Bound < exact.Objective-1e-6 || sol.Bound-sol.Objective > gap*math.Abs(sol.Objective)+1e-6 || sol.TimeLimit {
				t.Fatalf("gap %v: objective %v, bound %v, optimum %v, time limit %v", gap, sol.Objective, sol.Bound, exact.Objective, sol.TimeLimit)
			}
		default:
			t.Fatalf("gap %v: status %s", gap, sol.Status)
		}
	}
	if !stoppedEarly {
		t.Skip("HiGHS closed the gap every time; nothing stopped early")
	}
}

// Params.Options reach HiGHS: a zero time limit set through them stops
// the solve before it proves anything, a harmless option leaves the
// optimum alone, and a refused name or value is ErrOption naming it.
func TestHiGHSOptions(t *testing.T) {
	m := knapsacks(30, 10)
	exact, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1})
	if err != nil || exact.Status != StatusOptimal {
		t.Fatalf("exact solve: %v %v", exact, err)
	}
	off, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1, Options: map[string]string{"presolve": "off", "mip_detect_symmetry": "false"}})
	if err != nil || off.Status != StatusOptimal || math.Abs(off.Objective-exact.Objective) > 1e-6 {
		t.Fatalf("presolve off: %+v %v, want the optimum %v", off, err, exact.Objective)
	}
	stopped, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1, Options: map[string]string{"time_limit": "0"}})
	if err != nil || stopped.Status == StatusOptimal || !stopped.TimeLimit {
		t.Fatalf("time_limit 0 through Options: %+v %v, want a time-limit stop", stopped, err)
	}
	for _, bad := range []map[string]string{{"no_such_option": "1"}, {"presolve": "sideways"}, {"mip_rel_gap": "much"}} {
		_, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1, Options: bad})
		for k := range bad {
			if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), k) {
				t.Errorf("option %v: %v, want ErrOption naming %s", bad, err, k)
			}
		}
	}
}

// TestHiGHSAbandonsAStuckRun: when HiGHS acts on neither the interrupt
// nor its time limit (here a pause before Highs_run stands in for such a
// phase), Solve returns abandonGrace after the context's end without
// values, says so, and the run's goroutine frees HiGHS when it returns.
func TestHiGHSAbandonsAStuckRun(t *testing.T) {
	release := make(chan struct{})
	resumed := make(chan struct{})
	s := highsSolver{beforeRun: func() { <-release; close(resumed) }}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	sol, err := s.Solve(ctx, knapsacks(10, 2), Params{Threads: 1})
	took := time.Since(begin)
	if err != nil {
		t.Fatal(err)
	}
	if took < abandonGrace || took > abandonGrace+3*time.Second {
		t.Errorf("Solve returned after %v; want the grace %v after the 100 ms deadline", took, abandonGrace)
	}
	if sol.Status != StatusNoSolution || sol.X != nil || !sol.TimeLimit || !strings.Contains(sol.SolverStatus, "abandoned") {
		t.Fatalf("abandoned run: %+v", sol)
	}
	if runtime.NumGoroutine() <= before {
		t.Fatal("no goroutine left to finish the abandoned run")
	}
	close(release) // HiGHS now runs, sees the raised flag and returns
	<-resumed
	for i := 0; runtime.NumGoroutine() > before && i < 500; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the abandoned run ended, %d before", n, before)
	}
}

// TestHiGHSMemoryLimit: a resident-memory limit the process already
// exceeds stops HiGHS as an interrupt does: promptly, reported as a
// memory stop, with no proof claimed; a limit far above changes nothing.
func TestHiGHSMemoryLimit(t *testing.T) {
	if residentBytes() == 0 {
		t.Skip("no /proc/self/statm: the memory watch is off")
	}
	m := knapsacks(60, 30)
	begin := time.Now()
	sol, err := HiGHS().Solve(context.Background(), m, Params{Threads: 1, MemoryLimit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.MemoryLimit || sol.Status == StatusOptimal || time.Since(begin) > 5*time.Second {
		t.Fatalf("1 MiB limit: %+v after %v, want a prompt memory stop", sol, time.Since(begin))
	}
	sol, err = HiGHS().Solve(context.Background(), knapsacks(10, 2), Params{Threads: 1, MemoryLimit: 1 << 40})
	if err != nil || sol.MemoryLimit || sol.Status != StatusOptimal {
		t.Fatalf("1 TiB limit: %+v %v", sol, err)
	}
}
