//go:build unix && !linux

package runs

import (
	"errors"
	"os"
	"syscall"
)

// thisProcess is the identity of the calling process (no pid namespace or
// start time outside Linux).
func thisProcess() process {
	host, _ := os.Hostname()
	return process{host: host, pid: os.Getpid()}
}

// probeProcess checks with signal 0 whether process pid exists; the start
// time is unknown (0).
func probeProcess(pid int) (exists bool, start int64) {
	if pid <= 0 {
		return false, 0
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM), 0
}
