// Package blossom searches optimal decision trees of bounded depth with
// Blossom, Hebrard and Emmanuel's anytime algorithm whose memory grows
// with the tree rather than the search (Solve), and provides it as the
// "blossom" backend (Backend). The engine lives in dp/internal/blossom.
package blossom
