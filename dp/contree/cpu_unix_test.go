//go:build unix

package contree

import "syscall"

// cpuSeconds is the process's user + system CPU time over all its
// threads, or -1 when unknown.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
