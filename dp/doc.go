// Package dp only documents odtkit's native solvers; each lives in its own
// package beside its backend:
//
//   - dp/dl85: DL8.5 (dl85.Solve) and complete anytime DL8.5 with its
//     pruning rules (dl85.SolveAnytime), backends "dl85" and "cadl85";
//   - dp/blossom: Blossom, the anytime memory-light exact search;
//   - dp/contree: ConTree, optimal trees on numeric thresholds;
//   - dp/cart: the greedy CART baseline (cart.Grow).
//
// Engine internals live in dp/internal/<solver>.
package dp
