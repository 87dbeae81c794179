//go:build highs

package milp

/*
#cgo pkg-config: highs
#include <stdlib.h>
#include <stdint.h>
#include "interfaces/highs_c_api.h"

// odtkitInterrupt asks HiGHS to stop once *flag (C memory, set from Go
// when the context is done) is non-zero.
static void odtkitInterrupt(int type, const char* msg, const HighsCallbackDataOut* out,
		HighsCallbackDataIn* in, void* flag) {
	if (in != NULL && __atomic_load_n((int32_t*)flag, __ATOMIC_RELAXED) != 0) {
		in->user_interrupt = 1;
	}
}

// odtkitWatch installs odtkitInterrupt for the simplex, IPM and MIP
// interrupt callbacks.
static HighsInt odtkitWatch(void* highs, int32_t* flag) {
	HighsInt s = Highs_setCallback(highs, odtkitInterrupt, flag);
	if (s < 0) return s;
	const int types[3] = {kHighsCallbackSimplexInterrupt, kHighsCallbackIpmInterrupt, kHighsCallbackMipInterrupt};
	for (int k = 0; k < 3; k++) {
		HighsInt t = Highs_startCallback(highs, types[k]);
		if (t < 0) return t;
	}
	return 0;
}

static void odtkitStop(int32_t* flag) { __atomic_store_n(flag, 1, __ATOMIC_RELAXED); }
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Constants of interfaces/highs_c_api.h (HiGHS 1.10).
const (
	hStatusOk                   = 0
	hSolutionStatusFeasible     = 2
	hModelNotset                = 0
	hModelLoadError             = 1
	hModelModelError            = 2
	hModelPresolveError         = 3
	hModelSolveError            = 4
	hModelPostsolveError        = 5
	hModelEmpty                 = 6
	hModelOptimal               = 7
	hModelInfeasible            = 8
	hModelUnboundedOrInfeasible = 9
	hModelUnbounded             = 10
	hModelObjectiveBound        = 11
	hModelObjectiveTarget       = 12
	hModelTimeLimit             = 13
	hModelIterationLimit        = 14
	hModelUnknown               = 15
	hModelSolutionLimit         = 16
	hModelInterrupt             = 17
)

// HiGHSEnabled reports whether the HiGHS adapter is compiled in (build
// tag `highs`).
const HiGHSEnabled = true

type highsSolver struct {
	// beforeRun, when set (tests), runs on HiGHS's goroutine just before
	// Highs_run: it stands in for a phase of HiGHS that checks neither its
	// time limit nor the interrupt callback.
	beforeRun func()
}

// abandonGrace is how long Solve waits, once ctx has ended, for HiGHS to
// act on the interrupt before it returns without it: short enough that a
// run ends within a second of its time limit with the result written.
const abandonGrace = 500 * time.Millisecond

// HiGHS returns the adapter to the HiGHS solver, bound through its C API
// (interfaces/highs_c_api.h of the installed library).
func HiGHS() Solver { return highsSolver{} }

func (highsSolver) Name() string { return "highs" }

// Solve builds the model in a fresh HiGHS instance and runs it on a
// goroutine of its own. When ctx ends, a context.AfterFunc raises the flag
// that the interrupt callback (polled by HiGHS's simplex, IPM and MIP
// loops) turns into a user interrupt; the incumbent and bound are then read
// as after a time limit. Some phases of HiGHS poll neither the callback nor
// the time limit (upstream ERGO-Code/HiGHS issues 885, 1501, 2226; a
// diagram model ran on long past its limit, see docs/benchmarks.md,
// "Figures behind constants and defaults"): if HiGHS has not returned
// abandonGrace after ctx ended, Solve returns a solution without values
// (StatusNoSolution, no bound, SolverStatus "abandoned ...") and the
// instance is destroyed by its goroutine when HiGHS returns. Otherwise
// nothing outlives the call.
func (h0 highsSolver) Solve(ctx context.Context, m *Model, p Params) (*Solution, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if len(m.Columns) == 0 {
		return nil, errors.New("milp: model has no columns")
	}
	if ctx.Err() != nil {
		return cancelled(m, ctx), nil
	}
	start := time.Now()
	n := len(m.Columns)
	lb, ub, cost := make([]C.double, n), make([]C.double, n), make([]C.double, n)
	integrality := make([]C.HighsInt, n)
	for j, c := range m.Columns {
		lb[j], ub[j], cost[j] = C.double(c.Lower), C.double(c.Upper), C.double(c.Cost)
		if c.Integer {
			integrality[j] = C.kHighsVarTypeInteger
		}
	}
	// Rows in compressed sparse row form; an empty row is decided here.
	var rlo, rhi, val []C.double
	var rstart, idx []C.HighsInt
	for i, r := range m.Rows {
		if i%4096 == 0 && ctx.Err() != nil {
			return cancelled(m, ctx), nil
		}
		if len(r.Index) == 0 {
			if r.Lower > 0 || r.Upper < 0 {
				return &Solution{Status: StatusInfeasible, Bound: math.Inf(1), SolverStatus: "empty row " + r.Name + " infeasible"}, nil
			}
			continue
		}
		rlo, rhi = append(rlo, C.double(r.Lower)), append(rhi, C.double(r.Upper))
		rstart = append(rstart, C.HighsInt(len(idx)))
		for k, j := range r.Index {
			idx, val = append(idx, C.HighsInt(j)), append(val, C.double(r.Value[k]))
		}
	}
	// Go memory passed to C must not hold Go pointers (it does not) and
	// the empty slices need a valid address.
	ptrD := func(s []C.double) *C.double {
		if len(s) == 0 {
			return nil
		}
		return &s[0]
	}
	ptrI := func(s []C.HighsInt) *C.HighsInt {
		if len(s) == 0 {
			return nil
		}
		return &s[0]
	}
	sense := C.HighsInt(C.kHighsObjSenseMinimize)
	if m.Sense == Maximize {
		sense = C.kHighsObjSenseMaximize
	}
	h := C.Highs_create()
	if h == nil {
		return nil, errors.New("milp: HiGHS: cannot create an instance")
	}
	// The interrupt flag lives in C memory: HiGHS keeps its address.
	flag := (*C.int32_t)(C.calloc(1, 4))
	release := func() {
		C.free(unsafe.Pointer(flag))
		C.Highs_destroy(h)
	}
	owned := true // false once an abandoned run's goroutine releases them
	defer func() {
		if owned {
			release()
		}
	}()
	if flag == nil {
		return nil, errors.New("milp: out of memory")
	}
	if err := highsOptions(h, ctx, p); err != nil {
		return nil, err
	}
	if st := C.Highs_passMip(h, C.HighsInt(n), C.HighsInt(len(rlo)), C.HighsInt(len(idx)), C.kHighsMatrixFormatRowwise, sense,
		C.double(m.Offset), ptrD(cost), ptrD(lb), ptrD(ub), ptrD(rlo), ptrD(rhi), ptrI(rstart), ptrI(idx), ptrD(val), ptrI(integrality)); st == C.kHighsStatusError {
		return nil, errors.New("milp: HiGHS refused the model")
	}
	if ctx.Err() != nil { // passing a large model takes a while
		return cancelled(m, ctx), nil
	}
	if len(p.Start) == n {
		x := make([]C.double, n)
		for j, v := range p.Start {
			x[j] = C.double(v)
		}
		// A start HiGHS rejects (infeasible) is only a warning.
		C.Highs_setSolution(h, &x[0], nil, nil, nil)
	}
	if C.odtkitWatch(h, flag) < 0 {
		return nil, errors.New("milp: HiGHS refused the interrupt callback")
	}
	raised := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		C.odtkitStop(flag)
		close(raised)
	})
	// The memory watch raises the same flag when the process's resident
	// memory reaches the limit (HiGHS's branch and bound grows outside
	// the Go heap); it ends before Solve returns, so before the flag is
	// freed.
	memRaised := make(chan struct{})
	var overMemory atomic.Bool
	if p.MemoryLimit > 0 {
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			// At 80 % of the limit: HiGHS acts on the flag at its next poll
			// and keeps allocating until then (cuts at the root of a large
			// tree MILP; see docs/benchmarks.md, "Figures behind constants
			// and defaults").
			at := p.MemoryLimit / 5 * 4
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				if rss := residentBytes(); rss > at {
					overMemory.Store(true)
					C.odtkitStop(flag)
					close(memRaised)
					return
				}
			}
		}()
		defer func() {
			close(done)
			wg.Wait()
		}()
	}
	ran := make(chan C.HighsInt, 1)
	go func() {
		if h0.beforeRun != nil {
			h0.beforeRun()
		}
		ran <- C.Highs_run(h)
	}()
	var runStatus C.HighsInt
	returned := false
	select {
	case runStatus = <-ran:
		returned = true
	case <-raised:
	case <-memRaised:
	}
	if !returned {
		select {
		case runStatus = <-ran:
		case <-time.After(abandonGrace):
			owned = false
			go func() {
				<-ran
				release()
			}()
			why := fmt.Sprintf("the context's end (%v)", ctx.Err())
			if overMemory.Load() {
				why = "reaching the memory limit"
			}
			return &Solution{Status: StatusNoSolution, Bound: noBound(m.Sense), Seconds: time.Since(start).Seconds(),
				TimeLimit: errors.Is(ctx.Err(), context.DeadlineExceeded), MemoryLimit: overMemory.Load(),
				SolverStatus: fmt.Sprintf("abandoned: HiGHS did not stop within %v of %s", abandonGrace, why)}, nil
		}
	}
	if !stop() {
		<-raised // the flag was raised: wait for that call to end
	}
	sol, err := readSolution(h, n, m.Sense, runStatus)
	if err != nil {
		return nil, err
	}
	if p.HasCutoff {
		applyCutoff(sol, m.Sense, p.Cutoff)
	}
	settleOptimal(sol, m.Sense, m.NumIntegers() > 0)
	if !p.HasCutoff && sol.Status == StatusInfeasible && sol.SolverStatus == highsStatusName[hModelObjectiveBound] {
		// An objective bound among the raw options: nothing better than
		// it, which proves nothing about the model.
		sol.Status, sol.Bound = StatusNoSolution, noBound(m.Sense)
	}
	sol.Seconds = time.Since(start).Seconds()
	if overMemory.Load() && sol.Status != StatusOptimal && sol.Status != StatusInfeasible {
		sol.MemoryLimit = true
		sol.SolverStatus += " (memory limit)"
	}
	if ctx.Err() != nil && sol.Status != StatusOptimal && sol.Status != StatusInfeasible {
		sol.TimeLimit = sol.TimeLimit || errors.Is(ctx.Err(), context.DeadlineExceeded)
		sol.SolverStatus += " (context " + ctx.Err().Error() + ")"
	}
	return sol, nil
}

// cancelled is the solution of a run stopped by ctx before HiGHS ran.
func cancelled(m *Model, ctx context.Context) *Solution {
	return &Solution{Status: StatusNoSolution, Bound: noBound(m.Sense), SolverStatus: "cancelled",
		TimeLimit: errors.Is(ctx.Err(), context.DeadlineExceeded)}
}

// highsOptions sets the solve's options on h.
func highsOptions(h unsafe.Pointer, ctx context.Context, p Params) error {
	set := func(name string, f func(*C.char) C.HighsInt) error {
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		if f(cs) == C.kHighsStatusError {
			return fmt.Errorf("%w %s", ErrOption, name)
		}
		return nil
	}
	b := func(v bool) C.HighsInt {
		if v {
			return 1
		}
		return 0
	}
	steps := []error{
		set("output_flag", func(s *C.char) C.HighsInt { return C.Highs_setBoolOptionValue(h, s, b(p.Verbose)) }),
		set("mip_rel_gap", func(s *C.char) C.HighsInt { return C.Highs_setDoubleOptionValue(h, s, C.double(max(p.RelGap, 0))) }),
		set("random_seed", func(s *C.char) C.HighsInt { return C.Highs_setIntOptionValue(h, s, C.HighsInt(p.Seed)) }),
	}
	if limit, ok := deadline(ctx, p.TimeLimit); ok {
		steps = append(steps, set("time_limit", func(s *C.char) C.HighsInt { return C.Highs_setDoubleOptionValue(h, s, C.double(limit.Seconds())) }))
	}
	if p.Threads > 0 {
		// HiGHS fixes its thread pool at the first solve of the process:
		// a different count later is only a warning.
		steps = append(steps, set("threads", func(s *C.char) C.HighsInt { return C.Highs_setIntOptionValue(h, s, C.HighsInt(p.Threads)) }))
	}
	for _, k := range slices.Sorted(maps.Keys(p.Options)) {
		cv := C.CString(p.Options[k])
		err := set(k, func(s *C.char) C.HighsInt { return C.Highs_setOptionValue(h, s, cv) })
		C.free(unsafe.Pointer(cv))
		if err != nil {
			err = fmt.Errorf("%w (value %q)", err, p.Options[k])
		}
		steps = append(steps, err)
	}
	if p.HasCutoff {
		steps = append(steps, set("objective_bound", func(s *C.char) C.HighsInt { return C.Highs_setDoubleOptionValue(h, s, C.double(p.Cutoff)) }))
	}
	return errors.Join(steps...)
}

func dinfo(h unsafe.Pointer, name string) float64 {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var v C.double
	if C.Highs_getDoubleInfoValue(h, cs, &v) != hStatusOk {
		return math.NaN()
	}
	return float64(v)
}

func iinfo(h unsafe.Pointer, name string) int64 {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var v C.HighsInt
	if C.Highs_getIntInfoValue(h, cs, &v) != hStatusOk {
		return -1
	}
	return int64(v)
}

func i64info(h unsafe.Pointer, name string) int64 {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var v C.int64_t
	if C.Highs_getInt64InfoValue(h, cs, &v) != hStatusOk {
		return -1
	}
	return int64(v)
}

var highsStatusName = map[int]string{
	hModelNotset: "not set", hModelLoadError: "load error",
	hModelModelError: "model error", hModelPresolveError: "presolve error",
	hModelSolveError: "solve error", hModelPostsolveError: "postsolve error",
	hModelEmpty: "empty", hModelOptimal: "optimal",
	hModelInfeasible: "infeasible", hModelUnboundedOrInfeasible: "unbounded or infeasible",
	hModelUnbounded: "unbounded", hModelObjectiveBound: "objective bound",
	hModelObjectiveTarget: "objective target", hModelTimeLimit: "time limit",
	hModelIterationLimit: "iteration limit", hModelUnknown: "unknown",
	hModelSolutionLimit: "solution limit", hModelInterrupt: "interrupt",
}

// readSolution reads the outcome of a run, HiGHS's "optimal" as it says
// it (see settleOptimal).
func readSolution(h unsafe.Pointer, n int, sense Sense, runStatus C.HighsInt) (*Solution, error) {
	if runStatus == C.kHighsStatusError {
		ms := int(C.Highs_getModelStatus(h))
		return nil, fmt.Errorf("milp: HiGHS run failed (model status %q)", highsStatusName[ms])
	}
	ms := int(C.Highs_getModelStatus(h))
	sol := &Solution{SolverStatus: highsStatusName[ms]}
	if sol.SolverStatus == "" {
		sol.SolverStatus = fmt.Sprintf("status %d", int(ms))
	}
	worst := noBound(sense)
	sol.Bound = worst
	hasX := iinfo(h, "primal_solution_status") == hSolutionStatusFeasible
	if hasX {
		x := make([]C.double, n)
		nr := int(C.Highs_getNumRow(h))
		cd := make([]C.double, n)
		rv := make([]C.double, max(nr, 1))
		rd := make([]C.double, max(nr, 1))
		if C.Highs_getSolution(h, &x[0], &cd[0], &rv[0], &rd[0]) != hStatusOk {
			return nil, errors.New("milp: HiGHS: could not read the solution")
		}
		sol.X = make([]float64, n)
		for j := range x {
			sol.X[j] = float64(x[j])
		}
		sol.Objective = dinfo(h, "objective_function_value")
	}
	if b := dinfo(h, "mip_dual_bound"); !math.IsNaN(b) && !math.IsInf(b, 0) {
		sol.Bound = b
	}
	sol.Gap = dinfo(h, "mip_gap")
	sol.Nodes = i64info(h, "mip_node_count")
	sol.TimeLimit = ms == hModelTimeLimit
	switch ms {
	case hModelOptimal:
		if !hasX {
			return nil, errors.New("milp: HiGHS reports optimal without a solution")
		}
		// HiGHS's word; settleOptimal compares it with the bound.
		sol.Status = StatusOptimal
	case hModelInfeasible, hModelObjectiveBound:
		sol.Status, sol.X, sol.Bound = StatusInfeasible, nil, -worst
	case hModelEmpty:
		return nil, errors.New("milp: HiGHS: empty model")
	case hModelUnbounded, hModelUnboundedOrInfeasible:
		return nil, fmt.Errorf("milp: HiGHS: model is %s", sol.SolverStatus)
	case hModelLoadError, hModelModelError, hModelPresolveError,
		hModelSolveError, hModelPostsolveError, hModelNotset:
		return nil, fmt.Errorf("milp: HiGHS: %s", sol.SolverStatus)
	default:
		if hasX {
			sol.Status = StatusFeasible
		} else {
			sol.Status = StatusNoSolution
		}
	}
	return sol, nil
}

// settleOptimal decides HiGHS's "optimal" from the bound read back: HiGHS
// says it as soon as the gap is within its tolerances (mip_rel_gap,
// mip_abs_gap, which the gap option or raw options may loosen), so it is
// a proven optimum only when the dual bound meets the objective;
// otherwise the solution is feasible with that bound. An LP (mip false)
// solved to optimality is its own bound.
func settleOptimal(sol *Solution, sense Sense, mip bool) {
	if sol.Status != StatusOptimal {
		return
	}
	if mip && !closed(sol.Objective, sol.Bound, sense) {
		sol.Status, sol.SolverStatus = StatusFeasible, sol.SolverStatus+fmt.Sprintf(" within a gap (dual bound %v)", sol.Bound)
		return
	}
	sol.Bound, sol.Gap = sol.Objective, 0
}

// closed reports whether the bound meets the objective, within HiGHS's
// default absolute gap tolerance (1e-6) relative to the objective's size.
func closed(obj, bound float64, sense Sense) bool {
	if math.IsNaN(bound) || math.IsInf(bound, 0) {
		return false
	}
	d := obj - bound
	if sense == Maximize {
		d = -d
	}
	return d <= 1e-6*max(1, math.Abs(obj))+1e-9
}

// applyCutoff corrects HiGHS 1.10's report when the objective bound cuts
// off every solution: it then says "optimal" (or "time limit") and returns
// a point that is not better than the cutoff. After a complete search no
// solution beyond the cutoff exists, so the cutoff is a valid bound.
func applyCutoff(sol *Solution, sense Sense, cutoff float64) {
	tol := 1e-9 * max(1, math.Abs(cutoff))
	worse := func(v float64) bool {
		if sense == Maximize {
			return v < cutoff-tol
		}
		return v > cutoff+tol
	}
	if sol.X != nil && worse(sol.Objective) {
		// Not a solution HiGHS found: it never accepts one beyond the
		// bound. Proven only when HiGHS finished its search.
		sol.X, sol.Objective, sol.Gap = nil, 0, 0
		if sol.Status == StatusOptimal {
			sol.Status = StatusInfeasible
			sol.SolverStatus += " (nothing better than the cutoff)"
		} else {
			sol.Status = StatusNoSolution
			sol.SolverStatus += " (nothing better than the cutoff yet)"
		}
	}
	if sol.Status == StatusInfeasible {
		sol.Bound = cutoff
	}
}
