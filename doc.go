// Package odtkit learns provably optimal decision trees and decision
// diagrams. One call, [Solve], runs any of several solver backends on a
// dataset and a stated problem, under a time limit and a memory cap, and
// returns a model that has been re-evaluated on the data before it is
// reported: a result is "optimal" only when the backend proved it, and a
// backend whose claims do not hold is an error, never a result.
//
// # Problems
//
// A [model.Problem] states the objective:
//
//   - error: fewest (weighted) training errors of a tree of at most
//     MaxDepth levels, optionally with MinSupport rows per leaf, at most
//     MaxNodes internal nodes, or a LeafCost per leaf (sparse trees);
//   - min-depth / min-size: the smallest tree with no training error
//     (least depth, then fewest nodes at that depth);
//   - min-nodes: the fewest nodes of a tree with no training error at
//     any depth;
//   - diagram: a decision diagram on a skeleton of layer widths, trading
//     the error rate against the number of internal nodes (Alpha).
//
// The data are a [model.Dataset], read from CSV or whitespace text by
// [model.ReadFile]. Numeric, binary and categorical columns are all
// accepted; backends that work on Boolean tests see the binary view.
//
// # Results
//
// Solve settles a result's status once, from what was proved: a model
// whose lower bound meets its objective is optimal, whatever stopped the
// search; a result without a model has no errors and no objective. A
// problem's maximum depth larger than can change the optimum of the
// error objective is searched at model.Problem.UsefulDepth for every
// backend (backend.NewJob), and the result says so (Result.Depth).
//
// # Backends
//
// Settings.Backend names the backend ("auto" or "" picks one for the
// problem and data; see [Registry.Auto]). [DefaultRegistry] holds:
//
//	backend       family     objectives                   notes
//	cart          heuristic  error                        greedy baseline, never claims optimality
//	dl85          dp         error, min-depth, min-size, min-nodes   DL8.5, caching branch-and-bound on the binary view
//	cadl85        dp         error, min-depth, min-size, min-nodes   complete anytime DL8.5 (restarts under relaxed pruning)
//	blossom       dp         error                        anytime exact search, memory linear in the tree size
//	contree       dp         error                        ConTree: exact search directly on numeric thresholds
//	sat-depth     sat        min-depth                    Avellaneda's SAT encoding; DIMACS export
//	sat-size      sat        min-size                     the same encoding, fewest nodes; DIMACS export
//	sat-dt1       sat        min-nodes                    Narodytska et al.'s tree of exactly N nodes; DIMACS export
//	sat-odt       sat        error                        complete tree with soft error literals; WCNF/OPB export
//	sat-odd       sat        diagram                      decision diagrams by MaxSAT; WCNF/OPB export
//	milp-odd      milp       diagram                      ODD flow MILP on HiGHS (build tag highs); MPS/LP export
//	milp-odt      milp       error, diagram               its tree special case; MPS/LP export
//	milp-flowoct  milp       error, min-depth, min-size   FlowOCT on the binary view; MPS/LP export
//	milp-oct      milp       error                        OCT (Bertsimas & Dunn) as published; MPS/LP export
//	milp-binoct   milp       error                        BinOCT (Verwer & Zhang) as published; MPS/LP export
//	cp-odt        cp         error, min-depth, min-size   MiniZinc model on any MiniZinc solver (Gecode); MZN export
//	race          portfolio  error, min-depth, min-size, min-nodes   members raced, stopped at the first proof
//
// [Registry.List] (or the command `odt backends`) gives each backend's
// input, capabilities and typed options; docs/backends.md in the
// repository is generated from it. Options are passed as text in
// Settings.Options and validated before any work; a request a backend
// cannot honour fails with an error wrapping [ErrInvalid].
//
// # Entry points
//
//   - [Solve] learns a model; Settings.OnIncumbent receives each
//     improving model as it is found.
//   - [Check] validates a request as Solve would, without solving.
//   - [Export] writes a backend's formulation (DIMACS, MPS, CPLEX LP,
//     WCNF or OPB) for an external SAT, MILP, MaxSAT or pseudo-Boolean
//     solver, and [Decode] reads that solver's answer back into a
//     verified result.
//   - [Verify] re-evaluates a result's claims on the data.
//
// The MILP backends need the HiGHS library at build time: build with
// `-tags highs` on a system where pkg-config finds highs. Without the
// tag they are still listed, [Export] still writes their MPS files, and a
// solve fails with an error saying how to enable them.
//
// Each solver package can also be used on its own (dp/dl85, dp/contree,
// dp/blossom, dp/cart, encode/avellaneda, encode/satodt, encode/satodd,
// encode/odd, encode/flowoct, encode/oct, encode/binoct), and every backend
// implements [backend.Backend] and passes the conformance suite in
// backend/backendtest.
package odtkit
