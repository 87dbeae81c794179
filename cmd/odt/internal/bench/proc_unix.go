//go:build unix

package bench

import (
	"os"
	"os/exec"
	"syscall"
)

// newGroup starts cmd in a process group of its own.
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to p's process group.
func signalGroup(p *os.Process, sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(-p.Pid, s)
		return
	}
	p.Signal(sig)
}

// killGroup kills p's process group.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }

// peakMB is the peak resident memory of a finished process.
func peakMB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return rusageMB(ru)
	}
	return 0
}
