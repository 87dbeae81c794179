// Package odtkit is the backend selector of odtkit: a registry of solver
// backends by name, each stating what it accepts, and Solve, which runs
// one of them under a time limit, forwards its incumbents, and verifies
// the returned model on the data before reporting it.
//
// Backends live in their own packages (dp, encode+sat, encode+milp); this
// package is the only one that knows all of them.
package odtkit
