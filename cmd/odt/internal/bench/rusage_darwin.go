package bench

import "syscall"

// rusageMB converts Maxrss, in bytes on macOS.
func rusageMB(ru *syscall.Rusage) float64 { return float64(ru.Maxrss) / (1 << 20) }
