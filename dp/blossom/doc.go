// Package blossom searches optimal decision trees of bounded depth with
// Blossom, Demirović, Hebrard and Jean's anytime algorithm whose memory grows
// with the tree rather than the search (Solve), and provides it as the
// "blossom" backend (Backend). The engine lives in dp/internal/blossom.
//
// With Config.Workers > 1 (the backend passes Job.Workers(): --threads,
// or every core the process may use) the tests of the root are searched
// on that many goroutines; a search that runs to the end returns the
// same error and the same tree at every worker count (the engine's
// package doc says how, and the one exception under a tight memory cap).
package blossom
