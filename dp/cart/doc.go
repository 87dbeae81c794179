// Package cart grows the greedy CART tree on the binary view (Grow: it is
// a heuristic, so it grows a tree rather than solving a problem), the
// baseline of odtkit and the first incumbent of its exact solvers, and
// provides it as the "cart" backend (Backend). It is odtkit's one greedy
// grower: formulations of a fixed tree shape (FlowOCT, sat-odt) take its
// complete tree of their depth over their own tests (GrowTree with
// Config.Complete) as their first tree.
package cart
