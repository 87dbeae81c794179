//go:build !unix

package proc

import "os/exec"

// ownGroup leaves cmd as it is: without Unix process groups, cancelling
// kills the solver process itself (exec.CommandContext's default).
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the solver process.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	_ = cmd.Process.Kill() // an error means it has exited already
	return nil
}
