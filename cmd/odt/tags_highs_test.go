//go:build highs

package main

// e2eTags are the build tags of the odt binary the end-to-end tests run:
// the test binary's own, so that a `-tags highs` test run checks the
// HiGHS-backed command line too.
const e2eTags = "highs"
