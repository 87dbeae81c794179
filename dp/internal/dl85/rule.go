// Package dl85 is the engine of odtkit's DL8.5 and CA-DL8.5 solvers: a
// caching branch-and-bound search over the branches of the binary view,
// steered (for CA-DL8.5) by a pluggable pruning rule that is relaxed
// between restarts.
package dl85

// Context describes one child branch when the search creates it: the test
// that created it and the rows it holds. It is what a Rule sees.
type Context struct {
	// Index is the 0-based position of the test in the parent's heuristic
	// order (0 = the greedy choice).
	Index int
	// Depth is the depth of the parent node, where the test is chosen
	// (the root is at depth 0).
	Depth int
	// Error is the (weighted) error of a leaf on the branch's rows.
	Error float64
	// Size is the number of rows in the branch.
	Size int
	// Gain is the information gain (bits) of the test at the parent, and
	// BestGain the largest gain among the parent's tests.
	Gain, BestGain float64
}

// Rule steers CA-DL8.5 (the paper's rule with state type T and
// parameters R, the latter held inside the rule value). The search keeps
// one state per node: InitialState makes the root's, Update derives a
// child's from its parent's state and the child's Context, Prune tells
// whether a node must not be expanded under the current parameters, and
// TerminalState marks a node whose subtree has been fully explored (the
// engine keeps that fact itself and stores the terminal state with such
// nodes). Relax weakens the parameters for the next restart and reports
// false when they cannot be weakened any more (the rule then prunes
// nothing). T must be comparable: the engine reuses a cached, partially
// explored node within one restart only when its state is equal.
type Rule[T comparable] interface {
	InitialState(c Context) T
	Update(t T, c Context) T
	Prune(t T) bool
	TerminalState(t T) T
	Relax() bool
}

// NoRule prunes nothing: with it the engine is plain DL8.5.
type NoRule struct{}

func (NoRule) InitialState(Context) struct{}     { return struct{}{} }
func (NoRule) Update(struct{}, Context) struct{} { return struct{}{} }
func (NoRule) Prune(struct{}) bool               { return false }
func (NoRule) TerminalState(struct{}) struct{}   { return struct{}{} }
func (NoRule) Relax() bool                       { return false }
