//go:build linux

package dl85

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// dl85CPUSeconds is the process's user+system CPU time (all threads,
// garbage collector included), or -1 when unknown.
func dl85CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// dl85ResetPeakRSS returns the free heap to the OS and resets the
// kernel's peak resident set mark, so that dl85PeakRSSMB then measures
// the peak of what runs next. It reports whether the reset worked.
func dl85ResetPeakRSS() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// dl85PeakRSSMB is the process's peak resident set (VmHWM) in MiB, or -1.
func dl85PeakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return -1
			}
			return kb / 1024
		}
	}
	return -1
}
