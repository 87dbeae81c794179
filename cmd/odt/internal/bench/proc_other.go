//go:build !unix

package bench

import (
	"os"
	"os/exec"
)

// newGroup does nothing: without unix process groups a run is one
// process.
func newGroup(*exec.Cmd) {}

// signalGroup stops p: an interrupt where the system can send one, else
// a kill.
func signalGroup(p *os.Process, sig os.Signal) {
	if p.Signal(sig) != nil {
		p.Kill()
	}
}

// killGroup kills p.
func killGroup(p *os.Process) { p.Kill() }

// peakMB is not measured on this system.
func peakMB(*os.ProcessState) float64 { return 0 }
