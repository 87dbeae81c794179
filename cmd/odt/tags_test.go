//go:build !highs

package main

// e2eTags are the build tags of the odt binary the end-to-end tests run.
const e2eTags = ""
