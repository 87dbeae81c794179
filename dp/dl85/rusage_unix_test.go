//go:build linux

package dl85

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

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
