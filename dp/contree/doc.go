// Package contree learns optimal decision trees of bounded depth directly
// on numeric thresholds, with the dynamic programming and branch-and-bound
// search of ConTree (Solve), and provides it as the "contree" backend
// (Backend). The engine lives in dp/internal/contree.
package contree
