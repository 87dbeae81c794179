// Package dl85 is the engine of odtkit's DL8.5 and CA-DL8.5 solvers: a
// caching branch-and-bound search over the branches of the binary view,
// steered (for CA-DL8.5) by a pluggable pruning rule that is relaxed
// between restarts.
//
// # Parallel search (Config.Workers > 1)
//
// Work split: the root's tests are the work items. The root is prepared
// as in the sequential search (its admissible tests, the best single
// split as first incumbent, the heuristic order); the workers then take
// positions in that order one at a time from a shared counter and search
// both children of their test, each with its own scratch (a search value:
// per-level row sets, keys, counts, depth-2 tables, irreducible-error
// tables). When the root's tests run out, a worker does not wait idle
// for the others' last tests: it waits on a help board, and a worker
// still in a root test turns each level-1 node it is in (or enters)
// into a joint whose remaining tests it and the idle workers take one
// at a time from a shared counter, the idle workers with their own
// scratch and a copy of the root test's tightener (below); the node's
// best tree is kept as the root's incumbent is (lowest position wins a
// tie) and its owner settles it once every helper is done. CA-DL8.5 runs
// each restart this way (the restart still ends when all its tests and
// joints are done: the next restart starts from its decision); the rule is only read
// by the workers and relaxed between restarts. With a maximum depth
// below 2, or when the depth-2 step solves the root, there is nothing to
// split and the search is the sequential one.
//
// Shared: (a) the cache of branches, a map split into 64 shards with a
// lock each; entries are merged with the sequential cache's rules (the
// better bound, the better tree), and a bound learned under any upper
// bound is valid for every worker; each shard evicts its own deepest
// levels when it holds more than its share of the cache cap; (b) the
// root's incumbent (error, tree, position of its test) behind a mutex,
// with a change counter read atomically at every node: a worker's
// bounds that were made from the root's bound (not from a tree found on
// the way) drop by as much as the root's did since its test began, so a
// better tree found by one worker prunes the others at once; (c) one
// stop flag, set by the context (through
// context.AfterFunc: workers never poll ctx themselves) or by a refused
// memory reservation, which every worker checks at every node.
//
// Memory: every worker's scratch and the cache's growth are reserved in
// the one Budget; a worker whose scratch does not fit is not started
// (fewer workers), and a cache that cannot grow even after evicting stops
// all workers with Result.Cause wrapping model.ErrMemoryLimit. A stopped
// search still reports a valid lower bound: the minimum over the root's
// tests of what each worker proved, the irreducible error at least.
//
// Determinism: among equally good trees the sequential search keeps the
// first in its order (the leaf, then at the root the best single split,
// then the first test in heuristic order with each child's first optimal
// tree, the depth-2 step's own tie-break at depth 2). A worker on a test
// earlier than the incumbent's accepts an equal error, so the root's
// winner does not depend on the workers' timing; and once the optimum is
// proven the tree is rebuilt in that order from the optima of the
// branches (cached, or searched again without pruning). Hence: on
// unweighted data a proven DL8.5 or CA-DL8.5 tree is the same for every
// worker count of 2 and more, and for DL8.5 it is also the sequential
// one; CA-DL8.5 on one worker may return another tree of the same error
// (an equal tree found in an earlier restart). With row weights errors
// are float sums and trees whose errors differ only by rounding may
// stand in for each other. A search stopped early returns its best
// incumbent, which depends on timing. The optimal error, and the
// anytime incumbents' strict improvement, hold at every count.
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
