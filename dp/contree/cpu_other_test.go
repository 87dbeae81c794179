//go:build !unix

package contree

// cpuSeconds is unknown on this system.
func cpuSeconds() float64 { return -1 }
