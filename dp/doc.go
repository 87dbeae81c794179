// Package dp only documents odtkit's native solvers; each lives in its own
// package beside its backend:
//
//   - dp/dl85: DL8.5 (dl85.Solve) and complete anytime DL8.5 with its
//     pruning rules (dl85.SolveAnytime), backends "dl85" and "cadl85";
//   - dp/blossom: Blossom, the anytime memory-light exact search;
//   - dp/contree: ConTree, optimal trees on numeric thresholds;
//   - dp/cart: the greedy CART baseline (cart.Grow).
//
// dl85 and cadl85 also solve the consistent-tree objectives min-depth,
// min-size and min-nodes (the least depth of a tree with no training
// error, then the fewest nodes at that depth, as sat-depth and sat-size
// define them; the fewest nodes at any depth, as sat-dt1 does) with the
// exact search of dp/internal/sparse (sparse.SolvePerfectJob).
//
// Engine internals live in dp/internal/<solver>.
package dp
