//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, so that stopping it
// (cancel) and cleaning up after it reach every process it started.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills cmd's process group (no error once it is gone).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
