//go:build !unix

package runs

// processAlive cannot check processes here; liveness then rests on the
// heartbeat alone.
func processAlive(pid int) bool { return pid > 0 }
