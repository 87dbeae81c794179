package dl85

import (
	"context"
	"fmt"
	"github.com/odtkit/odtkit/model"
	"math"
	"strings"

	"github.com/odtkit/odtkit/dp/internal/dl85"
)

// Context describes a child branch when CA-DL8.5 creates it: the
// index of its test in the parent's heuristic order (0 = greedy choice),
// the parent's depth, the branch's leaf error and size, and the test's
// information gain next to the parent's best gain.
type Context = dl85.Context

// Rule is the generic rule of CA-DL8.5 (the paper's initial_state,
// update, prune, terminal_state and relax), with node state type T. The
// rule's parameters live in the rule value; Relax weakens them for the
// next restart and returns false when they cannot be weakened further.
// Implement it to plug a new strategy into SolveAnytime.
type Rule[T comparable] = dl85.Rule[T]

// Schedule computes the next threshold of a rule from the current
// one when the rule is relaxed.
type Schedule interface {
	Next(cur float64) float64
}

// Monotonic adds Delta at each relaxation.
type Monotonic struct{ Delta float64 }

// Next returns cur + Delta.
func (m Monotonic) Next(cur float64) float64 { return cur + m.Delta }

// Exponential doubles the threshold at each relaxation; a zero
// threshold becomes Delta (so that every schedule reaches the complete
// search).
type Exponential struct{ Delta float64 }

// Next returns 2·cur, or Delta when cur is 0.
func (e Exponential) Next(cur float64) float64 {
	if cur <= 0 {
		return e.Delta
	}
	return 2 * cur
}

// Luby adds Delta times the next term of the Luby sequence
// (1, 1, 2, 1, 1, 2, 4, 1, ...) at each relaxation.
type Luby struct {
	Delta float64
	i     int
}

// Next returns cur + Delta·luby(i) for the next i.
func (l *Luby) Next(cur float64) float64 {
	l.i++
	return cur + l.Delta*float64(lubyTerm(l.i))
}

// lubyTerm is the i-th term (1-based) of the Luby sequence.
func lubyTerm(i int) int {
	for k := 1; ; k++ {
		if i == (1<<k)-1 {
			return 1 << (k - 1)
		}
		if i < (1<<k)-1 {
			return lubyTerm(i - (1 << (k - 1)) + 1)
		}
	}
}

// NewSchedule returns the schedule named monotonic, exponential or
// luby with step delta.
func NewSchedule(name string, delta float64) (Schedule, error) {
	if !(delta > 0) || math.IsInf(delta, 0) {
		return nil, fmt.Errorf("cadl85: relaxation step %v must be positive", delta)
	}
	switch strings.ToLower(name) {
	case "monotonic", "":
		return Monotonic{Delta: delta}, nil
	case "exponential":
		return Exponential{Delta: delta}, nil
	case "luby":
		return &Luby{Delta: delta}, nil
	}
	return nil, fmt.Errorf("cadl85: unknown relaxation %q (monotonic, exponential, luby)", name)
}

// Purity stops expanding a node once its purity 1 − error/size
// reaches MinPurity. Relaxing raises MinPurity, up to 1 (then only pure
// nodes, which are leaves anyway, stop: the search is complete).
type Purity struct {
	MinPurity float64
	Schedule  Schedule
}

// PurityState is a node's purity; Terminal marks a fully explored node.
type PurityState struct {
	Purity   float64
	Terminal bool
}

func purity(c Context) float64 {
	if c.Size == 0 {
		return 1
	}
	return 1 - c.Error/float64(c.Size)
}

func (r *Purity) InitialState(c Context) PurityState {
	return PurityState{Purity: purity(c)}
}
func (r *Purity) Update(_ PurityState, c Context) PurityState {
	return PurityState{Purity: purity(c)}
}
func (r *Purity) Prune(t PurityState) bool {
	return !t.Terminal && r.MinPurity < 1 && t.Purity >= r.MinPurity
}
func (r *Purity) TerminalState(t PurityState) PurityState {
	t.Terminal = true
	return t
}
func (r *Purity) Relax() bool {
	if r.MinPurity >= 1 {
		return false
	}
	r.MinPurity = min(1, r.Schedule.Next(r.MinPurity))
	return true
}

// Gain expands a test only while the cumulated gap between the best
// gain and the test's gain along the path stays within MaxGap (bits).
type Gain struct {
	MaxGap   float64
	Schedule Schedule
}

// GainState is the cumulated gain gap of a path.
type GainState struct {
	CumGap   float64
	Terminal bool
}

func (r *Gain) InitialState(Context) GainState { return GainState{} }
func (r *Gain) Update(t GainState, c Context) GainState {
	// Rounded so that equal gains on different paths compare equal.
	gap := math.Max(0, c.BestGain-c.Gain)
	if gap < 1e-12 {
		gap = 0
	}
	return GainState{CumGap: t.CumGap + gap}
}
func (r *Gain) Prune(t GainState) bool { return !t.Terminal && t.CumGap > r.MaxGap }
func (r *Gain) TerminalState(t GainState) GainState {
	t.Terminal = true
	return t
}
func (r *Gain) Relax() bool {
	r.MaxGap = r.Schedule.Next(r.MaxGap)
	return true
}

// Discrepancy is limited discrepancy search: the discrepancies
// (heuristic indices of the tests taken) summed along a path may not
// exceed MaxDiscrepancy.
type Discrepancy struct {
	MaxDiscrepancy int
	Schedule       Schedule
}

// DiscrepancyState is the total discrepancy of a path.
type DiscrepancyState struct {
	Total    int
	Terminal bool
}

func (r *Discrepancy) InitialState(Context) DiscrepancyState {
	return DiscrepancyState{}
}
func (r *Discrepancy) Update(t DiscrepancyState, c Context) DiscrepancyState {
	return DiscrepancyState{Total: t.Total + c.Index}
}
func (r *Discrepancy) Prune(t DiscrepancyState) bool {
	return !t.Terminal && t.Total > r.MaxDiscrepancy
}
func (r *Discrepancy) TerminalState(t DiscrepancyState) DiscrepancyState {
	t.Terminal = true
	return t
}
func (r *Discrepancy) Relax() bool {
	r.MaxDiscrepancy = nextInt(r.MaxDiscrepancy, r.Schedule)
	return true
}

// nextInt relaxes an integer threshold: at least by one.
func nextInt(cur int, s Schedule) int {
	n := int(math.Round(s.Next(float64(cur))))
	if n <= cur {
		n = cur + 1
	}
	return n
}

// TopK expands only the K best tests of a node (by the heuristic
// order). With Halving (Top-k*), the width is halved at each level below
// the root, at least 1.
type TopK struct {
	K        int
	Halving  bool
	Schedule Schedule
}

// TopKState is the heuristic index of the test that created a node
// and the depth where it was chosen; Index −1 marks a fully explored node.
type TopKState struct {
	Index, Depth int
	Terminal     bool
}

func (r *TopK) InitialState(Context) TopKState { return TopKState{} }
func (r *TopK) Update(_ TopKState, c Context) TopKState {
	return TopKState{Index: c.Index, Depth: c.Depth}
}
func (r *TopK) Prune(t TopKState) bool {
	if t.Terminal {
		return false
	}
	k := r.K
	if r.Halving {
		k = max(1, k>>min(t.Depth, 62))
	}
	return t.Index >= k
}
func (r *TopK) TerminalState(t TopKState) TopKState {
	t.Terminal = true
	return t
}
func (r *TopK) Relax() bool {
	r.K = nextInt(r.K, r.Schedule)
	return true
}

// Spec names a rule and its relaxation, as on the command line.
// Zero Start/Step mean the rule's defaults (see RuleDefaults).
type Spec struct {
	Rule  string // purity, gain, discrepancy, topk or topk*
	Relax string // monotonic, exponential or luby
	// Start is the initial threshold, Step the relaxation step δ.
	Start, Step float64
	// StartSet tells that Start was given (it may be 0).
	StartSet bool
}

// RuleDefaults returns a rule's initial threshold and step δ:
// purity 0.5 and 0.1 (capped at 1.0, where it is fully relaxed), gain 0
// and 0.05 bits, discrepancy 0 and 1, topk / topk* 1 and 1. The initial
// thresholds of gain, discrepancy and Top-k make the first restart
// greedy.
func RuleDefaults(rule string) (start, step float64, err error) {
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

// SolveNamed runs SolveAnytime with the rule and relaxation named by spec.
func SolveNamed(ctx context.Context, v *model.BinaryView, spec Spec, s Config) (*Result, error) {
	start, step, err := RuleDefaults(spec.Rule)
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
	sched, err := NewSchedule(spec.Relax, step)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(spec.Rule) {
	case "purity":
		if start > 1 {
			return nil, fmt.Errorf("cadl85: purity threshold %v above 1", start)
		}
		return SolveAnytime(ctx, v, &Purity{MinPurity: start, Schedule: sched}, s)
	case "gain":
		return SolveAnytime(ctx, v, &Gain{MaxGap: start, Schedule: sched}, s)
	case "discrepancy", "lds":
		return SolveAnytime(ctx, v, &Discrepancy{MaxDiscrepancy: int(start), Schedule: sched}, s)
	case "topk", "top-k":
		return SolveAnytime(ctx, v, &TopK{K: max(1, int(start)), Schedule: sched}, s)
	default: // topk*
		return SolveAnytime(ctx, v, &TopK{K: max(1, int(start)), Halving: true, Schedule: sched}, s)
	}
}
