// Package contree learns optimal decision trees of bounded depth directly
// on numeric thresholds, with the dynamic programming and branch-and-bound
// search of ConTree (Solve), and provides it as the "contree" backend
// (Backend). The engine lives in dp/internal/contree.
//
// Config.Workers (the backend: --threads, by default the number of CPUs
// the process may use) searches the root's thresholds with that many
// goroutines: one task per root feature from a shared queue, idle
// workers taking half of a busy worker's pending threshold intervals,
// one shared incumbent bound. What holds: the optimal objective is the
// same at every worker count; at every count above one the tree is the
// same (the optimal root split first in the sequential feature order and
// threshold order, its subtrees solved again deterministically), run
// after run; one worker is the sequential search, whose tree is the first
// optimal one in its own search order and may differ from it among
// equally good trees. With max-gap > 0, gap or abs-gap the search is
// sequential. The design is in the engine's package doc.
//
// At depth 3 and more the root is searched best-first (the option root,
// Config.DepthFirstRoot), by one worker or several: the search reports a
// proven lower bound each time it rises (Job.Bound, Config.OnBound), and
// the options gap and abs-gap (Config.RelGap, Config.AbsGap; one worker)
// stop it once its tree is within them of that bound, with status gap.
// At depth 4 and more the option bound-probes (Config.BoundProbes; one
// worker) first probes every root feature at a few thresholds, each
// side searched only for a lower bound with a fixed amount of work, so
// that the bound rises where the exact search's first root thresholds
// alone take minutes; the search that follows is unchanged and exact.
package contree
