package main

import "syscall"

// rssMB converts Maxrss, in bytes on macOS.
func rssMB(ru *syscall.Rusage) float64 { return float64(ru.Maxrss) / (1 << 20) }
