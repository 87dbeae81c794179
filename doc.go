// Package odtkit is the backend selector of odtkit: a registry of solver
// backends by name, each stating what it accepts, and Solve, which runs
// one of them under a time limit, forwards its incumbents, and verifies
// the returned model on the data before reporting it.
//
// Solve settles a result's status once, from what was proved: a model
// whose lower bound meets its objective is optimal, whatever stopped the
// search; a result without a model has no errors and no objective. A
// problem's maximum depth larger than can change the optimum of the
// error objective is searched at model.Problem.UsefulDepth for every
// backend (backend.NewJob), and the result says so (Result.Depth).
//
// Backends live in their own packages (dp, encode+sat, encode+milp); this
// package is the only one that knows all of them.
package odtkit
