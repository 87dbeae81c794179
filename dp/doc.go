// Package dp holds odtkit's native solvers over the model layer: the
// greedy CART baseline and the exact dynamic-programming searches
// (DL8.5, CA-DL8.5, Blossom, ConTree). Engine internals live in
// dp/internal/<solver>.
package dp
