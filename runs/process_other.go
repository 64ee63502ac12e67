//go:build !unix

package runs

// pidNamespace is "": the pid namespace is unknown here.
func pidNamespace() string { return "" }

// probeProcess cannot check processes here: it assumes pid exists, so
// liveness rests on the heartbeat alone.
func probeProcess(pid int) (exists bool, start int64) { return pid > 0, 0 }
