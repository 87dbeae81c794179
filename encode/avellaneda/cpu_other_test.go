//go:build !unix

package avellaneda

// cpuSeconds is unavailable here: the tests report 0 CPU seconds.
func cpuSeconds() float64 { return 0 }
