//go:build unix

package runs

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with id pid exists on this host
// (signal 0 checks existence and permission without signalling).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
