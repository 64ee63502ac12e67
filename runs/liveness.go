package runs

import (
	"database/sql"
	"fmt"
	"os"
	"time"
)

// HeartbeatInterval is how often a Store refreshes the heartbeat of the
// runs its process is running.
const HeartbeatInterval = 30 * time.Second

// StaleAfter is how old a running run's heartbeat may be before the run
// counts as abandoned (its process killed or stopped, its machine down).
const StaleAfter = 3 * HeartbeatInterval

// process identifies an operating-system process across processes of one
// machine: host name, pid namespace (e.g. "pid:[4026531836]" on Linux, ""
// where unknown), process id and start time (clock ticks since boot on
// Linux, 0 where unknown). Containers on one host may share a host name but
// not a pid namespace, and a pid is reused only with another start time.
type process struct {
	host  string
	ns    string
	pid   int
	start int64
}

// thisProcess is the identity of the calling process: its host name, pid
// namespace and pid, and its start time where probeProcess can read it.
func thisProcess() process {
	host, _ := os.Hostname()
	pid := os.Getpid()
	_, start := probeProcess(pid)
	return process{host: host, ns: pidNamespace(), pid: pid, start: start}
}

// owner is who runs a running run and when it last said so (runs.host,
// pidns, pid, pid_start, heartbeat).
type owner struct {
	process
	heartbeat sql.NullString
}

// probe reports whether process pid of this pid namespace exists and its
// start time (0 where the platform cannot tell).
type probe func(pid int) (exists bool, start int64)

// live reports whether a running run owned by o is still being computed.
// Its heartbeat must be at most StaleAfter old (or ahead: clocks of one
// machine agree, so a heartbeat far in the future is corrupt and stale) —
// runs written before schema version 3 have none and are stale. If o is a
// process of this host and pid namespace, that process must also exist,
// with the same start time (else its pid was reused), and not be this
// process (a run of this process is one it started and abandoned, e.g. an
// earlier grid in the same process; a grid never starts a spec twice). A
// process killed with SIGKILL is thus detected at once from its own pid
// namespace, and within StaleAfter from another (another container).
func (s *Store) live(o owner) bool {
	if !o.heartbeat.Valid {
		return false
	}
	t, err := parseTime(o.heartbeat.String)
	if err != nil {
		return false
	}
	if age := s.now().Sub(t); age > StaleAfter || age < -StaleAfter {
		return false
	}
	if o.host != s.self.host || o.ns != s.self.ns {
		return true
	}
	if o.pid == s.self.pid && o.start == s.self.start {
		return false
	}
	exists, start := s.probe(o.pid)
	if !exists {
		return false
	}
	return o.start == 0 || start == 0 || start == o.start
}

// Heartbeat marks every run this process is running as alive now and
// writes the progress Progress recorded since the last beat. The Store
// calls it every HeartbeatInterval after the first Start; it is exported
// for tests and for callers that block the loop's goroutine.
func (s *Store) Heartbeat() error {
	s.mu.Lock()
	progress := s.progress
	s.progress = nil
	s.mu.Unlock()
	err := s.tx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`UPDATE runs SET heartbeat = ? WHERE status = ? AND pid = ? AND pidns = ? AND pid_start = ?`,
			formatTime(s.now()), StatusRunning, s.self.pid, s.self.ns, s.self.start); err != nil {
			return err
		}
		for id, p := range progress {
			if _, err := tx.Exec(`UPDATE runs SET epoch = ?, epochs = ? WHERE id = ? AND status = ?`,
				p[0], p[1], id, StatusRunning); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("runs: %s: heartbeat: %w", s.path, err)
	}
	return nil
}

// Progress records that running run id logged epoch of total (1-based);
// the next Heartbeat writes it (Run.Epoch, Run.Epochs), so a database
// shows each running run's progress at most HeartbeatInterval late. It
// costs no database write, so a method may log thousands of epochs.
func (s *Store) Progress(id int64, epoch, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progress == nil {
		s.progress = map[int64][2]int{}
	}
	s.progress[id] = [2]int{epoch, total}
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
