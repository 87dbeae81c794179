//go:build unix

package dptest

import "syscall"

// CPUSeconds is the process's user + system CPU time over all its
// threads (the garbage collector included), or -1 when unknown.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
