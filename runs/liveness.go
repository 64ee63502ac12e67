package runs

import (
	"database/sql"
	"fmt"
	"time"
)

// HeartbeatInterval is how often a Store refreshes the heartbeat of the
// runs its process is running.
const HeartbeatInterval = 30 * time.Second

// StaleAfter is how old a running run's heartbeat may be before the run
// counts as abandoned (its process killed, its machine down).
const StaleAfter = 3 * HeartbeatInterval

// owner is who runs a running run: runs.host, runs.pid, runs.heartbeat.
type owner struct {
	host      string
	pid       int
	heartbeat sql.NullString
}

// Live reports whether a running run owned by process pid on host, last
// heard of at heartbeat (timeLayout; NULL for runs written before schema
// version 3), is still being computed: its heartbeat is at most StaleAfter
// old and, if host is this host, process pid exists and is not this
// process (a run can only be this process's own if it started it, and a
// grid never starts a spec twice). A process killed with SIGKILL is thus
// detected at once on the same host, and within StaleAfter on another.
func (s *Store) Live(host string, pid int, heartbeat sql.NullString) bool {
	if !heartbeat.Valid {
		return false
	}
	t, err := parseTime(heartbeat.String)
	if err != nil || s.now().Sub(t) > StaleAfter {
		return false
	}
	if host == s.host && (pid == s.pid || !s.alive(pid)) {
		return false
	}
	return true
}

// Heartbeat marks every run this process is running as alive now. The
// Store calls it every HeartbeatInterval after the first Start; it is
// exported for tests and for callers that block the loop's goroutine.
func (s *Store) Heartbeat() error {
	_, err := s.db.Exec(`UPDATE runs SET heartbeat = ? WHERE status = ? AND pid = ? AND host = ?`,
		formatTime(s.now()), StatusRunning, s.pid, s.host)
	if err != nil {
		return fmt.Errorf("runs: %s: heartbeat: %w", s.path, err)
	}
	return nil
}

// startHeartbeat starts the heartbeat loop once; Close ends it.
func (s *Store) startHeartbeat() {
	s.beat.Do(func() {
		go func() {
			defer close(s.ended)
			t := time.NewTicker(HeartbeatInterval)
			defer t.Stop()
			for {
				select {
				case <-s.stop:
					return
				case <-t.C:
					_ = s.Heartbeat() // a missed beat only risks a false "stale" after StaleAfter
				}
			}
		}()
	})
}
