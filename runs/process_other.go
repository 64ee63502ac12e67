//go:build !unix

package runs

import "os"

// thisProcess is the identity of the calling process.
func thisProcess() process {
	host, _ := os.Hostname()
	return process{host: host, pid: os.Getpid()}
}

// probeProcess cannot check processes here: it assumes pid exists, so
// liveness rests on the heartbeat alone.
func probeProcess(pid int) (exists bool, start int64) { return pid > 0, 0 }
