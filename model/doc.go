// Package model is odtkit's common model layer: datasets and their readers,
// the binary view used by the DP and SAT backends, decision graphs (trees
// and diagrams), problems and results. It imports no other odtkit package;
// every backend and the selector build on it.
package model
