//go:build !unix

package dptest

// CPUSeconds is unknown here: -1.
func CPUSeconds() float64 { return -1 }
