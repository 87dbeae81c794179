// Package dl85 learns optimal decision trees of bounded depth with DL8.5's
// caching branch-and-bound (Solve) and with Complete Anytime DL8.5, its
// restarts under a pruning rule relaxed each time (SolveAnytime with a
// Rule, or SolveNamed with a rule named as on the command line). It
// provides them as the "dl85" (Backend) and "cadl85" (AnytimeBackend)
// backends. The engine lives in dp/internal/dl85; Context and Rule are
// the engine's own types, so that a rule written against them runs in
// the engine with no adapter.
//
// Both backends also take the min-depth and min-size objectives, solved
// by the consistent-tree search of dp/internal/sparse: the same
// definitions, objective values and conflicting-row handling (the
// drop-conflicts option) as sat-depth and sat-size.
//
// At depth 3 and more the search starts from the dive's tree: at each
// level the test of highest information gain (the test the search tries
// first), down to the last two levels, which are solved exactly by the
// depth-2 step and cached for the search. DL8.5 improves its tree only
// when both branches of a root test have been searched through; on large
// data at depth 5 or 6 that can take longer than the time limit, and
// the best single split was all a stopped run had to show. The dive's
// tree is also the search's first upper bound, and when it makes no more
// errors than the irreducible ones (rows equal on every test with
// different classes) it is optimal and the search is left out. A dl85
// search that proves its tree optimal returns the same tree with the
// dive as without it (option dive=false).
//
// Of a test's two branches, the one whose leaf makes more errors is
// searched first (DL8.5 takes the false side first): when its optimum
// alone reaches the bound, the other is not searched. The optimum and
// the tree are the same either way.
//
// The depth-2 step counts, for every pair of tests, the rows of each
// class on which both are true (on two classes, one popcount pass per
// pair over the branch's rows renumbered). Both children of a test of a
// depth-3 branch usually need it, and their pair counts add up to their
// parent's: the smaller child's are counted, over its parent's tests,
// and the larger child's are the parent's less those (stat
// depth2_linked). The step's results are the same as counting each
// child alone; on the cp4im cells it takes about half the CPU time.
//
// DL8.5 on unweighted rows with a minimum support of one row also uses
// MurTree's similarity bound: a branch's optimum at a given remaining
// depth is at least that of a branch settled before at the same depth,
// less the rows of that branch it lacks. Each remaining depth remembers
// its last 64 settled branches; a branch whose bound from them reaches
// its upper bound is settled without being searched (stat
// similar_pruned). Trees and optima are unchanged; where tests split
// alike (thresholds of one attribute) it saves up to half the time, and
// more on some data (docs/benchmarks.md).
//
// The search reports its proven lower bound each time it rises
// (Config.OnBound, Job.Bound): the least, over the root's tests, of what
// their branches have established (with several workers, a root test
// being searched counts with its branches' cached bounds until its
// worker ends it). The options gap and abs-gap
// (Config.RelGap, Config.AbsGap) end the search, with status gap, once
// every root test is settled within the gap of the best tree. A branch
// below the root then stops as soon as its own tree is within the
// relative gap of its proven bound, or its bound satisfies its caller:
// these bounds compose into the root's (the argument is in the engine's
// bound.go). With gap-branches=exact (Config.RootGapOnly) the root's
// tests are instead searched exactly, only for trees better than the
// incumbent by more than the gap. With several workers
// the root's tests are shared among them as in the exact search, each
// searched under the gap below the best tree found so far by any; the
// tree and bound then depend on the workers' timing, each within the
// gap.
//
// Without a gap, the option bound-gap (Config.BoundGap) first runs such
// a gapped search and then the exact one on the same cache: a search
// stopped by its time limit then reports at least the first phase's
// bound (German-credit at depth 6: half its tree within 300 s, where the
// exact search alone proves nothing), at some cost where the exact
// search is quick (docs/benchmarks.md, "Gaps in every branch").
package dl85
