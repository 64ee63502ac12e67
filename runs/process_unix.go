//go:build unix && !linux

package runs

import (
	"errors"
	"syscall"
)

// pidNamespace is "": outside Linux the pid namespace is unknown.
func pidNamespace() string { return "" }

// probeProcess checks with signal 0 whether process pid exists; the start
// time is unknown (0).
func probeProcess(pid int) (exists bool, start int64) {
	if pid <= 0 {
		return false, 0
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM), 0
}
