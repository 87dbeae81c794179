//go:build highs

package milp

/*
#cgo pkg-config: highs
#include <stdlib.h>
#include <stdint.h>
#include "util/HighsInt.h"

// Prototypes from interfaces/highs_c_api.h, which cannot be included here:
// it defines its constants as non-static globals, which lanl/highs
// already defines (duplicate symbols at link time).
HighsInt Highs_getModelStatus(const void* highs);
HighsInt Highs_getNumRow(const void* highs);
HighsInt Highs_getSolution(const void* highs, double* col_value, double* col_dual, double* row_value, double* row_dual);
HighsInt Highs_getDoubleInfoValue(const void* highs, const char* info, double* value);
HighsInt Highs_getIntInfoValue(const void* highs, const char* info, HighsInt* value);
HighsInt Highs_getInt64InfoValue(const void* highs, const char* info, int64_t* value);
HighsInt Highs_setSolution(void* highs, const double* col_value, const double* row_value, const double* col_dual, const double* row_dual);

// The callback types (lp_data/HighsCallbackStruct.h, types only) and the
// callback calls of the C API.
#include "lp_data/HighsCallbackStruct.h"
HighsInt Highs_setCallback(void* highs, HighsCCallbackType user_callback, void* user_callback_data);
HighsInt Highs_startCallback(void* highs, const int callback_type);

// odtkitInterrupt asks HiGHS to stop once *flag (C memory, set from Go
// when the context is done) is non-zero.
static void odtkitInterrupt(int type, const char* msg, const HighsCallbackDataOut* out,
		HighsCallbackDataIn* in, void* flag) {
	if (in != NULL && __atomic_load_n((int32_t*)flag, __ATOMIC_RELAXED) != 0) {
		in->user_interrupt = 1;
	}
}

// odtkitWatch installs odtkitInterrupt for the simplex, IPM and MIP
// interrupt callbacks (kHighsCallback{Simplex,Ipm,Mip}Interrupt = 1, 2, 6).
static HighsInt odtkitWatch(void* highs, int32_t* flag) {
	HighsInt s = Highs_setCallback(highs, odtkitInterrupt, flag);
	if (s < 0) return s;
	const int types[3] = {1, 2, 6};
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
	"math"
	"reflect"
	"runtime"
	"time"
	"unsafe"

	"github.com/lanl/highs"
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

type highsSolver struct{}

// HiGHS returns the adapter to the HiGHS solver (github.com/lanl/highs).
func HiGHS() Solver { return highsSolver{} }

func (highsSolver) Name() string { return "highs" }

// handle returns the Highs instance behind a lanl/highs RawModel.
//
// lanl/highs v1.0.0 drops the solution whenever Highs_run returns a
// warning, which HiGHS does for every time-limited run; the incumbent, the
// dual bound and the status are still in the Highs instance, so we read
// them from it with the C API. The field is unexported, hence reflection;
// the check below turns a layout change of the package into an error.
func handle(raw *highs.RawModel) (unsafe.Pointer, error) {
	f := reflect.ValueOf(raw).Elem().FieldByName("obj")
	if !f.IsValid() || f.Kind() != reflect.UnsafePointer {
		return nil, errors.New("milp: unexpected github.com/lanl/highs RawModel layout (want v1.0.0)")
	}
	return f.UnsafePointer(), nil
}

func setOpt(err error) error {
	var cs highs.CallStatus
	if errors.As(err, &cs) && cs.IsWarning() {
		return nil
	}
	return err
}

func (highsSolver) Solve(ctx context.Context, m *Model, p Params) (*Solution, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if len(m.Columns) == 0 {
		return nil, errors.New("milp: model has no columns")
	}
	if err := ctx.Err(); err != nil {
		return &Solution{Status: StatusNoSolution, Bound: noBound(m.Sense), SolverStatus: "cancelled",
			TimeLimit: errors.Is(err, context.DeadlineExceeded)}, nil
	}
	start := time.Now()
	raw := highs.NewRawModel()
	defer runtime.KeepAlive(raw)
	n := len(m.Columns)
	lb, ub, cost := make([]float64, n), make([]float64, n), make([]float64, n)
	types := make([]highs.VariableType, n)
	for j, c := range m.Columns {
		lb[j], ub[j], cost[j] = c.Lower, c.Upper, c.Cost
		if c.Integer {
			types[j] = highs.IntegerType
		}
	}
	steps := []func() error{
		func() error { return raw.SetBoolOption("output_flag", p.Verbose) },
		func() error { return raw.AddColumnBounds(lb, ub) },
		func() error { return raw.SetColumnCosts(cost) },
		func() error { return raw.SetOffset(m.Offset) },
		func() error { return raw.SetMaximization(m.Sense == Maximize) },
		func() error { return raw.SetIntegrality(types) },
	}
	// Rows in compressed sparse row form; empty rows are checked here
	// (the C call needs at least one entry).
	var rlo, rhi, val []float64
	var startIdx, idx []int
	for _, r := range m.Rows {
		if len(r.Index) == 0 {
			if r.Lower > 0 || r.Upper < 0 {
				return &Solution{Status: StatusInfeasible, Bound: math.Inf(1), SolverStatus: "empty row " + r.Name + " infeasible"}, nil
			}
			continue
		}
		rlo, rhi = append(rlo, r.Lower), append(rhi, r.Upper)
		startIdx = append(startIdx, len(idx))
		idx = append(idx, r.Index...)
		val = append(val, r.Value...)
	}
	if len(rlo) > 0 {
		steps = append(steps, func() error { return raw.AddCompSparseRows(rlo, startIdx, idx, val, rhi) })
	}
	steps = append(steps,
		func() error { return raw.SetFloat64Option("mip_rel_gap", max(p.RelGap, 0)) },
		func() error { return raw.SetIntOption("random_seed", p.Seed) },
	)
	if limit, ok := deadline(ctx, p.TimeLimit); ok {
		steps = append(steps, func() error { return raw.SetFloat64Option("time_limit", limit.Seconds()) })
	}
	if p.Threads > 0 {
		steps = append(steps, func() error { return setOpt(raw.SetIntOption("threads", p.Threads)) })
	}
	if p.HasCutoff {
		steps = append(steps, func() error { return raw.SetFloat64Option("objective_bound", p.Cutoff) })
	}
	for _, step := range steps {
		if err := setOpt(step()); err != nil {
			return nil, fmt.Errorf("milp: setting up HiGHS: %w", err)
		}
	}
	h, err := handle(raw)
	if err != nil {
		return nil, err
	}
	if len(p.Start) == n {
		start := make([]C.double, n)
		for j, v := range p.Start {
			start[j] = C.double(v)
		}
		// A start HiGHS rejects (infeasible) is only a warning.
		C.Highs_setSolution(h, &start[0], nil, nil, nil)
	}
	// Highs_run runs in a goroutine; when the context is done, the
	// interrupt callback (polled by HiGHS's simplex, IPM and MIP loops)
	// stops it, and its incumbent and bound are read as after a time
	// limit. The flag lives in C memory until the run has ended.
	flag := (*C.int32_t)(C.calloc(1, 4))
	if flag == nil {
		return nil, errors.New("milp: out of memory")
	}
	if C.odtkitWatch(h, flag) < 0 {
		C.free(unsafe.Pointer(flag))
		return nil, errors.New("milp: HiGHS refused the interrupt callback")
	}
	type outcome struct {
		sol *Solution
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		_, runErr := raw.Solve()
		sol, err := readSolution(h, n, m.Sense, p.RelGap, runErr)
		if err == nil && p.HasCutoff {
			applyCutoff(sol, m.Sense, p.Cutoff)
		}
		runtime.KeepAlive(raw)
		done <- outcome{sol, err}
	}()
	// The flag is freed by whoever receives the outcome (the run has
	// ended then).
	free := func() { C.free(unsafe.Pointer(flag)) }
	select {
	case o := <-done:
		free()
		if o.sol != nil {
			o.sol.Seconds = time.Since(start).Seconds()
		}
		return o.sol, o.err
	case <-ctx.Done():
	}
	C.odtkitStop(flag)
	// HiGHS polls the interrupt between iterations and nodes: wait
	// briefly for its incumbent and bound.
	select {
	case o := <-done:
		free()
		if o.sol != nil {
			o.sol.Seconds = time.Since(start).Seconds()
			if o.sol.Status == StatusOptimal || o.sol.Status == StatusInfeasible {
				// Finished just in time: a proof stands.
				return o.sol, o.err
			}
			o.sol.TimeLimit = o.sol.TimeLimit || errors.Is(ctx.Err(), context.DeadlineExceeded)
			o.sol.SolverStatus += " (context " + ctx.Err().Error() + ")"
		}
		return o.sol, o.err
	case <-time.After(grace):
		go func() { <-done; free() }()
	}
	return &Solution{Status: StatusNoSolution, Bound: noBound(m.Sense), SolverStatus: "cancelled",
		Seconds: time.Since(start).Seconds(), TimeLimit: errors.Is(ctx.Err(), context.DeadlineExceeded)}, nil
}

// noBound is the trivial bound on the optimum: −∞ when minimising, +∞
// when maximising.
func noBound(sense Sense) float64 {
	if sense == Maximize {
		return math.Inf(1)
	}
	return math.Inf(-1)
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

// readSolution reads the outcome of a run. HiGHS reports "optimal" as soon
// as the relative gap is within mip_rel_gap: with relGap > 0 that is only
// a proven optimum when the gap actually closed.
func readSolution(h unsafe.Pointer, n int, sense Sense, relGap float64, runErr error) (*Solution, error) {
	var cs highs.CallStatus
	if runErr != nil && !(errors.As(runErr, &cs) && cs.IsWarning()) {
		return nil, fmt.Errorf("milp: HiGHS run failed: %w", runErr)
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
		if relGap > 0 && !closed(sol.Objective, sol.Bound, sense) {
			// Stopped at the gap asked for: a solution and a bound.
			sol.Status, sol.SolverStatus = StatusFeasible, sol.SolverStatus+" within the relative gap"
			break
		}
		sol.Status, sol.Bound, sol.Gap = StatusOptimal, sol.Objective, 0
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
	return d <= 1e-6*max(1, math.Abs(obj))
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
