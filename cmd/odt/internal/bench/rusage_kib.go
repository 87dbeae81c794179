//go:build unix && !darwin

package bench

import "syscall"

// rusageMB converts Maxrss, in KiB on Linux and the BSDs.
func rusageMB(ru *syscall.Rusage) float64 { return float64(ru.Maxrss) / 1024 }
