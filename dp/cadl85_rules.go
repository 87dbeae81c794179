package dp

import (
	"context"
	"fmt"
	"github.com/odtkit/odtkit/model"
	"math"
	"strings"

	"github.com/odtkit/odtkit/dp/internal/dl85"
)

// CADL85Context describes a child branch when CA-DL8.5 creates it: the
// index of its test in the parent's heuristic order (0 = greedy choice),
// the parent's depth, the branch's leaf error and size, and the test's
// information gain next to the parent's best gain.
type CADL85Context = dl85.Context

// CADL85Rule is the generic rule of CA-DL8.5 (the paper's initial_state,
// update, prune, terminal_state and relax), with node state type T. The
// rule's parameters live in the rule value; Relax weakens them for the
// next restart and returns false when they cannot be weakened further.
// Implement it to plug a new strategy into CADL85.
type CADL85Rule[T comparable] = dl85.Rule[T]

// CADL85Schedule computes the next threshold of a rule from the current
// one when the rule is relaxed.
type CADL85Schedule interface {
	Next(cur float64) float64
}

// CADL85Monotonic adds Delta at each relaxation.
type CADL85Monotonic struct{ Delta float64 }

// Next returns cur + Delta.
func (m CADL85Monotonic) Next(cur float64) float64 { return cur + m.Delta }

// CADL85Exponential doubles the threshold at each relaxation; a zero
// threshold becomes Delta (so that every schedule reaches the complete
// search).
type CADL85Exponential struct{ Delta float64 }

// Next returns 2·cur, or Delta when cur is 0.
func (e CADL85Exponential) Next(cur float64) float64 {
	if cur <= 0 {
		return e.Delta
	}
	return 2 * cur
}

// CADL85Luby adds Delta times the next term of the Luby sequence
// (1, 1, 2, 1, 1, 2, 4, 1, ...) at each relaxation.
type CADL85Luby struct {
	Delta float64
	i     int
}

// Next returns cur + Delta·luby(i) for the next i.
func (l *CADL85Luby) Next(cur float64) float64 {
	l.i++
	return cur + l.Delta*float64(cadl85LubyTerm(l.i))
}

// cadl85LubyTerm is the i-th term (1-based) of the Luby sequence.
func cadl85LubyTerm(i int) int {
	for k := 1; ; k++ {
		if i == (1<<k)-1 {
			return 1 << (k - 1)
		}
		if i < (1<<k)-1 {
			return cadl85LubyTerm(i - (1 << (k - 1)) + 1)
		}
	}
}

// CADL85NewSchedule returns the schedule named monotonic, exponential or
// luby with step delta.
func CADL85NewSchedule(name string, delta float64) (CADL85Schedule, error) {
	if !(delta > 0) || math.IsInf(delta, 0) {
		return nil, fmt.Errorf("cadl85: relaxation step %v must be positive", delta)
	}
	switch strings.ToLower(name) {
	case "monotonic", "":
		return CADL85Monotonic{Delta: delta}, nil
	case "exponential":
		return CADL85Exponential{Delta: delta}, nil
	case "luby":
		return &CADL85Luby{Delta: delta}, nil
	}
	return nil, fmt.Errorf("cadl85: unknown relaxation %q (monotonic, exponential, luby)", name)
}

// CADL85Purity stops expanding a node once its purity 1 − error/size
// reaches MinPurity. Relaxing raises MinPurity, up to 1 (then only pure
// nodes, which are leaves anyway, stop: the search is complete).
type CADL85Purity struct {
	MinPurity float64
	Schedule  CADL85Schedule
}

// CADL85PurityState is a node's purity; Terminal marks a fully explored node.
type CADL85PurityState struct {
	Purity   float64
	Terminal bool
}

func cadl85Purity(c CADL85Context) float64 {
	if c.Size == 0 {
		return 1
	}
	return 1 - c.Error/float64(c.Size)
}

func (r *CADL85Purity) InitialState(c CADL85Context) CADL85PurityState {
	return CADL85PurityState{Purity: cadl85Purity(c)}
}
func (r *CADL85Purity) Update(_ CADL85PurityState, c CADL85Context) CADL85PurityState {
	return CADL85PurityState{Purity: cadl85Purity(c)}
}
func (r *CADL85Purity) Prune(t CADL85PurityState) bool {
	return !t.Terminal && r.MinPurity < 1 && t.Purity >= r.MinPurity
}
func (r *CADL85Purity) TerminalState(t CADL85PurityState) CADL85PurityState {
	t.Terminal = true
	return t
}
func (r *CADL85Purity) Relax() bool {
	if r.MinPurity >= 1 {
		return false
	}
	r.MinPurity = min(1, r.Schedule.Next(r.MinPurity))
	return true
}

// CADL85Gain expands a test only while the cumulated gap between the best
// gain and the test's gain along the path stays within MaxGap (bits).
type CADL85Gain struct {
	MaxGap   float64
	Schedule CADL85Schedule
}

// CADL85GainState is the cumulated gain gap of a path.
type CADL85GainState struct {
	CumGap   float64
	Terminal bool
}

func (r *CADL85Gain) InitialState(CADL85Context) CADL85GainState { return CADL85GainState{} }
func (r *CADL85Gain) Update(t CADL85GainState, c CADL85Context) CADL85GainState {
	// Rounded so that equal gains on different paths compare equal.
	gap := math.Max(0, c.BestGain-c.Gain)
	if gap < 1e-12 {
		gap = 0
	}
	return CADL85GainState{CumGap: t.CumGap + gap}
}
func (r *CADL85Gain) Prune(t CADL85GainState) bool { return !t.Terminal && t.CumGap > r.MaxGap }
func (r *CADL85Gain) TerminalState(t CADL85GainState) CADL85GainState {
	t.Terminal = true
	return t
}
func (r *CADL85Gain) Relax() bool {
	r.MaxGap = r.Schedule.Next(r.MaxGap)
	return true
}

// CADL85Discrepancy is limited discrepancy search: the discrepancies
// (heuristic indices of the tests taken) summed along a path may not
// exceed MaxDiscrepancy.
type CADL85Discrepancy struct {
	MaxDiscrepancy int
	Schedule       CADL85Schedule
}

// CADL85DiscrepancyState is the total discrepancy of a path.
type CADL85DiscrepancyState struct {
	Total    int
	Terminal bool
}

func (r *CADL85Discrepancy) InitialState(CADL85Context) CADL85DiscrepancyState {
	return CADL85DiscrepancyState{}
}
func (r *CADL85Discrepancy) Update(t CADL85DiscrepancyState, c CADL85Context) CADL85DiscrepancyState {
	return CADL85DiscrepancyState{Total: t.Total + c.Index}
}
func (r *CADL85Discrepancy) Prune(t CADL85DiscrepancyState) bool {
	return !t.Terminal && t.Total > r.MaxDiscrepancy
}
func (r *CADL85Discrepancy) TerminalState(t CADL85DiscrepancyState) CADL85DiscrepancyState {
	t.Terminal = true
	return t
}
func (r *CADL85Discrepancy) Relax() bool {
	r.MaxDiscrepancy = cadl85NextInt(r.MaxDiscrepancy, r.Schedule)
	return true
}

// cadl85NextInt relaxes an integer threshold: at least by one.
func cadl85NextInt(cur int, s CADL85Schedule) int {
	n := int(math.Round(s.Next(float64(cur))))
	if n <= cur {
		n = cur + 1
	}
	return n
}

// CADL85TopK expands only the K best tests of a node (by the heuristic
// order). With Halving (Top-k*), the width is halved at each level below
// the root, at least 1.
type CADL85TopK struct {
	K        int
	Halving  bool
	Schedule CADL85Schedule
}

// CADL85TopKState is the heuristic index of the test that created a node
// and the depth where it was chosen; Index −1 marks a fully explored node.
type CADL85TopKState struct {
	Index, Depth int
	Terminal     bool
}

func (r *CADL85TopK) InitialState(CADL85Context) CADL85TopKState { return CADL85TopKState{} }
func (r *CADL85TopK) Update(_ CADL85TopKState, c CADL85Context) CADL85TopKState {
	return CADL85TopKState{Index: c.Index, Depth: c.Depth}
}
func (r *CADL85TopK) Prune(t CADL85TopKState) bool {
	if t.Terminal {
		return false
	}
	k := r.K
	if r.Halving {
		k = max(1, k>>min(t.Depth, 62))
	}
	return t.Index >= k
}
func (r *CADL85TopK) TerminalState(t CADL85TopKState) CADL85TopKState {
	t.Terminal = true
	return t
}
func (r *CADL85TopK) Relax() bool {
	r.K = cadl85NextInt(r.K, r.Schedule)
	return true
}

// CADL85Spec names a rule and its relaxation, as on the command line.
// Zero Start/Step mean the rule's defaults (see CADL85RuleDefaults).
type CADL85Spec struct {
	Rule  string // purity, gain, discrepancy, topk or topk*
	Relax string // monotonic, exponential or luby
	// Start is the initial threshold, Step the relaxation step δ.
	Start, Step float64
	// StartSet tells that Start was given (it may be 0).
	StartSet bool
}

// CADL85RuleDefaults returns a rule's initial threshold and step δ:
// purity 0.5 and 0.1 (capped at 1.0, where it is fully relaxed), gain 0
// and 0.05 bits, discrepancy 0 and 1, topk / topk* 1 and 1. The initial
// thresholds of gain, discrepancy and Top-k make the first restart
// greedy.
func CADL85RuleDefaults(rule string) (start, step float64, err error) {
	switch strings.ToLower(rule) {
	case "purity":
		return 0.5, 0.1, nil
	case "gain":
		return 0, 0.05, nil
	case "discrepancy", "lds":
		return 0, 1, nil
	case "topk", "top-k", "topk*", "top-k*":
		return 1, 1, nil
	}
	return 0, 0, fmt.Errorf("cadl85: unknown rule %q (purity, gain, discrepancy, topk, topk*)", rule)
}

// CADL85Named runs CADL85 with the rule and relaxation named by spec.
func CADL85Named(ctx context.Context, v *model.BinaryView, maxDepth, minSupport int, spec CADL85Spec, s DL85Settings) (*DL85Result, error) {
	start, step, err := CADL85RuleDefaults(spec.Rule)
	if err != nil {
		return nil, err
	}
	if spec.StartSet {
		start = spec.Start
	}
	if spec.Step != 0 {
		step = spec.Step
	}
	if math.IsNaN(start) || math.IsInf(start, 0) || start < 0 {
		return nil, fmt.Errorf("cadl85: start threshold %v must be a non-negative number", start)
	}
	sched, err := CADL85NewSchedule(spec.Relax, step)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(spec.Rule) {
	case "purity":
		if start > 1 {
			return nil, fmt.Errorf("cadl85: purity threshold %v above 1", start)
		}
		return CADL85(ctx, v, maxDepth, minSupport, &CADL85Purity{MinPurity: start, Schedule: sched}, s)
	case "gain":
		return CADL85(ctx, v, maxDepth, minSupport, &CADL85Gain{MaxGap: start, Schedule: sched}, s)
	case "discrepancy", "lds":
		return CADL85(ctx, v, maxDepth, minSupport, &CADL85Discrepancy{MaxDiscrepancy: int(start), Schedule: sched}, s)
	case "topk", "top-k":
		return CADL85(ctx, v, maxDepth, minSupport, &CADL85TopK{K: max(1, int(start)), Schedule: sched}, s)
	default: // topk*
		return CADL85(ctx, v, maxDepth, minSupport, &CADL85TopK{K: max(1, int(start)), Halving: true, Schedule: sched}, s)
	}
}
