//go:build unix && !darwin

package main

import "syscall"

// rssMB converts Maxrss, in KiB on Linux and the BSDs.
func rssMB(ru *syscall.Rusage) float64 { return float64(ru.Maxrss) / 1024 }
